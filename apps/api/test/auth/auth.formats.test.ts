/**
 * Sign-in message formats end to end: `siwe` (EIP-4361) and `siws` (Sign-In With Solana) name
 * the site, and the server rebuilds exactly that text at verify from what the nonce's MAC
 * covers (format, chain id, domain, issue time). The texts are held to the reference
 * implementations: viem's createSiweMessage / parseSiweMessage / validateSiweMessage, and the
 * Wallet Standard's createSignInMessageText / parseSignInMessageText.
 */
import { request as httpRequest } from 'node:http';
import { DEFAULT_SIGN_IN_STATEMENT } from '@signal/core';
import { createSignInMessageText, parseSignInMessageText } from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, parseSiweMessage, validateSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectError, startApi, type TestApi, trpcClient, useApi } from '../harness.js';

const verify = (api: TestApi, wallet: string, nonce: string, signature: string) =>
  call(api, 'POST', '/auth/verify', { body: { wallet, nonce, signature } });

/** GET with a Host header of our choosing (fetch does not let a caller set Host). */
function getWithHost(api: TestApi, path: string, host: string): Promise<{ status: number; body: any }> {
  const url = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers: { host } }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function solanaKey() {
  const pair = nacl.sign.keyPair();
  return {
    address: bs58.encode(pair.publicKey),
    sign: (bytes: Uint8Array) => bs58.encode(nacl.sign.detached(bytes, pair.secretKey)),
    signText: (text: string) => bs58.encode(nacl.sign.detached(new TextEncoder().encode(text), pair.secretKey)),
    publicKey: pair.publicKey,
  };
}

describe.each(['postgres', 'pglite'] as const)('sign-in message formats on %s', (backend) => {
  let api: TestApi;
  let host: string;
  beforeAll(async () => {
    api = await startApi(backend);
    host = new URL(api.url).host;
  });
  afterAll(async () => {
    await api?.stop();
  });

  /** What a sign-in message names for this server: its host, statement and URI, version 1. */
  const thisSite = () => ({
    domain: host,
    statement: DEFAULT_SIGN_IN_STATEMENT,
    uri: `http://${host}`,
    version: '1' as const,
  });

  it('siwe: the message is the EIP-4361 text viem writes for this host; signed, it signs in', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const reply = await call(api, 'GET', `/auth/nonce?wallet=${account.address.toLowerCase()}&format=siwe`);
    expect(reply.status).toBe(200);
    const { nonce, message, format, wallet, expiresAt } = reply.body;
    expect(format).toBe('siwe');
    expect(wallet).toBe(account.address);
    const parsed = parseSiweMessage(message);
    const expected = { ...thisSite(), address: account.address, chainId: 1, nonce };
    expect(parsed).toMatchObject(expected);
    expect(parsed.expirationTime?.toISOString()).toBe(expiresAt);
    expect(message, 'exactly createSiweMessage of the same fields').toBe(
      createSiweMessage({
        ...expected,
        issuedAt: parsed.issuedAt as Date,
        expirationTime: parsed.expirationTime as Date,
      }),
    );
    expect(validateSiweMessage({ message: parsed, domain: host, nonce, address: account.address })).toBe(true);

    const ok = await verify(api, account.address, nonce, await account.signMessage({ message }));
    expect(ok.status).toBe(200);
    expect(ok.body.user).toMatchObject({ wallet: account.address, chain: 'evm' });
  });

  it('siwe with chainId: the message names that chain; a signature naming another chain → 401', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { nonce, message } = (
      await call(api, 'GET', `/auth/nonce?wallet=${account.address}&format=siwe&chainId=8453`)
    ).body;
    expect(parseSiweMessage(message).chainId).toBe(8453);
    const otherChain = message.replace('Chain ID: 8453', 'Chain ID: 1');
    expectError(
      await verify(api, account.address, nonce, await account.signMessage({ message: otherChain })),
      401,
      'INVALID_SIGNATURE',
    );
    expect((await verify(api, account.address, nonce, await account.signMessage({ message }))).status).toBe(200);
  });

  it('siws: the Sign-In With Solana text of the Wallet Standard; signed raw or in a Ledger envelope, it signs in', async () => {
    const key = solanaKey();
    const reply = await call(api, 'GET', `/auth/nonce?wallet=${key.address}&format=siws`);
    expect(reply.status).toBe(200);
    const { nonce, message, format } = reply.body;
    expect(format).toBe('siws');
    const parsed = parseSignInMessageText(message);
    expect(parsed).toMatchObject({ ...thisSite(), address: key.address, chainId: 'mainnet', nonce });
    expect(message).toBe(createSignInMessageText(parsed as NonNullable<typeof parsed>));
    expect((await verify(api, key.address, nonce, key.signText(message))).status).toBe(200);

    // The same text inside the off-chain message envelope a Ledger signs (legacy layout,
    // format 1: the text has newlines).
    const second = (await call(api, 'GET', `/auth/nonce?wallet=${key.address}&format=siws`)).body;
    const body = new TextEncoder().encode(second.message);
    const envelope = Uint8Array.from([
      0xff,
      ...new TextEncoder().encode('solana offchain'),
      0,
      1,
      body.length & 0xff,
      body.length >> 8,
      ...body,
    ]);
    expect((await verify(api, key.address, second.nonce, key.sign(envelope))).status).toBe(200);
  });

  it('the plain text signed for a siwe or siws nonce → 401, and the nonce stays usable', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const evm = (await call(api, 'GET', `/auth/nonce?wallet=${account.address}&format=siwe`)).body;
    const plain = `Sign this message to authenticate: ${evm.nonce}`;
    expectError(
      await verify(api, account.address, evm.nonce, await account.signMessage({ message: plain })),
      401,
      'INVALID_SIGNATURE',
    );
    expect(
      (await verify(api, account.address, evm.nonce, await account.signMessage({ message: evm.message }))).status,
    ).toBe(200);

    const key = solanaKey();
    const sol = (await call(api, 'GET', `/auth/nonce?wallet=${key.address}&format=siws`)).body;
    expectError(
      await verify(api, key.address, sol.nonce, key.signText(`Sign this message to authenticate: ${sol.nonce}`)),
      401,
      'INVALID_SIGNATURE',
    );
    expect((await verify(api, key.address, sol.nonce, key.signText(sol.message))).status).toBe(200);
  });

  it('a message for another domain → 401: the text the server rebuilds names the domain the nonce was issued for', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { nonce, message } = (await call(api, 'GET', `/auth/nonce?wallet=${account.address}&format=siwe`)).body;
    for (const forged of [
      message.replace(`${host} wants you`, 'evil.example wants you'),
      message.replace(`URI: http://${host}`, 'URI: https://evil.example'),
    ]) {
      expectError(
        await verify(api, account.address, nonce, await account.signMessage({ message: forged })),
        401,
        'INVALID_SIGNATURE',
      );
    }
    // A nonce issued through another Host names that host; its signature is not one for ours.
    const relayed = await getWithHost(api, `/auth/nonce?wallet=${account.address}&format=siwe`, 'evil.example');
    expect(relayed.status).toBe(200);
    expect(relayed.body.message.startsWith('evil.example wants you to sign in')).toBe(true);
    const ours = message.replace(nonce, relayed.body.nonce);
    expectError(
      await verify(api, account.address, relayed.body.nonce, await account.signMessage({ message: ours })),
      401,
      'INVALID_SIGNATURE',
    );
  });

  it('format for the other family, an unknown format, a bad chainId → 400 VALIDATION_ERROR', async () => {
    const evm = privateKeyToAccount(generatePrivateKey()).address;
    const sol = solanaKey().address;
    for (const query of [
      `wallet=${sol}&format=siwe`,
      `wallet=${evm}&format=siws`,
      `wallet=${evm}&format=eip4361`,
      `wallet=${evm}&format=`,
      `wallet=${evm}&format=siwe&chainId=0`,
      `wallet=${evm}&format=siwe&chainId=abc`,
      `wallet=${evm}&format=siwe&chainId=1e3`,
      `wallet=${evm}&format=siwe&chainId=-1`,
      `wallet=${evm}&format=siwe&chainId=9007199254740992`,
      `wallet=${evm}&chainId=1`,
      `wallet=${sol}&format=siws&chainId=1`,
    ]) {
      const body = expectError(await call(api, 'GET', `/auth/nonce?${query}`), 400, 'VALIDATION_ERROR');
      expect(body.issues?.[0]?.path, query).toEqual([query.includes('chainId') ? 'chainId' : 'format']);
    }
    // A bad wallet is still INVALID_WALLET first.
    expectError(await call(api, 'GET', '/auth/nonce?wallet=0x123&format=siws'), 400, 'INVALID_WALLET');
  });

  it('plain stays the default and unchanged; tRPC takes the same parameters', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const plain = (await call(api, 'GET', `/auth/nonce?wallet=${account.address}`)).body;
    expect(plain.format).toBe('plain');
    expect(plain.message).toBe(`Sign this message to authenticate: ${plain.nonce}`);
    const viaTrpc = await trpcClient(api).auth.nonce.query({ wallet: account.address, format: 'siwe', chainId: 10 });
    expect(viaTrpc.format).toBe('siwe');
    expect(parseSiweMessage(viaTrpc.message)).toMatchObject({ domain: host, chainId: 10, nonce: viaTrpc.nonce });
    const ok = await verify(
      api,
      account.address,
      viaTrpc.nonce,
      await account.signMessage({ message: viaTrpc.message }),
    );
    expect(ok.status).toBe(200);
  });
});

describe('configured sign-in site', () => {
  const api = useApi('pglite', {
    env: {
      SIGN_IN_DOMAIN: 'app.example.com',
      SIGN_IN_STATEMENT: 'Welcome to Example.',
      EVM_CHAIN_ID: '8453',
      SIWS_CHAIN: 'devnet',
    },
  });

  it('names SIGN_IN_DOMAIN whatever Host the request names, with its https URI, statement and chains', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const relayed = await getWithHost(api, `/auth/nonce?wallet=${account.address}&format=siwe`, 'evil.example');
    expect(parseSiweMessage(relayed.body.message)).toMatchObject({
      domain: 'app.example.com',
      uri: 'https://app.example.com',
      statement: 'Welcome to Example.',
      chainId: 8453,
    });
    // The phishing relay: a look-alike site fetches a real nonce (any Host it likes) and shows
    // the victim's wallet a message naming the page the victim is on, which the wallet signs
    // without a warning. That signature does not redeem: the server names only its own site.
    const phished = relayed.body.message
      .replace('app.example.com wants you', 'evil.example wants you')
      .replace('URI: https://app.example.com', 'URI: https://evil.example');
    expectError(
      await verify(api, account.address, relayed.body.nonce, await account.signMessage({ message: phished })),
      401,
      'INVALID_SIGNATURE',
    );
    const ok = await verify(
      api,
      account.address,
      relayed.body.nonce,
      await account.signMessage({ message: relayed.body.message }),
    );
    expect(ok.status).toBe(200);

    const key = solanaKey();
    const sol = (await call(api, 'GET', `/auth/nonce?wallet=${key.address}&format=siws`)).body;
    expect(parseSignInMessageText(sol.message)).toMatchObject({ domain: 'app.example.com', chainId: 'devnet' });
    expect((await verify(api, key.address, sol.nonce, key.signText(sol.message))).status).toBe(200);
  });
});
