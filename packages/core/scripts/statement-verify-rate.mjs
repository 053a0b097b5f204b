/**
 * Statement verifications a second for each signer kind, against the raw native verifier alone
 * (issue 39's target: ≥ 0.9×). "Raw" is the signature alone on the statement's bytes:
 * libsecp256k1 recovery through `verifyEvmSignature`, OpenSSL's Ed25519 `crypto.verify` with a
 * ready key object and signature bytes. "Signature step" adds what a route adds to it: the
 * signer parsed, the signature decoded, the check by kind. "Whole statement" is every pure
 * check of a route in the contract's order (body, JSON, canonical form, schema, log, provider,
 * issuedAt, signer format) and the signature.
 *
 * Run from packages/core after `pnpm build`: `node scripts/statement-verify-rate.mjs [seconds]`.
 * A quick measure, one core, rounds alternating so that both sides see the same machine load.
 */
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import bs58 from 'bs58';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import {
  checkStatementRequest,
  parseStatementSigner,
  verifyStatementSignatureLocally,
} from '../dist/statements/index.js';
import { verifyEvmSignature } from '../dist/verify.js';

const seconds = Number(process.argv[2] ?? 3);
const origin = 'localhost/signals';
const now = Date.now();
const statement = JSON.stringify(
  Object.fromEntries(
    Object.entries({
      entry: { price: '97000.5', type: 'limit' },
      expiresAt: new Date(now + 86_400_000).toISOString(),
      id: 'Qm3yq2h1d9Vx7aQe5r8TzA',
      instrument: 'BTC-USD',
      issuedAt: new Date(now).toISOString(),
      log: origin,
      note: 'Breakout above the range',
      provider: 7,
      salt: 'w4Jc0kq7V1bZpR2mX9sLtg',
      side: 'long',
      sizePct: '2.5',
      stop: '95000',
      targets: ['99000', '101000.25'],
      type: 'signal.open',
      v: 1,
    }).sort(([a], [b]) => (a < b ? -1 : 1)),
  ),
);
const context = { origin, providerId: 7, types: ['signal.open'], nowMs: now, maxSkewSeconds: 3600 };

const account = privateKeyToAccount(generatePrivateKey());
const evmBody = { statement, signer: account.address, signature: await account.signMessage({ message: statement }) };

function ed25519Body(prefix) {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url');
  const signature = sign(null, Buffer.from(statement), privateKey);
  return {
    body: { statement, signer: `${prefix}${bs58.encode(raw)}`, signature: bs58.encode(signature) },
    raw,
    signature,
  };
}
const solana = ed25519Body('');
const key = ed25519Body('ed25519:');

function full(body) {
  const read = checkStatementRequest(body, context);
  if (!verifyStatementSignatureLocally(read.parsedSigner, read.text, read.signature)) throw new Error('refused');
}

/** The signature step alone: the signer parsed and the signature checked by kind. */
function signatureStep(body) {
  if (!verifyStatementSignatureLocally(parseStatementSigner(body.signer), body.statement, body.signature)) {
    throw new Error('refused');
  }
}

function rawEd25519({ raw, signature }) {
  const keyObject = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
  return () => {
    if (!verify(null, Buffer.from(statement, 'utf8'), keyObject, signature)) throw new Error('refused');
  };
}

const kinds = {
  'EVM wallet (personal_sign)': {
    raw: () => {
      if (!verifyEvmSignature(account.address, statement, evmBody.signature)) throw new Error('refused');
    },
    signature: () => signatureStep(evmBody),
    statement: () => full(evmBody),
  },
  'Solana wallet (Ed25519)': {
    raw: rawEd25519(solana),
    signature: () => signatureStep(solana.body),
    statement: () => full(solana.body),
  },
  'delegated key (ed25519:)': {
    raw: rawEd25519(key),
    signature: () => signatureStep(key.body),
    statement: () => full(key.body),
  },
};

/** Runs `fn` for about `ms` milliseconds; returns calls and elapsed nanoseconds. */
function run(fn, ms) {
  let calls = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(ms) * 1_000_000n;
  let at = start;
  while (at < until) {
    for (let i = 0; i < 50; i++) fn();
    calls += 50;
    at = process.hrtime.bigint();
  }
  return { calls, ns: Number(at - start) };
}

console.log('| signer kind | raw verifier /s | signature step /s (ratio) | whole statement /s (ratio) |');
console.log('|---|---|---|---|');
for (const [name, sides] of Object.entries(kinds)) {
  const totals = Object.fromEntries(Object.keys(sides).map((side) => [side, { calls: 0, ns: 0 }]));
  for (const fn of Object.values(sides)) run(fn, 200);
  const rounds = 10;
  for (let round = 0; round < rounds; round++) {
    for (const [side, fn] of Object.entries(sides)) {
      const result = run(fn, (seconds * 1000) / rounds / 3);
      totals[side].calls += result.calls;
      totals[side].ns += result.ns;
    }
  }
  const rate = (side) => (totals[side].calls * 1e9) / totals[side].ns;
  const cell = (side) => `${Math.round(rate(side))} (${(rate(side) / rate('raw')).toFixed(2)}×)`;
  console.log(`| ${name} | ${Math.round(rate('raw'))} | ${cell('signature')} | ${cell('statement')} |`);
}
