/**
 * The `signal-audit` bin (built, run as a user runs it) against the real API (the built
 * @signal/api, PostgreSQL), with signals really published through the statement routes by an
 * EVM wallet, a Solana wallet and a delegated key, through the tampering proxy: the honest server
 * passes, and what a lying server could show is caught, exit 1 with the check named. One server
 * and one set of signals for the file; the proxy switches modes per test. Where the lie is in
 * the log itself (a statement the server should have refused), the proxy serves the operator's
 * forged log: the real entries and the forged ones, signed with the log's own key (the operator
 * holds it: LOG_PRIVATE_KEY is the test's).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeEntryBundle, encodeEntryBundle, noteSigner, signNote } from '@signal/core/log';
import { readLog } from '@signal/sdk/audit';
import {
  closeStatement,
  delegateKeyStatement,
  openStatement,
  revokeKeyStatement,
  type StatementBody,
  signStatement,
  updateStatement,
} from '@signal/sdk/statements';
import { type LogFixture, startLogFixture } from '@signal/test-support';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useApi } from './support/api.js';
import { delegatedKey, evmWallet, ProviderRecord, solanaWallet, type TestSigner } from './support/record.js';
import {
  honest,
  rewriteBytes,
  rewriteJson,
  runAudit,
  startTamperProxy,
  type Tamper,
  type TamperProxy,
} from './support/tamper-proxy.js';

const ADMIN_KEY = `admin-${randomBytes(24).toString('base64url')}`;
const logKeys = generateKeyPairSync('ed25519');
const LOG_PRIVATE_KEY = logKeys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const seed = Buffer.from(logKeys.privateKey.export({ format: 'jwk' }).d!, 'base64url');

const api = useApi('postgres', { env: { ADMIN_KEY, LOG_PRIVATE_KEY } });

let proxy: TamperProxy;
let forged: LogFixture | undefined;
let verifierKey: string;
let origin: string;
let dir: string;
let oldCheckpoint: string;
const providers: Record<string, number> = {};
/** The operator's forged records, by provider: their signals are added to the real lists. */
const forgedSignals = new Map<number, unknown[]>();

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

async function newProvider(revealDelaySeconds: number, publishers: TestSigner[]): Promise<number> {
  const { id } = await call('POST', '/providers', {
    name: `Audit ${randomBytes(4).toString('hex')}`,
    revealDelaySeconds,
  });
  for (const wallet of publishers) await call('POST', `/providers/${id}/publishers`, { wallet: wallet.id });
  return id;
}

const statementSigner = (signer: TestSigner) => ({ signerId: async () => signer.id, sign: signer.sign });
const post = async (path: string, body: StatementBody) => call('POST', path, body);

async function open(provider: number, by: TestSigner): Promise<string> {
  const built = openStatement(
    { log: origin, provider },
    {
      instrument: 'ETH-USD',
      side: 'short',
      entry: { type: 'limit', price: '3100.5' },
      stop: '3300',
      targets: ['2800'],
      sizePct: '3',
      expiresAt: null,
    },
  );
  await post(`/providers/${provider}/signals`, await signStatement(built, statementSigner(by)));
  return built.id!;
}

async function checkpointSize(): Promise<number> {
  const text = await (await fetch(`${api.url}/log/checkpoint`)).text();
  return Number(text.split('\n')[1]);
}

/** Waits until the signed checkpoint holds every accepted entry (signed within 1 s of acceptance). */
async function settled(): Promise<void> {
  const wanted = (await readLog({ url: api.url, logKey: verifierKey })).checkpoint!.size;
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const size = await checkpointSize();
    if (size >= wanted && size === (await checkpointSize())) return;
  }
}

beforeAll(async () => {
  verifierKey = (await (await fetch(`${api.url}/log/key`)).text()).trim();
  origin = verifierKey.split('+')[0]!;
  const [evm, sol, stranger, removed] = [evmWallet(), solanaWallet(), evmWallet(), evmWallet()];
  const [bot, revoked, short] = await Promise.all([delegatedKey(), delegatedKey(), delegatedKey()]);

  // The honest record: every signer kind, an open, an update, a partial close; a second provider
  // whose statements are not due for a day.
  providers.honest = await newProvider(0, [evm, sol]);
  const p = providers.honest;
  const expires = new Date(Date.now() + 30 * 86_400_000);
  await post(
    `/providers/${p}/publisher-keys`,
    await signStatement(delegateKeyStatement({ log: origin, provider: p }, bot.id, expires), statementSigner(evm)),
  );
  const first = await open(p, evm);
  await post(
    `/providers/${p}/signals/${first}/updates`,
    await signStatement(updateStatement({ log: origin, provider: p }, first, { stop: '3250' }), statementSigner(sol)),
  );
  await open(p, bot);
  await settled();
  oldCheckpoint = await (await fetch(`${api.url}/log/checkpoint`)).text();
  await post(
    `/providers/${p}/signals/${first}/updates`,
    await signStatement(closeStatement({ log: origin, provider: p }, first, '50'), statementSigner(bot)),
  );
  providers.later = await newProvider(86_400, [evm]);
  await open(providers.later, evm);

  // What the operator will forge statements for: real publishers, real keys revoked and expired.
  providers.stranger = await newProvider(0, [evm]);
  providers.revoked = await newProvider(0, [evm]);
  await post(
    `/providers/${providers.revoked}/publisher-keys`,
    await signStatement(
      delegateKeyStatement({ log: origin, provider: providers.revoked }, revoked.id, expires),
      statementSigner(evm),
    ),
  );
  await post(
    `/providers/${providers.revoked}/publisher-keys/${encodeURIComponent(revoked.id)}/revoke`,
    await signStatement(
      revokeKeyStatement({ log: origin, provider: providers.revoked }, revoked.id),
      statementSigner(evm),
    ),
  );
  providers.expired = await newProvider(0, [evm]);
  await post(
    `/providers/${providers.expired}/publisher-keys`,
    await signStatement(
      delegateKeyStatement({ log: origin, provider: providers.expired }, short.id, new Date(Date.now() + 1_500)),
      statementSigner(evm),
    ),
  );
  providers.removed = await newProvider(0, [removed]);
  await open(providers.removed, removed);
  await call('DELETE', `/providers/${providers.removed}/publishers/${removed.id}`);
  await settled();

  // The operator's forged log: the real entries, then statements it should have refused.
  const real = await readLog({ url: api.url, logKey: verifierKey });
  expect(real.failures).toEqual([]);
  const entries = [...real.entries];
  const lie = async (provider: number, by: TestSigner) => {
    const record = new ProviderRecord(entries, provider, Date.now() + 2_000, 0, origin);
    await record.open(by);
    forgedSignals.set(provider, record.list(new Date(record.clock + 1)));
  };
  await lie(providers.stranger, stranger);
  await lie(providers.revoked, revoked);
  await lie(providers.expired, short);
  await lie(providers.removed, removed);
  forged = await startLogFixture({ entries, seed, origin });

  proxy = await startTamperProxy({ upstream: api.url });
  dir = mkdtempSync(join(tmpdir(), 'signal-audit-api-'));
}, 120_000);
afterEach(() => {
  proxy.tamper = honest;
});
afterAll(async () => {
  if (process.env.AUDIT_MATRIX_OUT) writeFileSync(process.env.AUDIT_MATRIX_OUT, JSON.stringify(matrix, null, 2));
  await proxy?.close();
  await forged?.close();
  rmSync(dir, { recursive: true, force: true });
});

const audit = (provider: number, ...more: string[]) =>
  runAudit(['--url', proxy.url, '--provider', String(provider), '--key', verifierKey, ...more]);

/** Each case's exit code and first failure, written to AUDIT_MATRIX_OUT when set (for the closing note). */
const matrix: { test: string; code: number; first: string }[] = [];

async function caught(mode: Tamper, provider = providers.honest!, ...more: string[]): Promise<string[]> {
  proxy.tamper = mode;
  const { code, stdout } = await audit(provider, '--json', ...more);
  expect(code, stdout.slice(0, 2000)).toBe(1);
  const report = JSON.parse(stdout);
  const first = report.failures[0];
  matrix.push({ test: expect.getState().currentTestName ?? '', code, first: `[${first?.check}] ${first?.message}` });
  expect(report.ok).toBe(false);
  return [...new Set((report.failures as { check: string }[]).map((f) => f.check))];
}

const bundle = (edit: (entries: Uint8Array[]) => Uint8Array[]) =>
  rewriteBytes(/^\/log\/tile\/entries\//, (body) => encodeEntryBundle(edit(decodeEntryBundle(body))));
const list = () => new RegExp(`^/providers/${providers.honest}/signals`);

/** The operator's lie: /log/* from its forged log, and its forged signals added to the real list. */
const operatorLies: Tamper = async (path, answer) => {
  if (path.startsWith('/log/')) {
    const res = await fetch(`${forged!.url}${path}`);
    return { status: res.status, contentType: answer.contentType, body: new Uint8Array(await res.arrayBuffer()) };
  }
  const match = /^\/providers\/(\d+)\/signals/.exec(path);
  const extra = match ? forgedSignals.get(Number(match[1])) : undefined;
  if (!extra || answer.status !== 200) return answer;
  const body = JSON.parse(new TextDecoder().decode(answer.body));
  body.items = [...extra, ...body.items];
  return { ...answer, body: new TextEncoder().encode(JSON.stringify(body)) };
};

describe('signal-audit against the API', () => {
  it('passes the honest server: a line per signal, the total, exit 0', async () => {
    const { code, stdout } = await audit(providers.honest!);
    expect(stdout).toContain('result: everything holds');
    expect(code).toBe(0);
    expect(stdout.match(/^ok {3}/gm)).toHaveLength(2);
    expect(stdout).toMatch(/total: 2 signals, 4 statements \(4 verified, 0 committed/);
  });

  it('counts statements not due yet as committed, and keeps --state across runs', async () => {
    const { code, stdout } = await audit(providers.later!, '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout).counts).toMatchObject({ signals: 1, verified: 0, committed: 1 });
    const state = join(dir, 'state');
    expect((await audit(providers.honest!, '--state', state)).code).toBe(0);
    expect((await audit(providers.honest!, '--state', state)).code).toBe(0);
    expect(readFileSync(state, 'utf8')).toContain(`${origin}\n`);
  });

  it('passes the operator’s forged log for the honest provider (the lies are elsewhere)', async () => {
    proxy.tamper = operatorLies;
    expect((await audit(providers.honest!)).code).toBe(0);
  });

  it('catches a revealed statement altered', async () => {
    const mode = rewriteJson(list(), (body) => {
      const s = body.items[0].statements[0];
      s.statement = s.statement.replace('"ETH-USD"', '"BTC-USD"');
    });
    expect(await caught(mode)).toEqual(['commitment']);
  });

  it('catches a revealed signal’s content or status that its statements do not make', async () => {
    const side = rewriteJson(list(), (body) => {
      const { content } = body.items[0];
      content.side = content.side === 'long' ? 'short' : 'long';
    });
    expect(await caught(side)).toEqual(['signal-content']);
    const status = rewriteJson(list(), (body) => {
      body.items[0].status = body.items[0].status === 'open' ? 'closed' : 'open';
    });
    expect(await caught(status)).toEqual(['signal-content']);
    const openPct = rewriteJson(list(), (body) => {
      body.items.at(-1).content.openPct = '100';
    });
    expect(await caught(openPct)).toEqual(['signal-content']);
  });

  it('catches a signal dropped from the list, and a statement dropped from a signal', async () => {
    expect(await caught(rewriteJson(list(), (body) => void body.items.shift()))).toEqual(['signal-hidden']);
    expect(await caught(rewriteJson(list(), (body) => void body.items.at(-1).statements.pop()))).toEqual([
      'statement-missing',
    ]);
  });

  it('catches an entry dropped, changed or reordered in an entry bundle', async () => {
    expect(await caught(bundle((e) => e.slice(1)))).toEqual(['entries-unavailable']);
    expect(await caught(bundle((e) => [...e.slice(1), e[0]!]))).toEqual(['tree-root']);
    expect(
      await caught(bundle((e) => e.map((x, i) => (i === 0 ? x.map((b, j) => (j === 2 ? b ^ 1 : b)) : x)))),
    ).toEqual(['tree-root']);
    expect(await caught(bundle((e) => [e[1]!, e[0]!, ...e.slice(2)]))).toEqual(['tree-root']);
  });

  it('catches a tile hash changed', async () => {
    const mode = rewriteBytes(/^\/log\/tile\/0\//, (body) => body.map((b, i) => (i === 7 ? b ^ 1 : b)));
    expect(await caught(mode)).toEqual(['tile-mismatch']);
  });

  it('catches a checkpoint with a bad signature, by another key, or smaller (an old one replayed)', async () => {
    const badSignature = rewriteBytes(/^\/log\/checkpoint/, (body) => {
      const text = new TextDecoder().decode(body);
      const at = text.lastIndexOf(' ') + 12;
      return new TextEncoder().encode(text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1));
    });
    expect(await caught(badSignature)).toEqual(['checkpoint-signature']);
    const impostor = noteSigner(origin, randomBytes(32));
    const anotherKey = rewriteBytes(/^\/log\/checkpoint/, (body) => {
      const text = new TextDecoder().decode(body);
      return new TextEncoder().encode(signNote(text.slice(0, text.indexOf('\n\n') + 1), impostor));
    });
    expect(await caught(anotherKey)).toEqual(['checkpoint-signature']);
    const smaller: Tamper = (path, answer) =>
      path === '/log/checkpoint' ? { ...answer, body: new TextEncoder().encode(oldCheckpoint) } : answer;
    expect(await caught(smaller)).toEqual(expect.arrayContaining(['statement-not-in-log']));
    const state = join(dir, 'shrink');
    writeFileSync(state, await (await fetch(`${api.url}/log/checkpoint`)).text());
    expect(await caught(smaller, providers.honest, '--state', state)).toEqual(expect.arrayContaining(['log-shrank']));
  });

  it('catches a fork: the --state checkpoint is inconsistent with today’s', async () => {
    // A tree of the same size with the first two entries swapped, signed with the log's key.
    const real = await readLog({ url: api.url, logKey: verifierKey });
    const other = await startLogFixture({
      entries: [real.entries[1]!, real.entries[0]!, ...real.entries.slice(2)],
      seed,
      origin,
    });
    const state = join(dir, 'fork');
    writeFileSync(state, await (await fetch(`${other.url}/log/checkpoint`)).text());
    await other.close();
    expect(await caught(honest, providers.honest, '--state', state)).toEqual(['log-forked']);
  });

  it('catches statements by a non-publisher, a revoked key, an expired key, a wallet removed before it', async () => {
    for (const name of ['stranger', 'revoked', 'expired', 'removed']) {
      expect(await caught(operatorLies, providers[name]), name).toEqual(['signer-not-allowed']);
    }
  });

  it('catches an unrevealed signal past its revealAt, and a receivedAt changed', async () => {
    const withheld = rewriteJson(list(), (body) => {
      body.items[0].content = null;
      for (const s of body.items[0].statements) Object.assign(s, { statement: null, signer: null, signature: null });
    });
    expect(await caught(withheld)).toEqual(['unrevealed']);
    const moved = rewriteJson(list(), (body) => {
      const s = body.items[0].statements[0];
      s.receivedAt = new Date(Date.parse(s.receivedAt) + 1).toISOString();
    });
    expect(await caught(moved)).toEqual(expect.arrayContaining(['statement-mismatch']));
  });
});
