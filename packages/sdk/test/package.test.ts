/**
 * The built package as it would be published: its declarations stand alone (no private
 * package, no tRPC or zod types), a consumer outside this workspace type-checks against them,
 * its entries load with no dependency installed, and the browser bundle stays small and free
 * of Node built-ins and of the other chain's library.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measure } from '../scripts/bundle-size.mjs';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(packageDir, 'dist');
/** Where the workspace installed one of this package's dependencies. */
const installedAt = (name: string) => realpathSync(join(packageDir, 'node_modules', name));

/** Module specifiers a declaration file imports or re-exports. */
function importedModules(text: string): string[] {
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*)['"]([^'"]+)['"]/g)].map((match) => match[1] as string);
}

describe('declarations', () => {
  it('import only each other and the peer libraries', () => {
    const files = readdirSync(dist).filter((file) => file.endsWith('.d.ts'));
    expect(files).toEqual(expect.arrayContaining(['index.d.ts', 'evm.d.ts', 'solana.d.ts', 'wire.types.d.ts']));
    const external = new Set<string>();
    for (const file of files) {
      for (const module of importedModules(readFileSync(join(dist, file), 'utf8'))) {
        if (!module.startsWith('./')) external.add(module);
      }
    }
    expect([...external].sort()).toEqual(['@solana/web3.js', 'viem']);
  });
});

describe('a consumer outside the workspace', () => {
  let consumer: string;

  beforeAll(() => {
    consumer = mkdtempSync(join(tmpdir(), 'signal-sdk-consumer-'));
    const installed = join(consumer, 'node_modules', '@signal', 'sdk');
    mkdirSync(installed, { recursive: true });
    // A copy, as npm would install it: from here the workspace's packages cannot be found.
    cpSync(join(packageDir, 'package.json'), join(installed, 'package.json'));
    cpSync(dist, join(installed, 'dist'), { recursive: true });
    for (const peer of ['viem', '@solana/web3.js', 'bs58', '@types/node']) {
      mkdirSync(dirname(join(consumer, 'node_modules', peer)), { recursive: true });
      symlinkSync(installedAt(peer), join(consumer, 'node_modules', peer), 'dir');
    }
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  });
  afterAll(() => {
    rmSync(consumer, { recursive: true, force: true });
  });

  const source = `
import {
  type ActiveSession,
  createClient,
  SignalApiError,
  type SignOutResult,
  localStorageTokenStore,
  type Provider,
  type ProviderPage,
} from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import { type Checkpoint, checkInclusionAnswer, openCheckpoint } from '@signal/sdk/log';
import { createClient as createPublishingClient, ed25519StatementSigner, generateEd25519Key, type SignedStatement } from '@signal/sdk/publisher';
import { type VerifySignalReport, verifySignal } from '@signal/sdk/audit';
import { Keypair } from '@solana/web3.js';
import { privateKeyToAccount } from 'viem/accounts';

const account = privateKeyToAccount('0x${'11'.repeat(32)}');
const client = createClient({ baseUrl: 'https://api.example.com', signer: evmSigner(account) });
createClient({ baseUrl: 'https://api.example.com', signer: solanaSigner(Keypair.generate()), tokenStore: localStorageTokenStore() });

export async function names(): Promise<string[]> {
  const page: ProviderPage = await client.providers.list({ sortBy: 'name', order: 'asc' });
  const first: Provider | undefined = page.items[0];
  // @ts-expect-error ids are numbers
  await client.providers.get('1');
  // @ts-expect-error not a sort field
  await client.providers.list({ sortBy: 'nope' });
  try {
    await client.providers.follow(first?.id ?? 1);
  } catch (error) {
    if (error instanceof SignalApiError && error.code === 'PROVIDER_NOT_FOUND') return [];
    // @ts-expect-error not a code of the contract
    if (error instanceof SignalApiError && error.code === 'NOT_A_CODE') return [];
  }
  const sessions: ActiveSession[] = (await client.sessions.list({ limit: 5 })).items;
  const signedOut: SignOutResult = await client.signOut({ scope: 'others' });
  if (!signedOut.serverConfirmed && signedOut.error?.code === 'SESSION_REVOKED') return [];
  // @ts-expect-error session ids are strings
  await client.sessions.revoke(1);
  const kept: Checkpoint = openCheckpoint(await client.log.checkpoint(), await client.log.key());
  if (!checkInclusionAnswer(await client.log.inclusionProof(0, kept.size), kept)) return [];
  // @ts-expect-error sizes are numbers
  await client.log.consistencyProof('1', 2);
  const signals = await client.signals.list(1, { status: ['open', 'closed'], limit: 5 });
  const revealed: string | undefined = signals.items[0]?.content?.openPct;
  // @ts-expect-error not a status
  await client.signals.list(1, { status: ['pending'] });
  const stop = client.signals.live((event, id) => console.log(event.type, event.signal.status, id), { providerIds: [1] });
  stop();
  const publisher = createPublishingClient({ baseUrl: 'https://api.example.com' }).publisher(1, evmSigner(account));
  const opened = await publisher.open({ instrument: 'BTC-USD', side: 'long', entry: { type: 'market' }, stop: null, targets: ['99000'], sizePct: '2', expiresAt: null });
  const prepared: SignedStatement<'signal.close'> = await publisher.prepare.close(opened.signal.id, '50');
  const closedPct: string | undefined = (await publisher.send(prepared)).signal.content?.openPct;
  const bot = await generateEd25519Key();
  await publisher.delegateKey(bot, { expiresAt: new Date(Date.now() + 86_400_000) });
  // @ts-expect-error a close needs its share
  await publisher.close(opened.signal.id);
  createPublishingClient({ baseUrl: 'https://api.example.com' }).publisher(1, ed25519StatementSigner(bot.secretKey));
  const report: VerifySignalReport = await verifySignal(
    { id: 's', providerId: 1, status: 'open', publishedAt: '', revealAt: '', content: null, statements: [] },
    { logKey: 'k', url: 'http://localhost' },
  );
  if (!report.ok && report.failures[0]?.check === 'signature') return [];
  // @ts-expect-error not a check of the audit
  if (report.failures[0]?.check === 'not-a-check') return [];
  const stats = await client.providers.stats(1);
  const rate: number = stats.winRate;
  // @ts-expect-error description may be null
  const text: string = page.items[0]!.description;
  return [String(rate), text, String(revealed), String(closedPct), ...sessions.map((session) => session.id), ...page.items.map((provider) => provider.name.toUpperCase())];
}
`;

  const nodeNext = { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext };
  const bundler = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const browser = { lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'], types: [] };
  const node = { lib: ['lib.es2022.d.ts'], types: ['node'] };
  it.each([
    ['NodeNext resolution, browser globals', { ...nodeNext, ...browser }],
    ['Bundler resolution, browser globals', { ...bundler, ...browser }],
    ['NodeNext resolution, Node globals (no DOM)', { ...nodeNext, ...node }],
  ])('type-checks against the declarations: %s', (_name, settings) => {
    const file = join(consumer, 'consumer.ts');
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      ...settings,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      // The peers' own declarations are theirs to check; ours are checked, and an
      // unresolved import in them would surface as an unused @ts-expect-error above.
      skipLibCheck: true,
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);
    const resolved = program.getSourceFiles().map((sourceFile) => sourceFile.fileName);
    expect(resolved.some((name) => name.includes('/@signal/sdk/dist/wire.types.d.ts'))).toBe(true);
    // Neither the private packages nor tRPC are reachable from here, and nothing asked for them.
    expect(resolved.filter((name) => /\/node_modules\/(@signal\/(api|core|db)|@trpc)\//.test(name))).toEqual([]);
  });

  it('loads the core, EVM and log entries with nothing else installed, and Solana with bs58', () => {
    const script = `
      const sdk = await import('@signal/sdk');
      const evm = await import('@signal/sdk/evm');
      const solana = await import('@signal/sdk/solana');
      const log = await import('@signal/sdk/log');
      const publisher = await import('@signal/sdk/publisher');
      console.log([typeof sdk.createClient, typeof evm.evmSigner, typeof solana.solanaSigner, typeof log.openCheckpoint, typeof publisher.createPublisher].join(','));
    `;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: consumer });
    expect(out.toString().trim()).toBe('function,function,function,function,function');
  });
});

describe('browser bundle (esbuild, minified)', () => {
  let sizes: Awaited<ReturnType<typeof measure>>;
  beforeAll(async () => {
    sizes = await measure();
  });

  it('the core client: no Node built-ins, no viem, no Solana, no zod, under 7 KiB gzip', () => {
    const core = sizes['@signal/sdk']!;
    expect(
      core.eagerInputs.filter((input) => /viem|solana|tweetnacl|zod|bs58|^node:|\(disabled\)/.test(input)),
    ).toEqual([]);
    // Loaded on demand only: the subscriptions' reader (service.events.stream, client.signals.live),
    // about 1.2 KiB (0.8 KiB before signals.live). The publisher is not reachable from here at all.
    expect(core.lazyInputs.filter((input) => !/event-stream/.test(input))).toEqual([]);
    expect(core.lazyGzip).toBeLessThan(1.5 * 1024);
    // 7 KiB since Version 3 (the contract's new error codes and the user client's wallet methods);
    // 7.5 KiB since Version 4: client.log, the link message's account check, Version 4's codes.
    expect(core.gzip).toBeLessThan(7.5 * 1024);
  });

  it('the log checks: no Node built-ins, no viem, no Solana, under 20 KiB gzip (SHA-256 and Ed25519)', () => {
    const log = sizes['@signal/sdk/log']!;
    expect(log.eagerInputs.filter((input) => /viem|solana|tweetnacl|zod|^node:|\(disabled\)/.test(input))).toEqual([]);
    expect(log.gzip).toBeLessThan(20 * 1024);
  });

  it('the audit: no Node built-ins, no viem, no Solana, no zod, under 32 KiB gzip (secp256k1, keccak, Ed25519, SHA-256)', () => {
    const audit = sizes['@signal/sdk/audit']!;
    expect(audit.eagerInputs.filter((input) => /viem|solana|tweetnacl|zod|^node:|\(disabled\)/.test(input))).toEqual(
      [],
    );
    expect(audit.gzip).toBeLessThan(32 * 1024);
  });

  it('the EVM adapter adds no viem code; the Solana adapter loads tweetnacl only for Keypairs', () => {
    const evm = sizes['@signal/sdk/evm']!;
    expect(evm.eagerInputs.filter((input) => input.includes('node_modules'))).toEqual([]);
    expect(evm.gzip).toBeLessThan(1024);
    const solana = sizes['@signal/sdk/solana']!;
    expect(solana.eagerInputs.some((input) => input.includes('tweetnacl'))).toBe(false);
    expect(solana.lazyInputs.some((input) => input.includes('tweetnacl'))).toBe(true);
    expect(solana.eagerInputs.some((input) => /viem|@solana\/web3/.test(input))).toBe(false);
  });

  for (const [title, entry, kib] of [
    [
      'the publisher: the client and the statement builder, no zod or Node built-ins, tweetnacl on demand, under 10 KiB gzip',
      '@signal/sdk/publisher',
      10,
    ],
    [
      'the statement builder: canonical JSON without zod or Node built-ins, tweetnacl on demand, under 3 KiB gzip',
      '@signal/sdk/statements',
      3,
    ],
  ] as const) {
    it(title, () => {
      const bundle = sizes[entry]!;
      expect(bundle.eagerInputs.filter((input) => /viem|solana|tweetnacl|zod|^node:|\(disabled\)/.test(input))).toEqual(
        [],
      );
      expect(bundle.lazyInputs.some((input) => input.includes('tweetnacl'))).toBe(true);
      expect(bundle.gzip).toBeLessThan(kib * 1024);
    });
  }
});
