/**
 * `signal-audit --url <base URL> --provider <id> --key <verifier key> [--state <file>] [--json]
 * [--rpc <EVM node URL>]`: the audit of one provider's record (CONTRACT.md, "The log", last
 * paragraph), over HTTP only, with @signal/core/audit. Prints a line per signal, a total and
 * the failures (or the report as JSON with --json); a progress line on stderr while a long
 * audit runs. Exits 0 when everything holds, 1 on any failure (a usage error included).
 *
 * --state keeps the last checkpoint (the signed note, as served) between runs: today's must be
 * consistent with it, and is kept in its place once the log itself checks. --rpc checks the
 * signatures of EVM contract wallets (EIP-1271, EIP-6492) on that node; without it they fail as
 * `signature-unchecked`. See docs/log.md, "Check it yourself".
 */
import * as builtinCrypto from 'node:crypto';
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  AUDIT_CHECKS,
  type AuditCrypto,
  type AuditProgress,
  type AuditReport,
  auditProvider,
  type EvmChainCheck,
} from '@signal/core/audit';
import { parseVerifierKey } from '@signal/core/log';

const USAGE =
  'usage: signal-audit --url <base URL> --provider <id> --key <verifier key> [--state <file>] [--json] [--rpc <EVM node URL>]';

function fail(message: string): never {
  process.stderr.write(`signal-audit: ${message}\n${USAGE}\n`);
  process.exit(1);
}

function readOptions() {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        url: { type: 'string' },
        provider: { type: 'string' },
        key: { type: 'string' },
        state: { type: 'string' },
        json: { type: 'boolean' },
        rpc: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const url = values.url as string | undefined;
  const provider = values.provider as string | undefined;
  const key = values.key as string | undefined;
  if (!url || !/^https?:\/\//.test(url)) fail("--url must be the service's http(s) base URL");
  if (!provider || !/^[1-9][0-9]{0,15}$/.test(provider)) fail('--provider must be a provider id');
  if (!key) fail("--key must be the log's verifier key (<origin>+<hex hash>+<base64 key>)");
  try {
    parseVerifierKey(key);
  } catch (error) {
    fail(`--key is not a verifier key: ${(error as Error).message}`);
  }
  return {
    url: url.replace(/\/+$/, ''),
    provider: Number(provider),
    key,
    state: values.state as string | undefined,
    json: values.json === true,
    rpc: values.rpc as string | undefined,
  };
}

async function chainCheck(rpc: string): Promise<EvmChainCheck> {
  let viem: typeof import('viem');
  try {
    viem = await import('viem');
  } catch {
    fail('--rpc needs the viem package installed next to @signal/sdk');
  }
  const client = viem.createPublicClient({ transport: viem.http(rpc) });
  return {
    verifyMessage: (address, message, signature) =>
      client.verifyMessage({ address: address as `0x${string}`, message, signature: signature as `0x${string}` }),
  };
}

/**
 * node:crypto's SHA-256 and Ed25519 (OpenSSL): the audit's hashing and key signatures, several
 * times faster than @noble's. The log's hashes go through `crypto.hash` (Node 20.12+; a Hash
 * object each before) as a latin1 ('binary') string copied into the tree's row: no Buffer per hash, which
 * costs more than the hash itself for 2 million of them.
 */
function nodeCrypto(): AuditCrypto {
  const keys = new Map<string, KeyObject>();
  // A namespace read, not a named import: on a Node 20 before 20.12 the name is missing.
  const oneShot = (builtinCrypto as { hash?: typeof builtinCrypto.hash }).hash;
  return {
    sha256: (data) => (oneShot ? oneShot('sha256', data, 'buffer') : createHash('sha256').update(data).digest()),
    sha256Into(data, out, at) {
      const digest = oneShot ? oneShot('sha256', data, 'binary') : createHash('sha256').update(data).digest('binary');
      for (let i = 0; i < 32; i++) out[at + i] = digest.charCodeAt(i);
    },
    ed25519Verify(publicKey, message, signature) {
      const x = Buffer.from(publicKey).toString('base64url');
      let key = keys.get(x);
      if (!key) {
        key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
        if (keys.size > 10_000) keys.clear();
        keys.set(x, key);
      }
      return verify(null, message, key, signature);
    },
  };
}

/** A progress line on stderr, once the audit has run 2 s, at most one a second. */
function progressReporter() {
  const started = Date.now();
  let last = 0;
  const tty = process.stderr.isTTY === true;
  let shown = false;
  return {
    update(progress: AuditProgress) {
      const now = Date.now();
      if (now - started < 2_000 || now - last < 1_000) return;
      last = now;
      shown = true;
      const what =
        progress.phase === 'entries' || progress.phase === 'tiles' ? progress.phase : 'statements of signals';
      const counts =
        progress.phase === 'entries' || progress.phase === 'tiles'
          ? `${progress.done.toLocaleString('en')} / ${progress.total.toLocaleString('en')}`
          : progress.done.toLocaleString('en');
      const line = `signal-audit: reading and checking ${what}: ${counts} (${Math.round((now - started) / 1000)} s)`;
      process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
    },
    done() {
      if (shown && tty) process.stderr.write('\r\x1b[K');
    },
  };
}

function plural(count: number, word: string): string {
  return `${count.toLocaleString('en')} ${word}${count === 1 ? '' : 's'}`;
}

function human(report: AuditReport, state: string | undefined): string {
  const lines: string[] = [];
  const cp = report.checkpoint;
  lines.push(`signal-audit: provider ${report.provider} at ${report.url}`);
  lines.push(
    cp
      ? `checkpoint: log ${cp.origin}, ${plural(cp.size, 'entry').replace('entrys', 'entries')}, root ${cp.rootHash}`
      : 'checkpoint: none that opens with the key',
  );
  if (state) {
    lines.push(
      report.previous
        ? `state: the checkpoint of ${plural(report.previous.size, 'entry').replace('entrys', 'entries')} kept in ${state} was checked against today's`
        : `state: ${state} held no checkpoint; today's is kept there`,
    );
  }
  for (const signal of report.signals) {
    const verified = signal.statements.filter((s) => s.verdict === 'verified').length;
    const committed = signal.statements.filter((s) => s.verdict === 'committed').length;
    const failed = signal.statements.filter((s) => s.verdict === 'failed').length;
    const parts = [`${verified} verified`];
    if (committed) parts.push(`${committed} committed, not yet revealed`);
    if (failed) parts.push(`${failed} failed`);
    lines.push(
      `${signal.ok ? 'ok  ' : 'FAIL'} ${signal.signal} ${signal.status ?? ''} ${plural(signal.statements.length, 'statement')}: ${parts.join(', ')}`,
    );
  }
  const c = report.counts;
  lines.push(
    `total: ${plural(c.signals, 'signal')}, ${plural(c.statements, 'statement')} (${c.verified.toLocaleString('en')} verified, ` +
      `${c.committed.toLocaleString('en')} committed, not yet revealed), ${plural(c.providerEntries, 'log entry').replace('entrys', 'entries')} of the provider ` +
      `(${plural(c.publishers, 'publisher')}, ${plural(c.keys, 'key')}); ${plural(report.failures.length, 'failure')}`,
  );
  if (report.failures.length > 0) {
    lines.push('failures:');
    for (const f of report.failures) {
      const where = [
        f.signal !== undefined ? `signal ${f.signal}` : '',
        f.logIndex !== undefined ? `entry ${f.logIndex}` : '',
      ]
        .filter(Boolean)
        .join(', ');
      lines.push(`  [${f.check}] ${where ? `${where}: ` : ''}${f.message} (${AUDIT_CHECKS[f.check]})`);
    }
  }
  lines.push(report.ok ? 'result: everything holds' : 'result: FAILED');
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const options = readOptions();
  let previous: string | null = null;
  if (options.state) {
    // Before the audit, not after it: a --state that cannot be read or kept is said at once.
    try {
      if (existsSync(options.state)) previous = readFileSync(options.state, 'utf8');
      // Kept by a rename beside it: the folder must take a new file, the state there or not.
      accessSync(dirname(resolve(options.state)), constants.W_OK);
    } catch (error) {
      fail(`--state ${options.state} cannot be read or written: ${(error as Error).message}`);
    }
    if (previous?.trim() === '') previous = null;
  }
  const progress = progressReporter();
  const report = await auditProvider({
    url: options.url,
    provider: options.provider,
    logKey: options.key,
    previous,
    evmChain: options.rpc ? await chainCheck(options.rpc) : undefined,
    crypto: nodeCrypto(),
    onProgress: (p) => progress.update(p),
  });
  progress.done();
  let kept = true;
  if (options.state && report.keep) {
    const temporary = `${options.state}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, report.keep, { mode: 0o644 });
      renameSync(temporary, options.state);
    } catch (error) {
      kept = false;
      process.stderr.write(
        `signal-audit: today's checkpoint was not kept in ${options.state}: ${(error as Error).message}\n`,
      );
    }
  }
  const { keep: _keep, ...printed } = report;
  process.stdout.write(options.json ? `${JSON.stringify(printed, null, 2)}\n` : human(report, options.state));
  process.exitCode = report.ok && kept ? 0 : 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`signal-audit: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
