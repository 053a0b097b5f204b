/**
 * Statement verification per second for each signer kind (issue 39): `statement-evm` (an EVM
 * wallet's personal_sign), `statement-solana` (a Solana wallet) and `statement-ed25519` (a
 * delegated key). The service column is the whole pure check a statement route runs before the
 * database, as `@signal/core/statements` does it: the body read, the 4 KiB bound, JSON, the
 * RFC 8785 canonical check, the strict schema (exact decimals, instants, ids, salt, note), `log`,
 * `provider`, `issuedAt` against the clock, the signer's format, then the signature over the
 * statement's UTF-8 bytes (`verifyStatementSignatureLocally`). The baseline column is the raw
 * native verifier the sign-in uses, alone, on the same bytes (packages/core/src/verify.ts:
 * libsecp256k1's recovery on the EIP-191 hash, or node:crypto's Ed25519 with a cached key).
 * Target: ≥ 0.9× the baseline, judged on CPU time per statement (ops per CPU-second of the
 * thread running them, see `threadCpuUs`); the machine is shared, so wall-clock ops/s are reported too but not judged. The note adds a third
 * side: the same bytes on the bare native calls with no core code at all (libsecp256k1 + keccak,
 * or crypto.verify with bs58), as the `raw-evm` and `raw-solana` rows measure core's verifiers.
 *
 * In-process loops on one core, 1,000 `signal.open` statements (the largest type: an entry
 * price, a stop, two targets and a note), each with its own `issuedAt`, by 200 signers over 50
 * providers; the sides take turns in rotating order, each figure the median of its rounds.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { canonicalJson, checkStatementRequest, verifyStatementSignatureLocally } from '@signal/core/statements';
import { verifyEd25519Signature, verifyEvmSignature } from '@signal/core/verify';
import { keccak256 } from 'viem';
import { callFor, median } from './load.js';
import { type Figures, type Row, row, type Verdict } from './report.js';
import { type BenchWallet, bareVerifySolana, evmSignatureRecovers, evmWallet, solanaWallet } from './wallets.js';

export const STATEMENT_KEYS = ['statement-evm', 'statement-solana', 'statement-ed25519'] as const;
export type StatementKey = (typeof STATEMENT_KEYS)[number];
export const STATEMENT_TARGET_RATIO = 0.9;
const ORIGIN = 'bench.example/signals';
const MAX_SKEW_SECONDS = 300;

interface Input {
  body: { statement: string; signer: string; signature: string };
  providerId: number;
  /** The raw verifier's key: the wallet's address, or the delegated key's base58. */
  address: string;
}

/** EIP-191 personal_sign straight on libsecp256k1 and keccak, the hash over the bytes themselves. */
function rawVerifyEvm(address: string, message: string, signature: string): boolean {
  const body = Buffer.from(message, 'utf8');
  const prefixed = Buffer.concat([Buffer.from(`\x19Ethereum Signed Message:\n${body.length}`, 'latin1'), body]);
  return evmSignatureRecovers(address, keccak256(prefixed, 'bytes'), signature);
}

function inputs(key: StatementKey): Input[] {
  const signers: BenchWallet[] = Array.from({ length: 200 }, key === 'statement-evm' ? evmWallet : solanaWallet);
  const now = Date.now();
  return Array.from({ length: 1_000 }, (_, i) => {
    // Each its own instant, as a publisher's statements have (core keeps a few readings only).
    const issuedAt = new Date(now - i * 7).toISOString();
    const signer = signers[i % signers.length] as BenchWallet;
    const providerId = 1 + (i % 50);
    const statement = canonicalJson({
      v: 1,
      log: ORIGIN,
      type: 'signal.open',
      provider: providerId,
      issuedAt,
      id: `sig_${i}_${randomBytes(6).toString('base64url')}`,
      salt: randomBytes(16).toString('base64url'),
      instrument: 'BTC-USD',
      side: i % 2 === 0 ? 'long' : 'short',
      entry: { type: 'limit', price: `${97_000 + i}.5` },
      stop: '95000',
      targets: ['99000', '101000.25'],
      sizePct: '2.5',
      expiresAt: null,
      note: 'Breakout above the range; stop under the last swing low',
    });
    const id = key === 'statement-ed25519' ? `ed25519:${signer.address}` : signer.address;
    return { body: { statement, signer: id, signature: signer.sign(statement) }, providerId, address: signer.address };
  });
}

/** What a statement route checks before the database, and the signature: true when all pass. */
function fullCheck(input: Input): boolean {
  const read = checkStatementRequest(input.body, {
    origin: ORIGIN,
    providerId: input.providerId,
    types: ['signal.open'],
    nowMs: Date.now(),
    maxSkewSeconds: MAX_SKEW_SECONDS,
  });
  return verifyStatementSignatureLocally(read.parsedSigner, read.text, read.signature);
}

interface Run {
  /** Calls per wall-clock second. */
  rps: number;
  /** CPU time (user + system) per call, µs. */
  cpuUs: number;
}

/**
 * CPU time of this thread so far, µs: the first field of /proc/thread-self/schedstat (ns on the
 * CPU). The main thread's alone: what V8's compiler and GC helper threads do meanwhile (tiering
 * up a path that just started, marking) would otherwise land on whichever side runs then. Off
 * Linux, the process's CPU time.
 */
export function threadCpuUs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1000;
  } catch {
    const { user, system } = process.cpuUsage();
    return user + system;
  }
}

function run(items: Input[], call: (input: Input) => boolean, seconds: number): Run {
  const cpuBefore = threadCpuUs();
  const { calls, ms } = callFor(items, call, seconds, 'a valid statement failed its check');
  return { rps: calls / (ms / 1000), cpuUs: (threadCpuUs() - cpuBefore) / calls };
}

export interface StatementRun {
  wanted: (key: string) => boolean;
  seconds: number;
  rounds: number;
  log: (line: string) => void;
}

export function statementRows(options: StatementRun): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const key of STATEMENT_KEYS) {
    if (!options.wanted(key)) continue;
    const items = inputs(key);
    const evm = key === 'statement-evm';
    const sides: ((input: Input) => boolean)[] = [
      fullCheck,
      evm
        ? (input) => verifyEvmSignature(input.address, input.body.statement, input.body.signature)
        : (input) => verifyEd25519Signature(input.address, input.body.statement, input.body.signature),
      evm
        ? (input) => rawVerifyEvm(input.address, input.body.statement, input.body.signature)
        : (input) => bareVerifySolana(input.address, input.body.statement, input.body.signature),
    ];
    const runs: Run[][] = sides.map(() => []);
    // Warm-up: each side a full round first, so V8 has tiered the whole path up before any count.
    for (const side of sides) run(items, side, options.seconds);
    for (let round = 0; round < options.rounds; round++) {
      // Rotating order: each side runs first, second and third as often as the rounds allow.
      for (let k = 0; k < sides.length; k++) {
        const at = (round + k) % sides.length;
        runs[at]?.push(run(items, sides[at] as (input: Input) => boolean, options.seconds));
      }
    }
    const figures = (of: Run[]) => ({
      rps: median(of.map((r) => r.rps)),
      p50: null,
      p99: null,
      cpuUs: median(of.map((r) => r.cpuUs)),
    });
    const [service, verifier, bare] = runs.map(figures) as [Figures, Figures, Figures];
    const name = {
      'statement-evm': 'statement check + verify, EVM personal_sign (ops/s)',
      'statement-solana': 'statement check + verify, Solana wallet (ops/s)',
      'statement-ed25519': 'statement check + verify, delegated Ed25519 key (ops/s)',
    }[key];
    const against = `the bare native calls alone (${evm ? 'secp256k1.ecdsaRecover + keccak on the bytes' : 'crypto.verify with a cached KeyObject, bs58'}): ${Math.round(bare.rps)} ops/s, ${bare.cpuUs?.toFixed(1)} µs, the whole check ${((bare.cpuUs ?? 0) / (service.cpuUs ?? 1)).toFixed(2)}× per CPU-second`;
    const note = `baseline: core's ${evm ? 'verifyEvmSignature' : 'verifyEd25519Signature'} alone (verify.ts, the sign-in's verifier); CPU column: µs per statement; ${against}`;
    const r = row(name, service, verifier, note);
    rows.set(key, r);
    options.log(
      `${key}: ${Math.round(service.rps)} vs ${Math.round(verifier.rps)} ops/s; CPU ${service.cpuUs?.toFixed(1)} vs ${verifier.cpuUs?.toFixed(1)} µs (bare ${bare.cpuUs?.toFixed(1)} µs)`,
    );
  }
  return rows;
}

/** ≥ 0.9× the raw verifier, on CPU per statement (the ops per CPU-second of each side). */
export function judgeStatements(rows: Map<string, Row>): Verdict[] {
  return STATEMENT_KEYS.flatMap((key) => {
    const r = rows.get(key);
    if (r?.service.cpuUs == null || r.baseline?.cpuUs == null) return [];
    const ratio = r.baseline.cpuUs / r.service.cpuUs;
    return [
      {
        target: `${key}: the whole statement check ≥ ${STATEMENT_TARGET_RATIO}× the raw native verifier (per CPU-second)`,
        measured: `${ratio.toFixed(3)}× (${r.service.cpuUs.toFixed(1)} vs ${r.baseline.cpuUs.toFixed(1)} µs; wall ${Math.round(r.service.rps)} vs ${Math.round(r.baseline.rps)} ops/s)`,
        met: ratio >= STATEMENT_TARGET_RATIO,
      },
    ];
  });
}
