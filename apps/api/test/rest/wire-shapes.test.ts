/**
 * The ETags of the cacheable reads start with WIRE_SHAPES_VERSION (packages/core/src/wire-shapes.ts),
 * so that an answer cached in an older shape never revalidates as current. The version is bumped
 * by hand; this test holds a digest of the answer schemas (their JSON Schema) of every procedure
 * whose meta has a `cache` policy, per version, and fails when they change without a bump. No
 * server, no database: well under a second.
 */
import { createHash } from 'node:crypto';
import { WIRE_SHAPES_VERSION } from '@signal/core';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { appRouter } from '../../src/index.js';

/** WIRE_SHAPES_VERSION → the digest of the cacheable answers' shapes it stands for (keep the old ones). */
const SHAPES: Record<number, string> = {
  1: 'bJSya-YJqcpEpEGE3rA-Oa',
};

function cacheableShapes(): string {
  type Def = { meta?: { cache?: unknown; openapi?: { method: string; path: string } }; output?: z.ZodType };
  const procedures = Object.values(appRouter._def.procedures as unknown as Record<string, { _def: Def }>);
  // By route, not by procedure name: moving a procedure to another router changes no wire shape.
  const shapes: Record<string, unknown> = {};
  for (const { _def: def } of procedures) {
    if (!def.meta?.cache) continue;
    const route = `${def.meta.openapi?.method} ${def.meta.openapi?.path}`;
    expect(def.output, `${route}: a cacheable read names its answer schema (.output)`).toBeDefined();
    shapes[route] = z.toJSONSchema(def.output as z.ZodType, { io: 'output', unrepresentable: 'any' });
  }
  expect(Object.keys(shapes).length).toBeGreaterThan(0);
  return createHash('sha256')
    .update(JSON.stringify(Object.entries(shapes).sort(([a], [b]) => a.localeCompare(b))))
    .digest('base64url')
    .slice(0, 22);
}

it('an answer shape of a cacheable read changes only with a bump of WIRE_SHAPES_VERSION', () => {
  const digest = cacheableShapes();
  expect(
    SHAPES[WIRE_SHAPES_VERSION],
    `The answer schemas of the cacheable reads (their JSON Schema digest is now ${digest}) differ from the ones ` +
      `WIRE_SHAPES_VERSION ${WIRE_SHAPES_VERSION} stands for. If a wire shape changed, bump WIRE_SHAPES_VERSION in ` +
      `packages/core/src/wire-shapes.ts and add "${WIRE_SHAPES_VERSION + 1}: '${digest}'" to SHAPES here, so that no ` +
      'answer cached in the old shape revalidates as current.',
  ).toBe(digest);
});
