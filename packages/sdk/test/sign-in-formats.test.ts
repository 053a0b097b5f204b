/**
 * The message the SDK has the wallet sign: by default the sign-in message of the wallet's
 * family (SIWE for EVM, SIWS for Solana) naming the site, and never a text that names another
 * site, nonce or wallet, even when the server asks for it.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, SignalApiError, type Signer } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage, parseSiweMessage } from 'viem/siwe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useApi } from './support/api.js';
import { signerKinds } from './support/wallets.js';

const api = useApi();

/** Records every message a signer is asked to sign. */
function recording(inner: Signer) {
  const messages: string[] = [];
  const signer: Signer = {
    chain: inner.chain,
    getAddress: () => inner.getAddress(),
    signMessage(message) {
      messages.push(message);
      return inner.signMessage(message);
    },
  };
  return { signer, messages };
}

describe.each(signerKinds)('$kind', ({ make }) => {
  it('signs in with the family’s sign-in message naming the API’s host by default', async () => {
    const wallet = make();
    const { signer, messages } = recording(wallet.signer);
    const session = await createClient({ baseUrl: api.url, signer }).signIn();
    expect(session.user.chain).toBe(wallet.chain);
    expect(messages).toHaveLength(1);
    const account = wallet.chain === 'evm' ? 'Ethereum' : 'Solana';
    expect(
      messages[0]?.startsWith(`${new URL(api.url).host} wants you to sign in with your ${account} account:\n`),
    ).toBe(true);
  });

  it("signs the plain message with messageFormat: 'plain'", async () => {
    const { signer, messages } = recording(make().signer);
    await createClient({ baseUrl: api.url, signer, messageFormat: 'plain' }).signIn();
    expect(messages[0]).toMatch(/^Sign this message to authenticate: [A-Za-z0-9]+$/);
  });
});

it('a format of the other family is refused before any request', async () => {
  const requests: string[] = [];
  const client = createClient({
    baseUrl: api.url,
    signer: evmSigner(privateKeyToAccount(generatePrivateKey())),
    messageFormat: 'siws',
    fetch: (input, init) => {
      requests.push(String(input));
      return fetch(input, init);
    },
  });
  await expect(client.signIn()).rejects.toThrow(/not for evm wallets/);
  expect(requests).toEqual([]);
});

it('chainId reaches the SIWE message', async () => {
  const { signer, messages } = recording(evmSigner(privateKeyToAccount(generatePrivateKey())));
  await createClient({ baseUrl: api.url, signer, chainId: 137 }).signIn();
  expect(parseSiweMessage(messages[0] as string).chainId).toBe(137);
});

describe('a server asking for another text is refused before the wallet is asked', () => {
  const account = privateKeyToAccount(generatePrivateKey());
  let url: string;
  let answer: (host: string) => { nonce: string; message: string; wallet: string };
  let server: ReturnType<typeof createHttpServer>;

  beforeAll(async () => {
    // A real HTTP server answering auth.nonce as the API would, with the message the test picks.
    server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
      const data = {
        ...answer(req.headers.host ?? ''),
        chain: 'evm',
        format: 'siwe',
        expiresAt: new Date().toISOString(),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { data } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  const nonce = 'q3J9cX0pV7bT1mZk4rN8sW2aYh6uLdEf';
  const siwe = (fields: { domain: string; uri?: string; nonce?: string; address?: `0x${string}`; chainId?: number }) =>
    createSiweMessage({
      domain: fields.domain,
      address: fields.address ?? account.address,
      statement: 'Sign in.',
      uri: fields.uri ?? `http://${fields.domain}`,
      version: '1',
      chainId: fields.chainId ?? 1,
      nonce: fields.nonce ?? nonce,
      issuedAt: new Date(),
      expirationTime: new Date(Date.now() + 300_000),
    });

  const cases: [string, (host: string) => string][] = [
    ['another site (the phishing relay)', () => siwe({ domain: 'evil.example' })],
    ['our host, but a URI on another site', (host) => siwe({ domain: host, uri: 'https://evil.example' })],
    ['another nonce', (host) => siwe({ domain: host, nonce: 'ZZZZcX0pV7bT1mZk4rN8sW2aYh6uLdEf' })],
    ['another wallet', (host) => siwe({ domain: host, address: privateKeyToAccount(generatePrivateKey()).address })],
    ['extra lines (resources)', (host) => `${siwe({ domain: host })}\nResources:\n- https://evil.example/approve`],
    ['the plain message where SIWE was asked for', () => `Sign this message to authenticate: ${nonce}`],
    ['a transaction-looking text', () => 'Approve transfer of 100 ETH'],
  ];

  it.each(cases)('%s', async (_label, message) => {
    answer = (host) => ({ nonce, message: message(host), wallet: account.address });
    const { signer, messages } = recording(evmSigner(account));
    const error = await createClient({ baseUrl: url, signer })
      .signIn()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignalApiError);
    expect((error as SignalApiError).message).toMatch(/unexpected message/);
    expect(messages).toEqual([]);
  });

  it('while the well-formed message for this host and nonce is signed (then verify goes on)', async () => {
    answer = (host) => ({ nonce, message: siwe({ domain: host }), wallet: account.address });
    const { signer, messages } = recording(evmSigner(account));
    await createClient({ baseUrl: url, signer })
      .signIn()
      .catch(() => {});
    expect(messages).toHaveLength(1);
  });

  it('signInDomain names the site when the API is on another host', async () => {
    answer = () => ({
      nonce,
      message: siwe({ domain: 'app.example.com', uri: 'https://app.example.com' }),
      wallet: account.address,
    });
    const refused = recording(evmSigner(account));
    await createClient({ baseUrl: url, signer: refused.signer })
      .signIn()
      .catch(() => {});
    expect(refused.messages).toEqual([]);
    const allowed = recording(evmSigner(account));
    await createClient({ baseUrl: url, signer: allowed.signer, signInDomain: 'app.example.com' })
      .signIn()
      .catch(() => {});
    expect(allowed.messages).toHaveLength(1);
  });
});
