/**
 * Wallet forms beyond the plain signature, end to end over HTTP: EIP-2098 compact EVM
 * signatures, and Solana signatures of the off-chain message envelope as a Ledger signs it.
 * The envelopes are built here byte by byte from the specification and signed with tweetnacl.
 * Linking a wallet (POST /me/wallets) takes the same forms.
 */
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { parseSignature, serializeCompactSignature, signatureToCompactSignature } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { call, evmWallet, expectError, signIn, useApi } from '../harness.js';

const SIGNING_DOMAIN = [0xff, ...new TextEncoder().encode('solana offchain')];
const u16le = (n: number) => [n & 0xff, n >> 8];

/** Legacy layout: signing domain | version 0 | format | length u16 LE | body. */
function legacyEnvelope(text: string, domain = SIGNING_DOMAIN): Uint8Array {
  const body = new TextEncoder().encode(text);
  return Uint8Array.from([...domain, 0, 0, ...u16le(body.length), ...body]);
}

/** With application domain (32 zero bytes) and signers: domain | 0 | app | format | 1 | signer | length | body. */
function extendedEnvelope(text: string, signer: Uint8Array): Uint8Array {
  const body = new TextEncoder().encode(text);
  return Uint8Array.from([
    ...SIGNING_DOMAIN,
    0,
    ...new Uint8Array(32),
    0,
    1,
    ...signer,
    ...u16le(body.length),
    ...body,
  ]);
}

describe.each(['postgres', 'pglite'] as const)('wallet signature forms on %s', (backend) => {
  const api = useApi(backend);

  const nonceFor = async (wallet: string) => (await call(api, 'GET', `/auth/nonce?wallet=${wallet}`)).body;
  const verify = (wallet: string, nonce: string, signature: string) =>
    call(api, 'POST', '/auth/verify', { body: { wallet, nonce, signature } });

  it('EVM: an EIP-2098 compact (64-byte) signature signs in; its parity bit flipped does not', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { nonce, message } = await nonceFor(account.address);
    const compact = serializeCompactSignature(
      signatureToCompactSignature(parseSignature(await account.signMessage({ message }))),
    );
    const flippedByte = (Number.parseInt(compact.slice(66, 68), 16) ^ 0x80).toString(16).padStart(2, '0');
    const flipped = `${compact.slice(0, 66)}${flippedByte}${compact.slice(68)}`;
    expectError(await verify(account.address, nonce, flipped), 401, 'INVALID_SIGNATURE');
    const reply = await verify(account.address, nonce, compact);
    expect(reply.status).toBe(200);
    expect(reply.body.user.wallet).toBe(account.address);
  });

  describe('Solana off-chain message envelope (Ledger)', () => {
    const keyPair = nacl.sign.keyPair();
    const wallet = bs58.encode(keyPair.publicKey);
    const sign = (bytes: Uint8Array) => bs58.encode(nacl.sign.detached(bytes, keyPair.secretKey));

    it('the legacy layout around the exact message signs in', async () => {
      const { nonce, message } = await nonceFor(wallet);
      const reply = await verify(wallet, nonce, sign(legacyEnvelope(message)));
      expect(reply.status).toBe(200);
      expect(reply.body.user).toMatchObject({ wallet, chain: 'solana' });
    });

    it('the layout with application domain and signers around the exact message signs in', async () => {
      const { nonce, message } = await nonceFor(wallet);
      const reply = await verify(wallet, nonce, sign(extendedEnvelope(message, keyPair.publicKey)));
      expect(reply.status).toBe(200);
      expect(reply.body.isNewUser).toBe(false);
    });

    it('an envelope around other text, or with a wrong signing domain → 401; the nonce stays usable', async () => {
      const { nonce, message } = await nonceFor(wallet);
      const { message: otherMessage } = await nonceFor(wallet);
      expectError(await verify(wallet, nonce, sign(legacyEnvelope(otherMessage))), 401, 'INVALID_SIGNATURE');
      expectError(
        await verify(wallet, nonce, sign(extendedEnvelope(otherMessage, keyPair.publicKey))),
        401,
        'INVALID_SIGNATURE',
      );
      const wrongDomain = [0xff, ...new TextEncoder().encode('solana offchaim')];
      expectError(await verify(wallet, nonce, sign(legacyEnvelope(message, wrongDomain))), 401, 'INVALID_SIGNATURE');
      // An envelope naming another signer, signed by this wallet.
      const stranger = nacl.sign.keyPair().publicKey;
      expectError(await verify(wallet, nonce, sign(extendedEnvelope(message, stranger))), 401, 'INVALID_SIGNATURE');
      expect((await verify(wallet, nonce, sign(legacyEnvelope(message)))).status).toBe(200);
    });
  });

  it('linking takes the same forms: an EIP-2098 compact signature and a Ledger envelope link wallets', async () => {
    const user = await signIn(api, evmWallet());
    const link = async (wallet: string, sign: (message: string) => Promise<string>) => {
      const issued = await call(api, 'GET', `/auth/nonce?wallet=${wallet}&purpose=link`, { token: user.token });
      const body = { wallet, nonce: issued.body.nonce, signature: await sign(issued.body.message) };
      return call(api, 'POST', '/me/wallets', { token: user.token, body });
    };
    const account = privateKeyToAccount(generatePrivateKey());
    const compact = async (message: string) =>
      serializeCompactSignature(signatureToCompactSignature(parseSignature(await account.signMessage({ message }))));
    expect((await link(account.address, compact)).status).toBe(201);
    const ledger = nacl.sign.keyPair();
    const ledgerWallet = bs58.encode(ledger.publicKey);
    const envelope = async (message: string) =>
      bs58.encode(nacl.sign.detached(extendedEnvelope(message, ledger.publicKey), ledger.secretKey));
    expect((await link(ledgerWallet, envelope)).status).toBe(201);
    const me = await call(api, 'GET', '/me', { token: user.token });
    expect(me.body.wallets.map((w: { wallet: string }) => w.wallet)).toEqual([
      user.user.wallet,
      account.address,
      ledgerWallet,
    ]);
  });
});
