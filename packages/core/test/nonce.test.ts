import { createHmac, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AUTH_MESSAGE_PREFIX, buildAuthMessage } from '../src/message.js';
import {
  createNonceCodec,
  decodeBase62,
  encodeBase62,
  NONCE_RANDOM_BYTES,
  NONCE_VERSION,
  nonceSecretFromSigningKey,
} from '../src/nonce.js';

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const OTHER = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const NOW = new Date('2026-11-23T10:00:00.000Z');
const EXPIRES = NOW.getTime() + 300_000;

const pem = (type: 'ed25519' | 'ec') =>
  (type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519')).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();

describe('nonce codec', () => {
  const secret = randomBytes(32);
  const codec = createNonceCodec(secret);

  it('issues alphanumeric nonces of one length, 10,000 of them distinct', () => {
    const nonces = Array.from({ length: 10_000 }, () => codec.issue({ wallet: WALLET, expiresAt: EXPIRES }));
    const length = nonces[0]?.length as number;
    expect(nonces.every((nonce) => /^[A-Za-z0-9]+$/.test(nonce) && nonce.length === length)).toBe(true);
    expect(new Set(nonces).size).toBe(nonces.length);
    // version, random (tag, length, 16 bytes), expiry (tag, length, 6 bytes), 16-byte MAC.
    expect(decodeBase62(nonces[0] as string)).toHaveLength(1 + 18 + 8 + 16);
    expect(NONCE_RANDOM_BYTES * 8).toBeGreaterThanOrEqual(128);
  });

  it('opens for its own wallet before expiry, with the record it carries', () => {
    const nonce = codec.issue({ wallet: WALLET, expiresAt: EXPIRES });
    const opened = codec.open(nonce, { wallet: WALLET }, NOW);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.record.expiresAt).toBe(EXPIRES);
    expect(opened.record.wallet).toBe(WALLET);
    expect(opened.record.random).toHaveLength(16);
    expect(codec.open(nonce, { wallet: WALLET }, new Date(EXPIRES - 1)).ok).toBe(true);
  });

  it('refuses another wallet, even the same address in another spelling', () => {
    const nonce = codec.issue({ wallet: WALLET, expiresAt: EXPIRES });
    for (const wallet of [OTHER, WALLET.toLowerCase(), `${WALLET} `, '']) {
      expect(codec.open(nonce, { wallet }, NOW)).toMatchObject({ ok: false, reason: 'forged' });
    }
  });

  it('refuses it from its expiry on', () => {
    const nonce = codec.issue({ wallet: WALLET, expiresAt: EXPIRES });
    expect(codec.open(nonce, { wallet: WALLET }, new Date(EXPIRES))).toMatchObject({
      ok: false,
      reason: 'expired',
      message: 'nonce has expired',
    });
  });

  it('refuses every one-character change, at every position', () => {
    const nonce = codec.issue({ wallet: WALLET, expiresAt: EXPIRES });
    for (let i = 0; i < nonce.length; i++) {
      for (const c of ['0', 'z', 'A']) {
        if (nonce[i] === c) continue;
        const altered = nonce.slice(0, i) + c + nonce.slice(i + 1);
        expect(codec.open(altered, { wallet: WALLET }, NOW).ok, `${altered}`).toBe(false);
      }
    }
    for (const altered of [nonce.slice(1), `${nonce}0`, `0${nonce}`, nonce.toLowerCase(), nonce.toUpperCase()]) {
      expect(codec.open(altered, { wallet: WALLET }, NOW).ok).toBe(false);
    }
  });

  it('refuses a later expiry written into a nonce (the MAC covers it)', () => {
    const nonce = codec.issue({ wallet: WALLET, expiresAt: EXPIRES });
    const bytes = Buffer.from(decodeBase62(nonce) as Uint8Array);
    // The expiry follows the version (1 byte), the random field (2 + 16) and its own tag and length.
    bytes.writeUIntBE(EXPIRES + 3_600_000, 1 + 18 + 2, 6);
    expect(codec.open(encodeBase62(bytes), { wallet: WALLET }, NOW)).toMatchObject({ ok: false, reason: 'forged' });
  });

  it.each([
    ['empty', ''],
    ['not alphanumeric', "'; select 1; --"],
    ['a 32-character nonce of the old kind', 'q3J9cX0pV7bT1mZk4rN8sW2aYh6uLdEf'],
    ['very long', 'a'.repeat(5_000)],
    ['hex', randomBytes(16).toString('hex')],
  ])('refuses %s as malformed', (_name, nonce) => {
    expect(codec.open(nonce, { wallet: WALLET }, NOW)).toMatchObject({ ok: false, reason: 'malformed' });
  });

  it('refuses a nonce of another secret', () => {
    const foreign = createNonceCodec(randomBytes(32)).issue({ wallet: WALLET, expiresAt: EXPIRES });
    expect(codec.open(foreign, { wallet: WALLET }, NOW)).toMatchObject({ ok: false, reason: 'forged' });
  });

  it('refuses a short secret', () => {
    expect(() => createNonceCodec(randomBytes(16))).toThrow(/32 bytes/);
  });

  it('follows the documented encoding: a nonce built by hand opens, and its layout is strict', () => {
    // Built from the file comment alone: MAC over "signal-auth-nonce" ‖ version ‖ fields
    // (tag u8, length u16, bytes) in tag order; nonce = version ‖ carried (tag, length u8,
    // bytes) ‖ 16-byte MAC.
    const random = randomBytes(16);
    const expiry = Buffer.alloc(6);
    expiry.writeUIntBE(EXPIRES, 0, 6);
    const field = (tag: number, bytes: Uint8Array) => {
      const header = Buffer.alloc(3);
      header.writeUInt8(tag, 0);
      header.writeUInt16BE(bytes.length, 1);
      return Buffer.concat([header, bytes]);
    };
    const macOf = (fields: Buffer[]) =>
      createHmac('sha256', secret)
        .update(Buffer.concat([Buffer.from('signal-auth-nonce'), Buffer.of(NONCE_VERSION), ...fields]))
        .digest()
        .subarray(0, 16);
    const mac = macOf([field(1, random), field(2, expiry), field(3, Buffer.from(WALLET))]);
    const carried = (tag: number, bytes: Uint8Array) => Buffer.concat([Buffer.of(tag, bytes.length), bytes]);
    const build = (...parts: Buffer[]) => encodeBase62(Buffer.concat([Buffer.of(NONCE_VERSION), ...parts, mac]));

    const nonce = build(carried(1, random), carried(2, expiry));
    const opened = codec.open(nonce, { wallet: WALLET }, NOW);
    expect(opened.ok && Buffer.from(opened.record.random).equals(random)).toBe(true);

    // Out of order, repeated, unknown, missing or truncated fields: not a nonce at all.
    for (const bad of [
      build(carried(2, expiry), carried(1, random)),
      build(carried(1, random), carried(1, random), carried(2, expiry)),
      build(carried(1, random), carried(2, expiry), carried(9, Buffer.of(1))),
      build(carried(1, random)),
      build(carried(1, random.subarray(1)), carried(2, expiry)),
      build(carried(1, random), carried(3, Buffer.from(WALLET)), carried(2, expiry)),
    ]) {
      expect(codec.open(bad, { wallet: WALLET }, NOW)).toMatchObject({ ok: false, reason: 'malformed' });
    }
    // Another version byte.
    const v2 = decodeBase62(nonce) as Uint8Array;
    v2[0] = 2;
    expect(codec.open(encodeBase62(v2), { wallet: WALLET }, NOW)).toMatchObject({ ok: false, reason: 'malformed' });
  });
});

describe('nonce codec: sign-in message fields (format, chain id, domain, issue time)', () => {
  const codec = createNonceCodec(randomBytes(32));
  const fields = {
    wallet: WALLET,
    expiresAt: EXPIRES,
    format: 'siwe' as const,
    chainId: '8453',
    domain: 'app.example.com',
    issuedAt: NOW.getTime(),
  };

  it('carries them: open hands back exactly what was issued; a plain nonce has none', () => {
    const opened = codec.open(codec.issue(fields), { wallet: WALLET }, NOW);
    expect(opened.ok && opened.record).toMatchObject(fields);
    const plain = codec.open(codec.issue({ wallet: WALLET, expiresAt: EXPIRES }), { wallet: WALLET }, NOW);
    expect(plain.ok && [plain.record.format, plain.record.chainId, plain.record.domain, plain.record.issuedAt]).toEqual(
      [undefined, undefined, undefined, undefined],
    );
    const siws = codec.open(codec.issue({ ...fields, format: 'siws', chainId: 'mainnet' }), { wallet: WALLET }, NOW);
    expect(siws.ok && siws.record).toMatchObject({ format: 'siws', chainId: 'mainnet' });
  });

  it('the MAC covers each: any one rewritten (or dropped) in the nonce is refused', () => {
    const nonce = codec.issue(fields);
    const bytes = Buffer.from(decodeBase62(nonce) as Uint8Array);
    const at = (tag: number) => {
      // Carried fields follow the version byte as tag ‖ length ‖ bytes, in ascending tag order.
      let offset = 1;
      while (bytes[offset] !== tag) offset += 2 + (bytes[offset + 1] as number);
      return offset;
    };
    const rewrites: [string, (b: Buffer) => Buffer][] = [
      [
        'format siwe → siws',
        (b) => {
          b[at(4) + 2] = 2;
          return b;
        },
      ],
      [
        'chain id 8453 → 8454',
        (b) => {
          b[at(5) + 5] = '4'.charCodeAt(0);
          return b;
        },
      ],
      [
        'domain app → apq',
        (b) => {
          b[at(6) + 4] = 'q'.charCodeAt(0);
          return b;
        },
      ],
      [
        'issue time + 1 ms',
        (b) => {
          b.writeUIntBE(NOW.getTime() + 1, at(7) + 2, 6);
          return b;
        },
      ],
      ['format dropped (a plain nonce)', (b) => Buffer.concat([b.subarray(0, at(4)), b.subarray(at(4) + 3)])],
    ];
    for (const [label, rewrite] of rewrites) {
      const forged = encodeBase62(rewrite(Buffer.from(bytes)));
      expect(codec.open(forged, { wallet: WALLET }, NOW), label).toMatchObject({ ok: false, reason: 'forged' });
    }
  });

  it('refuses carried values of a shape it never issues, even under a valid MAC', () => {
    // Built by hand with the secret, so only the shape check can refuse them.
    const secret = randomBytes(32);
    const own = createNonceCodec(secret);
    const forge = (tag: number, value: Uint8Array) => {
      const random = randomBytes(16);
      const expires = Buffer.alloc(6);
      expires.writeUIntBE(EXPIRES, 0, 6);
      const field = (t: number, v: Uint8Array, lengthBytes: 1 | 2) => {
        const header = Buffer.alloc(1 + lengthBytes);
        header.writeUInt8(t, 0);
        if (lengthBytes === 1) header.writeUInt8(v.length, 1);
        else header.writeUInt16BE(v.length, 1);
        return Buffer.concat([header, v]);
      };
      const mac = createHmac('sha256', secret)
        .update('signal-auth-nonce')
        .update(Uint8Array.of(NONCE_VERSION))
        .update(field(1, random, 2))
        .update(field(2, expires, 2))
        .update(field(3, Buffer.from(WALLET), 2))
        .update(field(tag, value, 2))
        .digest()
        .subarray(0, 16);
      return encodeBase62(
        Buffer.concat([
          Uint8Array.of(NONCE_VERSION),
          field(1, random, 1),
          field(2, expires, 1),
          field(tag, value, 1),
          mac,
        ]),
      );
    };
    expect(own.open(forge(6, Buffer.from('app.example.com')), { wallet: WALLET }, NOW).ok).toBe(true);
    for (const [label, tag, value] of [
      ['format 3', 4, Uint8Array.of(3)],
      ['a newline in the chain id', 5, Buffer.from('1\nURI: x')],
      ['a domain with a path', 6, Buffer.from('evil.example/x')],
      ['a domain with a newline', 6, Buffer.from('a.example\nb')],
    ] as const) {
      expect(own.open(forge(tag, value), { wallet: WALLET }, NOW), label).toMatchObject({
        ok: false,
        reason: 'malformed',
      });
    }
  });
});

describe('nonce secret', () => {
  it('is the same for the same signing key, different for another, for Ed25519 and P-256', () => {
    for (const type of ['ed25519', 'ec'] as const) {
      const key = pem(type);
      const a = nonceSecretFromSigningKey(key);
      expect(a).toHaveLength(32);
      expect(Buffer.from(nonceSecretFromSigningKey(key)).equals(a)).toBe(true);
      expect(Buffer.from(nonceSecretFromSigningKey(pem(type))).equals(a)).toBe(false);
      // A server with the same key opens the other's nonces.
      const nonce = createNonceCodec(a).issue({ wallet: WALLET, expiresAt: EXPIRES });
      expect(createNonceCodec(nonceSecretFromSigningKey(key)).open(nonce, { wallet: WALLET }, NOW).ok).toBe(true);
    }
  });
});

describe('base62', () => {
  it('round-trips every length up to 100 bytes, including leading zero bytes', () => {
    for (let n = 0; n <= 100; n++) {
      for (const bytes of [randomBytes(n), Buffer.alloc(n), Buffer.alloc(n, 0xff)]) {
        const text = encodeBase62(bytes);
        expect(/^[0-9A-Za-z]*$/.test(text)).toBe(true);
        expect(Buffer.from(decodeBase62(text) as Uint8Array).equals(bytes)).toBe(true);
      }
    }
  });

  it('has one spelling per value: other widths and values past the byte length are refused', () => {
    const text = encodeBase62(Buffer.alloc(4, 0xff));
    expect(text).toHaveLength(6);
    // Width 7 is that of 5 bytes: the same digits with a leading zero are another value.
    expect(decodeBase62(`0${text}`)).toEqual(Buffer.of(0, 255, 255, 255, 255));
    expect(decodeBase62('0000')).toBeUndefined(); // 2 bytes take 3 digits, 3 bytes 5: no length takes 4
    expect(decodeBase62('zzzzzz')).toBeUndefined(); // 62^6 - 1 does not fit 4 bytes
    expect(decodeBase62('zz-zzz')).toBeUndefined();
  });

  it('uses every character, roughly uniformly, over random values', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++)
      for (const c of encodeBase62(randomBytes(40)).slice(1)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([...ALPHABET].sort());
  });
});

describe('buildAuthMessage', () => {
  it("is exactly 'Sign this message to authenticate: ' followed by the nonce", () => {
    expect(AUTH_MESSAGE_PREFIX).toBe('Sign this message to authenticate: ');
    expect(buildAuthMessage('abc')).toBe('Sign this message to authenticate: abc');
    expect(buildAuthMessage('')).toBe('Sign this message to authenticate: ');
  });
});
