/**
 * /openapi.json for code generators: openapi-typescript turns the live document of a started
 * server into TypeScript types, a small client written with openapi-fetch against them (using
 * the named component types, `components['schemas']['Provider']` and so on) must type-check
 * under strict settings, and that client, compiled and run as its own Node process, lists
 * providers, reads one and gets a 404 typed as ErrorBody from the same server.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useApi } from '../harness.js';

const run = promisify(execFile);
const API_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The client a customer would write: openapi-fetch over the generated `paths`, typed by name. */
const CLIENT = `
import type { ContractProvider } from '@signal/test-support/contract';
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Schemas = components['schemas'];
export type Provider = Schemas['Provider'];
export type ProviderPage = Schemas['ProviderPage'];
export type ErrorBody = Schemas['ErrorBody'];

/** True when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// The named types are the wire types, field for field (an \`any\` would fail these).
export const providerShape: Equal<Provider, ContractProvider> = true;
export const pageItems: Equal<ProviderPage['items'], Provider[]> = true;
export const followedItems: Equal<Schemas['FollowedProviderPage']['items'][number], Schemas['FollowedProvider']> = true;
export const tokenUser: Equal<Schemas['TokenResponse']['user'], Schemas['User']> = true;
export const chains: Equal<Schemas['User']['chain'], 'evm' | 'solana'> = true;
export const pageNumber: Equal<ProviderPage['page'], number | null> = true;

// \`following\` is a constant of each answer, not a boolean.
export const followed: Equal<Schemas['FollowResult']['following'], true> = true;
export const unfollowed: Equal<Schemas['UnfollowResult']['following'], false> = true;
// @ts-expect-error a follow never answers following: false
export const wrongFollow: Schemas['FollowResult'] = { providerId: 1, following: false, followerCount: 0 };

// Error codes are the contract's strings.
export const codes: Equal<ErrorBody['code'], Schemas['ErrorCode']> = true;
// @ts-expect-error not one of the contract's codes
export const teapot: ErrorBody['code'] = 'TEAPOT';

export interface Outcome {
  page: ProviderPage;
  one: Provider;
  missing: { status: number; error: ErrorBody };
}

export async function walk(baseUrl: string): Promise<Outcome> {
  const client = createClient<paths>({ baseUrl });
  // @ts-expect-error sortBy takes the documented fields only
  await client.GET('/providers', { params: { query: { sortBy: 'rank' } } });
  const list = await client.GET('/providers', { params: { query: { limit: 2, sortBy: 'id', order: 'asc' } } });
  if (!list.data) throw new Error('list failed: ' + list.response.status);
  const page: ProviderPage = list.data;
  const first: Provider | undefined = page.items[0];
  if (!first) throw new Error('the catalogue is empty');
  const got = await client.GET('/providers/{id}', { params: { path: { id: first.id } } });
  if (!got.data) throw new Error('get failed: ' + got.response.status);
  const one: Provider = got.data;
  const missing = await client.GET('/providers/{id}', { params: { path: { id: 999999 } } });
  if (!missing.error) throw new Error('expected an error, got ' + missing.response.status);
  // Every error answer of the operation is an ErrorBody (narrowed to its codes).
  const error: ErrorBody = missing.error;
  return { page, one, missing: { status: missing.response.status, error } };
}
`;

const MAIN = `
import { walk } from './client.js';

// The project has no @types/node; these two members of Node's process are all it uses.
declare const process: { argv: string[]; stdout: { write(text: string): void } };

process.stdout.write(JSON.stringify(await walk(process.argv[2] ?? '')));
`;

const COMPILER_OPTIONS: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  skipLibCheck: true,
};

const api = useApi('postgres', { env: { SEED_PROVIDERS: '3' } });
let dir: string;
let generated: string;

/** Type-checks the project in `dir` and emits it to dir/out; returns tsc's diagnostics as text. */
function compile(files: string[]): string[] {
  const program = ts.createProgram(
    files.map((file) => join(dir, file)),
    { ...COMPILER_OPTIONS, outDir: join(dir, 'out') },
  );
  const diagnostics = ts.getPreEmitDiagnostics(program);
  if (diagnostics.length === 0) program.emit();
  return diagnostics.map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

beforeAll(async () => {
  const reply = await call(api, 'GET', '/openapi.json');
  expect(reply.status).toBe(200);
  generated = astToString(await openapiTS(reply.body as OpenAPI3));
  dir = await mkdtemp(join(tmpdir(), 'signal-openapi-codegen-'));
  // The temporary project gets openapi-fetch the way an installed one would: node_modules.
  await mkdir(join(dir, 'node_modules'));
  await symlink(
    await realpath(join(API_ROOT, 'node_modules', 'openapi-fetch')),
    join(dir, 'node_modules', 'openapi-fetch'),
  );
  // And the contract's types, which the client's type assertions hold the generated ones to.
  await mkdir(join(dir, 'node_modules', '@signal'));
  await symlink(
    await realpath(join(API_ROOT, 'node_modules', '@signal', 'test-support')),
    join(dir, 'node_modules', '@signal', 'test-support'),
  );
  await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await writeFile(join(dir, 'api.d.ts'), generated);
  await writeFile(join(dir, 'client.ts'), CLIENT);
  await writeFile(join(dir, 'main.ts'), MAIN);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('openapi-typescript on the live /openapi.json', () => {
  it('generates the named schemas as types', () => {
    for (const name of ['Provider', 'ProviderPage', 'FollowedProviderPage', 'User', 'ErrorBody', 'FollowResult']) {
      expect(generated).toMatch(new RegExp(`\\b${name}: \\{`));
    }
  });

  it('an openapi-fetch client written against the named types type-checks (strict, noUncheckedIndexedAccess)', () => {
    expect(compile(['client.ts', 'main.ts'])).toEqual([]);
  });

  it('the check means something: a client using a type the document lacks does not compile', async () => {
    await writeFile(
      join(dir, 'wrong.ts'),
      "import type { components } from './api.js';\nexport type Missing = components['schemas']['Stats'];\n",
    );
    const diagnostics = compile(['wrong.ts']);
    expect(diagnostics.join('\n')).toMatch(/Property 'Stats' does not exist/);
  });

  it('the compiled client runs against the started server: a page, one provider, a 404 as ErrorBody', async () => {
    expect(compile(['client.ts', 'main.ts'])).toEqual([]);
    const { stdout } = await run(process.execPath, [join(dir, 'out', 'main.js'), api.url], { timeout: 20_000 });
    const outcome = JSON.parse(stdout);
    expect(outcome.page).toMatchObject({ page: 1, limit: 2, total: 3, totalPages: 2 });
    expect(outcome.page.items.map((p: { id: number }) => p.id)).toEqual([1, 2]);
    expect(outcome.one).toEqual(outcome.page.items[0]);
    expect(outcome.missing).toEqual({
      status: 404,
      error: { code: 'PROVIDER_NOT_FOUND', message: 'provider 999999 does not exist' },
    });
  });
});
