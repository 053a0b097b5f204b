/**
 * The audit row's log (audit-rows.ts): one provider's publisher wallet (EVM), the key it
 * delegates (Ed25519), and `statements` signal statements signed by them in turn (an open and a
 * close per signal), spread among other providers' publisher entries up to `size` entries; with
 * the provider's signal list as the public read answers it (content and statements revealed).
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import bs58 from 'bs58';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

export const ORIGIN = 'localhost/signals';
export const PROVIDER = 1;

const json = (value: Record<string, unknown>) =>
  JSON.stringify(Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1))));
const bytes = (text: string) => new TextEncoder().encode(text);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The log and the provider's list: one publisher wallet, one delegated key, `statements` statements among other providers' entries. */
export async function makeLog(size: number, statements: number) {
  const wallet = privateKeyToAccount(generatePrivateKey());
  const keys = generateKeyPairSync('ed25519');
  const raw = keys.publicKey.export({ format: 'jwk' }).x as string;
  const keyName = `ed25519:${bs58.encode(Buffer.from(raw, 'base64url'))}`;
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  const tick = () => {
    clock += 10;
    return new Date(clock).toISOString();
  };
  const entries: Uint8Array[] = [];
  const items: { id: string; statements: Record<string, unknown>[]; publishedAt: string }[] = [];
  const others = size - statements - 2;
  const every = Math.max(1, Math.floor(others / statements));
  let other = 0;
  const filler = (count: number) => {
    for (let i = 0; i < count && other < others; i++, other++) {
      const wallet = `0x${other.toString(16).padStart(40, '0')}`;
      entries.push(bytes(json({ at: tick(), provider: 2 + (other % 1000), type: 'publisher.added', v: 1, wallet })));
    }
  };
  entries.push(bytes(json({ at: tick(), provider: PROVIDER, type: 'publisher.added', v: 1, wallet: wallet.address })));
  const delegate = json({
    expiresAt: new Date(clock + 300 * 86_400_000).toISOString(),
    issuedAt: new Date(clock).toISOString(),
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
  for (let i = 0; i < statements; i++) {
    filler(every);
    const signal = `s${Math.floor(i / 2)}`;
    const salt = randomBytes(16).toString('base64url');
    const issuedAt = new Date(clock).toISOString();
    const statement =
      i % 2 === 0
        ? json({
            entry: { type: 'market' },
            expiresAt: null,
            id: signal,
            instrument: 'BTC-USD',
            issuedAt,
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
            issuedAt,
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
    else items.at(-1)?.statements.push(view);
  }
  filler(others);
  const signals = items.reverse().map((item) => ({
    id: item.id,
    providerId: PROVIDER,
    status: 'closed',
    publishedAt: item.publishedAt,
    revealAt: item.publishedAt,
    content: { instrument: 'BTC-USD' },
    statements: item.statements,
  }));
  return { entries, signals };
}
