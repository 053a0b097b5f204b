/**
 * The audit's figures (issue 40): `signal-audit` (the SDK's built bin, as a user runs it, in
 * its own process) on one provider with STATEMENTS signal statements in a log of LOG_SIZE
 * entries, served from memory by the log fixture (@signal/core/log's tiles) with the provider's
 * list beside it. Half the statements are signed by the provider's EVM wallet (EIP-191), half
 * by its delegated Ed25519 key. Prints the wall time and the bin's own split (entries, tiles,
 * hashing, parsing, replay, the list, the signature and right checks). Target: ≤ 30 s.
 *
 *   pnpm --filter @signal/bench build && node apps/bench/dist/audit-run.js [--size 1000000] [--statements 10000]
 *
 * Needs `pnpm build` (the SDK's built bin).
 */
import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startLogFixture } from '@signal/test-support';
import bs58 from 'bs58';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const { values } = parseArgs({ options: { size: { type: 'string' }, statements: { type: 'string' } } });
const LOG_SIZE = Number(values.size ?? 1_000_000);
const STATEMENTS = Number(values.statements ?? 10_000);
const ORIGIN = 'localhost/signals';
const PROVIDER = 1;
const bin = fileURLToPath(new URL('../../../packages/sdk/dist/bin/signal-audit.js', import.meta.url));

const json = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));
const bytes = (text: string) => new TextEncoder().encode(text);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function main() {
  const t0 = performance.now();
  const wallet = privateKeyToAccount(generatePrivateKey());
  const keys = generateKeyPairSync('ed25519');
  const raw = keys.publicKey.export({ format: 'jwk' }).x!;
  const keyName = `ed25519:${bs58.encode(Buffer.from(raw, 'base64url'))}`;
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const tick = () => {
    clock += 10;
    return new Date(clock).toISOString();
  };
  const entries: Uint8Array[] = [];
  const items: { id: string; statements: Record<string, unknown>[]; publishedAt: string }[] = [];
  const others = LOG_SIZE - STATEMENTS - 2;
  const every = Math.max(1, Math.floor(others / STATEMENTS));
  let other = 0;
  const filler = (count: number) => {
    for (let i = 0; i < count && other < others; i++, other++) {
      const wallet = `0x${other.toString(16).padStart(40, '0')}`;
      entries.push(bytes(json({ at: tick(), provider: 2 + (other % 1000), type: 'publisher.added', v: 1, wallet })));
    }
  };
  entries.push(bytes(json({ at: tick(), provider: PROVIDER, type: 'publisher.added', v: 1, wallet: wallet.address })));
  const issuedAt = new Date(clock).toISOString();
  const delegate = json({
    expiresAt: new Date(clock + 300 * 86_400_000).toISOString(),
    issuedAt,
    key: keyName,
    log: ORIGIN,
    provider: PROVIDER,
    type: 'key.delegate',
    v: 1,
  });
  entries.push(
    bytes(
      json({
        provider: PROVIDER,
        receivedAt: tick(),
        signature: await wallet.signMessage({ message: delegate }),
        signer: wallet.address,
        statement: delegate,
        type: 'key.delegate',
        v: 1,
      }),
    ),
  );
  const signWith = async (i: number, statement: string) =>
    i % 2 === 0
      ? { signer: wallet.address, signature: await wallet.signMessage({ message: statement }) }
      : { signer: keyName, signature: bs58.encode(sign(null, Buffer.from(statement), keys.privateKey)) };
  for (let i = 0; i < STATEMENTS; i++) {
    filler(every);
    const signal = `s${Math.floor(i / 2)}`;
    const salt = randomBytes(16).toString('base64url');
    const statement =
      i % 2 === 0
        ? json({
            entry: { type: 'market' },
            expiresAt: null,
            id: signal,
            instrument: 'BTC-USD',
            issuedAt: new Date(clock).toISOString(),
            log: ORIGIN,
            provider: PROVIDER,
            salt,
            side: 'long',
            sizePct: '5',
            stop: null,
            targets: [],
            type: 'signal.open',
            v: 1,
          })
        : json({
            closePct: '100',
            id: `c${i}`,
            issuedAt: new Date(clock).toISOString(),
            log: ORIGIN,
            provider: PROVIDER,
            salt,
            signal,
            type: 'signal.close',
            v: 1,
          });
    const type = i % 2 === 0 ? 'signal.open' : 'signal.close';
    const receivedAt = tick();
    const commitment = sha256(statement);
    entries.push(bytes(json({ commitment, provider: PROVIDER, receivedAt, signal, type, v: 1 })));
    const view = {
      logIndex: entries.length - 1,
      type,
      receivedAt,
      commitment,
      statement,
      ...(await signWith(i, statement)),
    };
    if (i % 2 === 0) items.push({ id: signal, publishedAt: receivedAt, statements: [view] });
    else items.at(-1)!.statements.push(view);
  }
  filler(others);
  const t1 = performance.now();
  const fixture = await startLogFixture({ entries, seed: randomBytes(32), batch: 65_536 });
  const t2 = performance.now();
  const signals = items.reverse().map((item) => ({
    id: item.id,
    providerId: PROVIDER,
    status: 'closed',
    publishedAt: item.publishedAt,
    revealAt: item.publishedAt,
    content: { instrument: 'BTC-USD' },
    statements: item.statements,
  }));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://bench');
    if (url.pathname === `/providers/${PROVIDER}/signals`) {
      const from = Number(url.searchParams.get('cursor') ?? 0);
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const page = signals.slice(from, from + limit);
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({ items: page, nextCursor: from + limit < signals.length ? String(from + limit) : null }),
      );
    }
    const answer = await fetch(`${fixture.url}${req.url}`);
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    res.end(new Uint8Array(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  console.log(
    `log of ${entries.length.toLocaleString('en')} entries, ${STATEMENTS.toLocaleString('en')} statements of provider ${PROVIDER}: generated in ${((t1 - t0) / 1000).toFixed(1)} s, tiles in ${((t2 - t1) / 1000).toFixed(1)} s`,
  );
  const started = performance.now();
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
    execFile(
      process.execPath,
      [bin, '--url', url, '--provider', String(PROVIDER), '--key', fixture.verifierKey, '--json'],
      { maxBuffer: 1 << 30 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    ),
  );
  const wall = performance.now() - started;
  server.close();
  await fixture.close();
  const report = JSON.parse(result.stdout);
  const timings = report.timings as Record<string, number>;
  if (result.code !== 0)
    console.log(`signal-audit exited ${result.code}:`, report.failures?.slice(0, 5) ?? result.stderr);
  console.log(
    `signal-audit: exit ${result.code} in ${(wall / 1000).toFixed(1)} s (target ≤ 30 s); ${report.counts.verified.toLocaleString('en')} statements verified`,
  );
  for (const [step, ms] of Object.entries(timings)) console.log(`  ${step.padEnd(14)} ${(ms / 1000).toFixed(2)} s`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
