/**
 * Differential tests: our native-path verifiers (libsecp256k1, OpenSSL Ed25519) against the
 * reference implementations (viem / noble for EVM, tweetnacl for Solana) on a corpus of valid
 * and deliberately broken signatures. They must give the same verdict on every case, except
 * for one class documented below where ours is deliberately stricter.
 */
import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import fc from 'fast-check';
import nacl from 'tweetnacl';
import {
  compactSignatureToSignature,
  type Hex,
  hashMessage,
  parseSignature,
  serializeCompactSignature,
  signatureToCompactSignature,
  verifyMessage,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildAuthMessage } from '../src/message.js';
import { personalMessageHash, verifyEvmSignature, verifySolanaSignature } from '../src/verify.js';
import { freshNonce } from './support.js';

// ── helpers ─────────────────────────────────────────────────────────────────

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const toHex32 = (n: bigint) => n.toString(16).padStart(64, '0');

function leToBigInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i] as number);
  return n;
}

function bigIntToLe(n: bigint, length = 32): Uint8Array {
  const out = new Uint8Array(length);
  let rest = n;
  for (let i = 0; i < length; i++) {
    out[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  if (rest !== 0n) throw new Error('value does not fit');
  return out;
}

function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const out = new Uint8Array(bytes);
  out[bit >> 3] = (out[bit >> 3] as number) ^ (1 << (bit & 7));
  return out;
}

const MESSAGES = [buildAuthMessage(freshNonce()), '', 'ünïcødé 🚀\nline two'];

// ── EVM ─────────────────────────────────────────────────────────────────────

/** Order of the secp256k1 group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

interface EvmCase {
  label: string;
  address: Hex;
  message: string;
  /** As given to our verifier; viem gets it with a 0x prefix added when missing. */
  signature: string;
  /**
   * 'odd-length': 129 hex digits, the last nibble of v dropped. viem reads it as a 65-byte
   * signature whose v is the remaining nibble (see the explicit test below); ours rejects it.
   */
  class: 'normal' | 'odd-length';
  /** For odd-length cases: whether viem accepts it (the leftover nibble `1` is the right yParity). */
  viemAccepts?: boolean;
}

function evmSig(r: bigint, s: bigint, v: number): string {
  return `0x${toHex32(r)}${toHex32(s)}${v.toString(16).padStart(2, '0')}`;
}

async function buildEvmCorpus(): Promise<EvmCase[]> {
  const accounts = [
    privateKeyToAccount('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'),
    ...Array.from({ length: 4 }, () => privateKeyToAccount(generatePrivateKey())),
  ];
  const cases: EvmCase[] = [];
  for (const [i, account] of accounts.entries()) {
    const otherAccount = accounts[(i + 1) % accounts.length] as (typeof accounts)[number];
    for (const [j, message] of MESSAGES.entries()) {
      const otherMessage = MESSAGES[(j + 1) % MESSAGES.length] as string;
      const signature = await account.signMessage({ message });
      const r = BigInt(`0x${signature.slice(2, 66)}`);
      const s = BigInt(`0x${signature.slice(66, 130)}`);
      const v = Number.parseInt(signature.slice(130), 16);
      const parity = v - 27;
      const add = (label: string, sig: string, address: Hex = account.address, msg = message) =>
        cases.push({ label: `key${i}/msg${j}: ${label}`, address, message: msg, signature: sig, class: 'normal' });

      add('valid', signature);
      add('valid, no 0x', signature.slice(2));
      add('valid, uppercase hex', `0x${signature.slice(2).toUpperCase()}`);
      add('valid, v as yParity', evmSig(r, s, parity));
      for (const vByte of [0, 1, 27, 28, 29, 35, 36, 255]) add(`v=${vByte}`, evmSig(r, s, vByte));
      add('v flipped', evmSig(r, s, 27 + (1 - parity)));
      // Malleated high-s twin: (r, n - s) with the other parity recovers the same key.
      add('high s, v flipped', evmSig(r, N - s, 27 + (1 - parity)));
      add('high s, v flipped, yParity form', evmSig(r, N - s, 1 - parity));
      add('high s, v not flipped', evmSig(r, N - s, v));
      add('r=0', evmSig(0n, s, v));
      add('s=0', evmSig(r, 0n, v));
      add('r=s=0', evmSig(0n, 0n, v));
      add('r=n', evmSig(N, s, v));
      add('r=n+1', evmSig(N + 1n, s, v));
      add('r=r+n (if it fits)', evmSig(r + N < 2n ** 256n ? r + N : 2n ** 256n - 1n, s, v));
      add('r=2^256-1', evmSig(2n ** 256n - 1n, s, v));
      add('s=n', evmSig(r, N, v));
      add('s=n+1', evmSig(r, N + 1n, v));
      add('s=2^256-1', evmSig(r, 2n ** 256n - 1n, v));
      add('r and s swapped', evmSig(s, r, v));
      add('bit flip in r', `0x${toHex32(r ^ (1n << BigInt(i * 37 + j)))}${signature.slice(66)}`);
      add(
        'bit flip in s',
        `0x${signature.slice(2, 66)}${toHex32(s ^ (1n << BigInt(i * 41 + j * 3)))}${signature.slice(130)}`,
      );
      add('64 bytes (v dropped)', signature.slice(0, 130));
      // EIP-2098 compact forms: the genuine one, its parity bit flipped, s's top bit set on a
      // signature whose parity is 0 (a different s), and r or s out of range.
      const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)));
      const yParityAndS = BigInt(`0x${compact.slice(66)}`);
      add('compact (EIP-2098)', compact);
      add('compact, no 0x', compact.slice(2));
      add('compact, parity bit flipped', `0x${toHex32(r)}${toHex32(yParityAndS ^ (1n << 255n))}`);
      add('compact, r=0', `0x${toHex32(0n)}${toHex32(yParityAndS)}`);
      add('compact, r=n', `0x${toHex32(N)}${toHex32(yParityAndS)}`);
      add('compact, s=0 with parity', `0x${toHex32(r)}${toHex32(1n << 255n)}`);
      add('compact, high s (cannot be expressed: top bit is parity)', `0x${toHex32(r)}${toHex32(N - s)}`);
      add('64 bytes (r truncated)', `0x${signature.slice(4)}`);
      add('66 bytes (00 appended)', `${signature}00`);
      add('66 bytes (00 before v)', `${signature.slice(0, 130)}00${signature.slice(130)}`);
      add('66 bytes (00 prepended)', `0x00${signature.slice(2)}`);
      // viem reads the leftover high nibble of v as v itself: `1` of 1b/1c means yParity 1,
      // `0` of 00/01 means yParity 0.
      for (const [form, full, leftover] of [
        ['v 27/28', signature, 1],
        ['v 0/1', evmSig(r, s, parity), 0],
      ] as const) {
        cases.push({
          label: `key${i}/msg${j}: 129 hex digits (last nibble of ${form} dropped)`,
          address: account.address,
          message,
          signature: full.slice(0, -1),
          class: 'odd-length',
          viemAccepts: parity === leftover,
        });
      }
      add('131 hex digits', `${signature}1`);
      add('130 bytes (doubled)', `${signature}${signature.slice(2)}`);
      add('0X prefix', `0X${signature.slice(2)}`);
      add('non-hex digit', `${signature.slice(0, 20)}g${signature.slice(21)}`);
      add('other message', signature, account.address, otherMessage);
      add('other address', signature, otherAccount.address);
      add('random 65 bytes, v=27', `0x${randomBytes(64).toString('hex')}1b`);
      add('random 65 bytes, v=28', `0x${randomBytes(64).toString('hex')}1c`);
      add('random 65 bytes', `0x${randomBytes(65).toString('hex')}`);
    }
  }
  const address = (accounts[0] as (typeof accounts)[number]).address;
  const message = MESSAGES[0] as string;
  for (const sig of ['', '0x', '00', '1b', `0x${'00'.repeat(65)}`, `0x${'ff'.repeat(65)}`, `0x${'00'.repeat(64)}1b`]) {
    cases.push({
      label: `degenerate ${JSON.stringify(sig.slice(0, 12))}…`,
      address,
      message,
      signature: sig,
      class: 'normal',
    });
  }
  return cases;
}

async function viemVerdict(c: EvmCase): Promise<boolean> {
  const signature = (c.signature.startsWith('0x') ? c.signature : `0x${c.signature}`) as Hex;
  try {
    // viem's verifyMessage takes 65 bytes only; an EIP-2098 compact signature (64 bytes) goes
    // through its own expansion first, the reference for that form.
    if (/^0x[0-9a-fA-F]{128}$/.test(signature)) {
      const expanded = compactSignatureToSignature({
        r: `0x${signature.slice(2, 66)}`,
        yParityAndS: `0x${signature.slice(66)}`,
      });
      return await verifyMessage({ address: c.address, message: c.message, signature: expanded });
    }
    return await verifyMessage({ address: c.address, message: c.message, signature });
  } catch {
    return false;
  }
}

describe('differential: verifyEvmSignature vs viem verifyMessage', () => {
  let corpus: EvmCase[];
  beforeAll(async () => {
    corpus = await buildEvmCorpus();
  });

  it('agrees on every case of a corpus of at least 200 (odd-length cases excepted, see below)', async () => {
    const normal = corpus.filter((c) => c.class === 'normal');
    expect(normal.length).toBeGreaterThanOrEqual(200);
    const disagreements: (EvmCase & { ours: boolean; viem: boolean })[] = [];
    let accepted = 0;
    for (const c of normal) {
      const ours = verifyEvmSignature(c.address, c.message, c.signature);
      const reference = await viemVerdict(c);
      if (ours !== reference) disagreements.push({ ...c, ours, viem: reference });
      if (ours) accepted++;
    }
    if (disagreements.length > 0) console.error('EVM disagreements:', JSON.stringify(disagreements, null, 2));
    expect(disagreements).toEqual([]);
    // The corpus is not trivially all-false: valid, yParity, v 0/1/27/28 and high-s twins pass.
    expect(accepted).toBeGreaterThanOrEqual(15 * 6);
    expect(accepted).toBeLessThan(normal.length / 2);
  });

  /*
   * Deliberate disagreement. viem's recoverPublicKey checks `size(hex) === 65`, and size
   * rounds an odd digit count up, so 129 hex digits pass; it then reads v from whatever
   * follows digit 130 — here the single leftover nibble, `1` (from 1b/1c) or `0` (from 00/01).
   * A signature ending in 1c or 00 with its last digit cut off therefore still verifies in
   * viem. The contract asks
   * for a 65-byte signature, so 129 digits are malformed and ours rejects them.
   */
  it('is stricter than viem on 129 hex digits: viem accepts when the leftover nibble is the right parity, we never do', async () => {
    const oddLength = corpus.filter((c) => c.class === 'odd-length');
    expect(oddLength.length).toBe(30);
    // Exactly one of the two truncated forms of each signature slips through viem.
    expect(oddLength.filter((c) => c.viemAccepts).length).toBe(15);
    for (const c of oddLength) {
      expect(verifyEvmSignature(c.address, c.message, c.signature), c.label).toBe(false);
      expect(await viemVerdict(c), c.label).toBe(c.viemAccepts);
    }
    // A deterministic instance: the fixed key's signature of the first message 'm<k>' whose v is 28.
    const account = privateKeyToAccount('0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318');
    let k = 0;
    let signature: Hex;
    do signature = await account.signMessage({ message: `m${++k}` });
    while (!signature.endsWith('1c'));
    const truncated = signature.slice(0, -1) as Hex;
    expect(verifyEvmSignature(account.address, `m${k}`, signature)).toBe(true);
    expect(await verifyMessage({ address: account.address, message: `m${k}`, signature: truncated })).toBe(true);
    expect(verifyEvmSignature(account.address, `m${k}`, truncated)).toBe(false);
  });

  it('accepts the high-s twin of a valid signature, as viem does (personal_sign recovery has no low-s rule)', async () => {
    const sample = corpus.filter((c) => c.label.endsWith('high s, v flipped'));
    expect(sample.length).toBe(15);
    for (const c of sample) {
      expect(verifyEvmSignature(c.address, c.message, c.signature)).toBe(true);
      expect(await viemVerdict(c)).toBe(true);
    }
  });
});

describe("differential: personalMessageHash vs viem's hashMessage", () => {
  it('gives the same EIP-191 hash for any text: ASCII, any Unicode (astral, lone surrogates), empty, up to 5,000 characters', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 5_000 }),
          fc.string({ unit: 'grapheme', maxLength: 600 }),
          fc.string({ unit: 'binary', maxLength: 600 }),
        ),
        (message) => {
          expect(hex(personalMessageHash(message))).toBe(hashMessage(message).slice(2));
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ── Solana ──────────────────────────────────────────────────────────────────

/** Order of the ed25519 prime-order subgroup. */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;

type SolanaClass = 'normal' | 'non-canonical-S' | 'small-order-key';

interface SolanaCase {
  label: string;
  publicKey: Uint8Array;
  message: string;
  signature: Uint8Array;
  class: SolanaClass;
}

/**
 * A "signature" (R, S) = ([s]B, s) for some scalar s, built from a seed: tweetnacl's public
 * key of the seed is [a]B with a the clamped hash of the seed, so s = a mod L. Under a public
 * key A of small order it verifies whenever [h]A is the identity, whatever the message.
 */
function forgeryForSmallOrderKey(seedByte: number): Uint8Array {
  const seed = new Uint8Array(32).fill(seedByte);
  const R = nacl.sign.keyPair.fromSeed(seed).publicKey;
  const a = createHash('sha512').update(seed).digest().subarray(0, 32);
  a[0] = (a[0] as number) & 248;
  a[31] = ((a[31] as number) & 127) | 64;
  const signature = new Uint8Array(64);
  signature.set(R, 0);
  signature.set(bigIntToLe(leToBigInt(a) % L), 32);
  return signature;
}

const withSignBit = (bytes: Uint8Array) => {
  const out = new Uint8Array(bytes);
  out[31] = (out[31] as number) | 0x80;
  return out;
};

/** Encodings of the eight small-order points, canonical and not (as in libsodium's blocklist). */
const SMALL_ORDER_KEYS: [string, Uint8Array][] = [
  ['32 zero bytes (y=0, order 4)', new Uint8Array(32)],
  ['y=0 with sign bit (order 4)', withSignBit(new Uint8Array(32))],
  ['identity (y=1)', bigIntToLe(1n)],
  ['identity with sign bit (non-canonical -0)', withSignBit(bigIntToLe(1n))],
  ['identity as y=p+1 (non-canonical)', bigIntToLe(P + 1n)],
  ['y=p-1 (order 2)', bigIntToLe(P - 1n)],
  ['y=p (non-canonical 0, order 4)', bigIntToLe(P)],
  ['order 8, first', Buffer.from('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 'hex')],
  ['order 8, second', Buffer.from('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', 'hex')],
  [
    'order 8, first, sign bit',
    withSignBit(Buffer.from('26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', 'hex')),
  ],
];

// tweetnacl takes ~10 ms per verification, so the Solana corpus uses fewer bases than EVM's.
const SOLANA_MESSAGES = [MESSAGES[0] as string, MESSAGES[2] as string];

function buildSolanaCorpus(): SolanaCase[] {
  const keyPairs = [
    nacl.sign.keyPair.fromSeed(new Uint8Array(32).fill(1)),
    ...Array.from({ length: 2 }, () => nacl.sign.keyPair()),
  ];
  const cases: SolanaCase[] = [];
  const add = (
    label: string,
    publicKey: Uint8Array,
    message: string,
    signature: Uint8Array,
    klass: SolanaClass = 'normal',
  ) => cases.push({ label, publicKey, message, signature, class: klass });

  for (const [i, keyPair] of keyPairs.entries()) {
    const other = keyPairs[(i + 1) % keyPairs.length] as nacl.SignKeyPair;
    for (const [j, message] of SOLANA_MESSAGES.entries()) {
      const otherMessage = SOLANA_MESSAGES[(j + 1) % SOLANA_MESSAGES.length] as string;
      const pk = keyPair.publicKey;
      const sig = nacl.sign.detached(new TextEncoder().encode(message), keyPair.secretKey);
      const S = leToBigInt(sig.subarray(32));
      const withS = (value: bigint) => {
        const out = new Uint8Array(sig);
        out.set(bigIntToLe(value), 32);
        return out;
      };
      const tag = `key${i}/msg${j}`;

      add(`${tag}: valid`, pk, message, sig);
      add(`${tag}: other key`, other.publicKey, message, sig);
      add(`${tag}: other message`, pk, otherMessage, sig);
      for (const bit of [0, 1, 100, 200, 254, 255]) add(`${tag}: R bit ${bit} flipped`, pk, message, flipBit(sig, bit));
      for (const bit of [0, 1, 100, 200, 251, 252, 253, 255])
        add(`${tag}: S bit ${bit} flipped`, pk, message, flipBit(sig, 256 + bit));
      add(`${tag}: S=0`, pk, message, withS(0n));
      add(`${tag}: S=L`, pk, message, withS(L));
      add(`${tag}: S=L-1`, pk, message, withS(L - 1n));
      add(`${tag}: S = S - L mod 2^256 wrap`, pk, message, withS((S - L + 2n ** 256n) % 2n ** 256n));
      add(`${tag}: R zeroed`, pk, message, new Uint8Array([...new Uint8Array(32), ...sig.subarray(32)]));
      add(`${tag}: R and S swapped`, pk, message, new Uint8Array([...sig.subarray(32), ...sig.subarray(0, 32)]));
      add(`${tag}: all-zero signature`, pk, message, new Uint8Array(64));
      add(`${tag}: 63 bytes`, pk, message, sig.subarray(0, 63));
      add(`${tag}: 65 bytes (appended)`, pk, message, new Uint8Array([...sig, 0]));
      add(`${tag}: 65 bytes (prepended)`, pk, message, new Uint8Array([1, ...sig]));
      add(`${tag}: 32 bytes`, pk, message, sig.subarray(0, 32));
      add(`${tag}: 128 bytes`, pk, message, new Uint8Array([...sig, ...sig]));
      add(`${tag}: 0 bytes`, pk, message, new Uint8Array(0));
      add(`${tag}: random 64 bytes`, pk, message, new Uint8Array(randomBytes(64)));
      add(`${tag}: public key 31 bytes`, pk.subarray(0, 31), message, sig);
      add(`${tag}: public key 33 bytes`, new Uint8Array([0, ...pk]), message, sig);
      add(`${tag}: public key bit flipped`, flipBit(pk, 7), message, sig);
      // Non-canonical S: the same point equation holds for S + kL; RFC 8032 requires S < L.
      add(`${tag}: S + L`, pk, message, withS(S + L), 'non-canonical-S');
      add(`${tag}: S + 2L`, pk, message, withS(S + 2n * L), 'non-canonical-S');
    }
  }

  // Public keys that are not valid prime-order points, with real signatures and with
  // signatures built to verify under a small-order key.
  const realSig = nacl.sign.detached(
    new TextEncoder().encode(MESSAGES[0] as string),
    (keyPairs[0] as nacl.SignKeyPair).secretKey,
  );
  const forgeries = [forgeryForSmallOrderKey(7), forgeryForSmallOrderKey(9)];
  const extraMessages = [...MESSAGES, 'a'];
  for (const [name, key] of SMALL_ORDER_KEYS) {
    add(
      `small-order key ${name}: real signature by another key`,
      key,
      MESSAGES[0] as string,
      realSig,
      'small-order-key',
    );
    add(
      `small-order key ${name}: all-zero signature`,
      key,
      MESSAGES[0] as string,
      new Uint8Array(64),
      'small-order-key',
    );
    for (const [f, forgery] of forgeries.entries()) {
      for (const [m, message] of extraMessages.entries())
        add(`small-order key ${name}: forgery ${f} msg ${m}`, key, message, forgery, 'small-order-key');
    }
  }
  // The identity with a non-canonical R: (R = enc(p + 1), S = 0).
  add(
    'identity key, R = identity as p+1, S = 0',
    bigIntToLe(1n),
    'x',
    new Uint8Array([...bigIntToLe(P + 1n), ...new Uint8Array(32)]),
    'small-order-key',
  );
  add(
    'identity key, R = identity, S = 0',
    bigIntToLe(1n),
    'x',
    new Uint8Array([...bigIntToLe(1n), ...new Uint8Array(32)]),
    'small-order-key',
  );
  for (const [name, key] of [
    ['32 bytes 0xff', new Uint8Array(32).fill(0xff)],
    ['y=2', bigIntToLe(2n)],
    ['y=p+2 (non-canonical)', bigIntToLe(P + 2n)],
    ['random 32 bytes', new Uint8Array(randomBytes(32))],
    ['random 32 bytes', new Uint8Array(randomBytes(32))],
  ] as [string, Uint8Array][]) {
    add(`invalid key ${name}: real signature`, key, MESSAGES[0] as string, realSig);
    add(`invalid key ${name}: forgery`, key, MESSAGES[0] as string, forgeries[0] as Uint8Array);
  }
  return cases;
}

function naclVerdict(c: SolanaCase): boolean {
  try {
    return nacl.sign.detached.verify(new TextEncoder().encode(c.message), c.signature, c.publicKey);
  } catch {
    // tweetnacl throws on a signature or key of the wrong size.
    return false;
  }
}

const ourVerdict = (c: SolanaCase) =>
  verifySolanaSignature(bs58.encode(c.publicKey), c.message, bs58.encode(c.signature));

const describeCase = (c: SolanaCase) => ({
  label: c.label,
  publicKeyHex: hex(c.publicKey),
  address: bs58.encode(c.publicKey),
  message: c.message,
  signatureHex: hex(c.signature),
});

describe('differential: verifySolanaSignature vs tweetnacl', () => {
  const corpus = buildSolanaCorpus();
  const normal = corpus.filter((c) => c.class === 'normal');
  const nonCanonicalS = corpus.filter((c) => c.class === 'non-canonical-S');
  const smallOrder = corpus.filter((c) => c.class === 'small-order-key');

  it('agrees on every case of a corpus of at least 200 (S >= L cases excepted, see below)', { timeout: 30_000 }, () => {
    expect(normal.length).toBeGreaterThanOrEqual(200);
    const disagreements: (ReturnType<typeof describeCase> & { ours: boolean; tweetnacl: boolean })[] = [];
    let accepted = 0;
    for (const c of normal) {
      const ours = ourVerdict(c);
      const reference = naclVerdict(c);
      if (ours !== reference) disagreements.push({ ...describeCase(c), ours, tweetnacl: reference });
      if (ours) accepted++;
    }
    if (disagreements.length > 0) console.error('Solana disagreements:', JSON.stringify(disagreements, null, 2));
    expect(disagreements).toEqual([]);
    // The genuine signatures: 3 keys × 2 messages.
    expect(accepted).toBe(6);
  });

  /*
   * Deliberate disagreement. tweetnacl does not check that S < L, so (R, S + L) verifies
   * there just like (R, S): a malleated second signature of the same message. Node's Ed25519
   * (OpenSSL) follows RFC 8032 §5.1.7 and rejects S >= L, so ours is stricter. Rejecting is
   * the right call: a wallet never produces such a signature, and accepting it would let the
   * same authorisation exist under two encodings.
   */
  it('is stricter than tweetnacl on non-canonical S (S + L, S + 2L): tweetnacl accepts, we reject', () => {
    expect(nonCanonicalS.length).toBe(12);
    for (const c of nonCanonicalS) {
      expect(naclVerdict(c), c.label).toBe(true);
      expect(ourVerdict(c), c.label).toBe(false);
    }
  });

  /*
   * Deliberate disagreement. Under a small-order public key (the identity, or 32 zero bytes =
   * `11111111111111111111111111111111`, the System Program address, which parseWallet accepts
   * as a 32-byte base58 wallet) a crafted signature ([s]B, s) verifies for any message in
   * tweetnacl and in OpenSSL. Nobody holds a private key for such an address, so we refuse
   * every signature by one (libsodium's blocklist), and tweetnacl accepts the forgeries.
   */
  it('rejects every signature under a small-order public key, where tweetnacl accepts forgeries', () => {
    expect(smallOrder.length).toBeGreaterThanOrEqual(60);
    for (const c of smallOrder) expect(ourVerdict(c), c.label).toBe(false);
    expect(smallOrder.filter(naclVerdict).length).toBeGreaterThan(10);
    const forgery = forgeryForSmallOrderKey(7);
    const identity: SolanaCase = {
      label: 'identity forgery',
      publicKey: bigIntToLe(1n),
      message: 'Sign this message to authenticate: anything',
      signature: forgery,
      class: 'small-order-key',
    };
    expect(naclVerdict(identity)).toBe(true);
    expect(ourVerdict(identity)).toBe(false);
  });
});
