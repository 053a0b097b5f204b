/**
 * Every procedure that needs a credential, read from the router's meta — never from a list — so a
 * new protected procedure is checked the day it is added: `openapi.protect` marks the ones taking
 * a wallet's bearer token, `scope` (set by scopedProcedure) the ones taking a service key.
 */
import type { Scope } from '@signal/core';
import type { AnyRouter } from '@trpc/server';
import { appRouter } from '../../src/index.js';
import type { Meta } from '../../src/procedures/trpc.js';

export interface ProtectedProcedure {
  /** The tRPC path, e.g. `me.get`. */
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  /** Its REST operation with every path parameter filled in, when it has one. */
  rest?: { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string };
  /** A service key's scope; undefined for a wallet's token. */
  scope?: Scope;
}

type Def = { _def: { type: ProtectedProcedure['type']; meta?: Meta } };

export function protectedProcedures(router: AnyRouter = appRouter): ProtectedProcedure[] {
  const found: ProtectedProcedure[] = [];
  for (const [path, procedure] of Object.entries(router._def.procedures as unknown as Record<string, Def>)) {
    const meta = procedure._def.meta;
    if (!meta?.openapi?.protect && meta?.scope === undefined) continue;
    const openapi = meta.openapi;
    found.push({
      path,
      type: procedure._def.type,
      ...(openapi ? { rest: { method: openapi.method, path: openapi.path.replace(/\{[^}]+\}/g, '1') } } : {}),
      ...(meta.scope !== undefined ? { scope: meta.scope } : {}),
    });
  }
  return found;
}

/**
 * How to send `credential` (an Authorization header value, or none) to a procedure over each
 * transport: REST at its operation, tRPC as a raw query (GET `?input=`) or mutation (POST).
 */
export function transportsOf(procedure: ProtectedProcedure): { name: string; method: string; path: string }[] {
  const ways: { name: string; method: string; path: string }[] = [];
  if (procedure.rest) ways.push({ name: 'REST', ...procedure.rest });
  if (procedure.type === 'query') ways.push({ name: 'tRPC', method: 'GET', path: `/trpc/${procedure.path}` });
  if (procedure.type === 'mutation') ways.push({ name: 'tRPC', method: 'POST', path: `/trpc/${procedure.path}` });
  return ways;
}
