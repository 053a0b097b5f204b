/**
 * Smart-contract wallets on a real local chain (anvil, test/chain/anvil.ts): an EIP-1271
 * account deployed from SmartWallets.sol, and a counterfactual one behind its CREATE2 factory
 * signing with an EIP-6492 wrapper. The service reaches the node through a TCP proxy the test
 * cuts (a stopped node) and stalls (a node that never answers).
 *
 * The SDK as an app uses it: `evmSigner(walletClient)` over a viem WalletClient whose EIP-1193
 * provider is the smart wallet (personal_sign answered with the wallet's own 1271 or 6492
 * signature) signs in unchanged, as the contract address. The SDK is imported from its build
 * (packages/sdk/dist, made by `pnpm build`): @signal/sdk cannot be a dependency of @signal/api,
 * as the SDK's own tests depend on the API (turbo refuses a cycle).
 */
import {
  type Address,
  createWalletClient,
  custom,
  encodeFunctionData,
  type Hex,
  keccak256,
  serializeErc6492Signature,
  toHex,
} from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evmSigner } from '../../../../packages/sdk/dist/evm.js';
import { createClient } from '../../../../packages/sdk/dist/index.js';
import { type Anvil, contracts, deploy, startAnvil } from '../chain/anvil.js';
import {
  call,
  createServiceKey,
  evmWallet,
  expectError,
  issuedNonce,
  signIn,
  startApi,
  type TestApi,
  useApi,
} from '../harness.js';
import { changeSignal, newDesk, openSignal } from '../signals/signal-support.js';
import { TcpProxy } from '../tcp-proxy.js';

/** The time box the service is started with here, and the slack a loaded machine may add. */
const RPC_TIMEOUT_MS = 1_500;
const SLACK_MS = 2_000;
const ADMIN_KEY = 'smart-wallets-test-admin-key-0123456789abcdef';

const verify = (api: TestApi, wallet: string, nonce: string, signature: string) =>
  call(api, 'POST', '/auth/verify', { body: { wallet, nonce, signature } });

let anvil: Anvil;
let proxy: TcpProxy;
let factory: Address;

beforeAll(async () => {
  anvil = await startAnvil();
  proxy = new TcpProxy({ host: '127.0.0.1', port: anvil.port });
  await proxy.listen();
  factory = await deploy(anvil, contracts.OwnedWalletFactory);
});

afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

/** A counterfactual account: its address, and the factory call an EIP-6492 signature carries. */
async function counterfactual(owner: PrivateKeyAccount) {
  const salt = keccak256(toHex(generatePrivateKey()));
  const address = (await anvil.client.readContract({
    address: factory,
    abi: contracts.OwnedWalletFactory.abi,
    functionName: 'addressOf',
    args: [owner.address, salt],
  })) as Address;
  const factoryData = encodeFunctionData({
    abi: contracts.OwnedWalletFactory.abi,
    functionName: 'deploy',
    args: [owner.address, salt],
  });
  const wrap = (signature: Hex) => serializeErc6492Signature({ address: factory, data: factoryData, signature });
  return { address, wrap };
}

/**
 * A smart wallet as a dapp sees it: an EIP-1193 provider whose only account is the contract,
 * answering personal_sign with the wallet's own signature of the bytes asked for. Keeps every
 * message it signed.
 */
function smartWalletProvider(address: Address, sign: (message: { raw: Hex }) => Promise<Hex>) {
  const signed: string[] = [];
  const request = async ({ method, params }: { method: string; params?: unknown }) => {
    if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address];
    if (method === 'personal_sign') {
      const [data, from] = params as [Hex, Address];
      if (from.toLowerCase() !== address.toLowerCase()) throw new Error(`personal_sign for ${from}`);
      signed.push(Buffer.from(data.slice(2), 'hex').toString('utf8'));
      return sign({ raw: data });
    }
    throw new Error(`the test wallet does not answer ${method}`);
  };
  return { request, signed };
}

describe.each(['postgres', 'pglite'] as const)('smart-contract wallets on %s', (backend) => {
  let api: TestApi;
  let owner: PrivateKeyAccount;
  let wallet1271: Address;

  beforeAll(async () => {
    api = await startApi(backend, {
      env: {
        EVM_RPC_URL: `http://127.0.0.1:${proxy.port}`,
        EVM_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS),
        ADMIN_KEY,
      },
    });
    owner = privateKeyToAccount(generatePrivateKey());
    wallet1271 = await deploy(anvil, contracts.OwnedWallet, [owner.address]);
  });
  afterAll(async () => {
    await proxy.restore();
    await api?.stop();
  });

  it('a deployed EIP-1271 wallet signs in; the user is the contract address', async () => {
    const { nonce, message, wallet } = await issuedNonce(api, wallet1271.toLowerCase());
    expect(wallet).toBe(wallet1271);
    const reply = await verify(api, wallet1271, nonce, await owner.signMessage({ message }));
    expect(reply.status).toBe(200);
    expect(reply.body.user).toMatchObject({ wallet: wallet1271, chain: 'evm' });
    const me = await call(api, 'GET', '/me', { token: reply.body.token });
    expect(me.body.wallet).toBe(wallet1271);
  });

  it('publishes signals: a deployed EIP-1271 wallet opens, an EIP-6492 account closes; a stranger signing for the wallet → 401', async () => {
    const origin = (await (await fetch(`${api.url}/log/checkpoint`)).text()).split('\n')[0]!;
    const writer = await createServiceKey(api, ADMIN_KEY, 'writer', ['providers:write']);
    const account = await counterfactual(owner);
    const desk = await newDesk(api, origin, writer, [wallet1271, account.address]);
    const opened = await openSignal(desk, { signer: wallet1271, sign: (text) => owner.signMessage({ message: text }) });
    expect(opened.reply.status).toBe(201);
    expect(opened.reply.body.signal.statements[0]).toMatchObject({ type: 'signal.open', signer: wallet1271 });
    const wrapped = {
      signer: account.address,
      sign: async (text: string) => account.wrap(await owner.signMessage({ message: text })),
    };
    const closed = await changeSignal(desk, wrapped, opened.reply.body.signal.id, 'signal.close', { closePct: '100' });
    expect(closed.reply.status).toBe(201);
    expect(closed.reply.body.signal).toMatchObject({ status: 'closed', content: { openPct: '0' } });
    expect(await anvil.client.getCode({ address: account.address })).toBeUndefined();
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = await openSignal(desk, {
      signer: wallet1271,
      sign: (text) => stranger.signMessage({ message: text }),
    });
    expectError(forged.reply, 401, 'INVALID_SIGNATURE');
  });

  it('a signature by another key than the owner → 401, and the nonce stays usable', async () => {
    const { nonce, message } = await issuedNonce(api, wallet1271);
    const stranger = privateKeyToAccount(generatePrivateKey());
    expectError(
      await verify(api, wallet1271, nonce, await stranger.signMessage({ message })),
      401,
      'INVALID_SIGNATURE',
    );
    // The owner's signature of another message is not this one either.
    const otherMessage = await owner.signMessage({ message: `${message}.` });
    expectError(await verify(api, wallet1271, nonce, otherMessage), 401, 'INVALID_SIGNATURE');
    const ok = await verify(api, wallet1271, nonce, await owner.signMessage({ message }));
    expect(ok.status).toBe(200);
  });

  it('the owner EOA is not the contract: its own sign-in is another user', async () => {
    const asOwner = await signIn(api, {
      address: owner.address,
      chain: 'evm',
      sign: (m) => owner.signMessage({ message: m }),
    });
    expect(asOwner.user.wallet).toBe(owner.address);
    const { nonce, message } = await issuedNonce(api, wallet1271);
    const contractLogin = await verify(api, wallet1271, nonce, await owner.signMessage({ message }));
    expect(contractLogin.body.user.id).not.toBe(asOwner.user.id);
  });

  it('a counterfactual account signs in with an EIP-6492 signature; nothing is deployed', async () => {
    const account = await counterfactual(owner);
    expect(await anvil.client.getCode({ address: account.address })).toBeUndefined();
    const { nonce, message } = await issuedNonce(api, account.address);
    const signature = account.wrap(await owner.signMessage({ message }));
    expect(signature.length).toBeGreaterThan(2 + 130);
    const reply = await verify(api, account.address, nonce, signature);
    expect(reply.status).toBe(200);
    expect(reply.body.user.wallet).toBe(account.address);
    // Checked by simulation: the account is still not on chain.
    expect(await anvil.client.getCode({ address: account.address })).toBeUndefined();
  });

  it('an EIP-6492 wrapper around a stranger’s signature, or naming another account, → 401', async () => {
    const account = await counterfactual(owner);
    const { nonce, message } = await issuedNonce(api, account.address);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = account.wrap(await stranger.signMessage({ message }));
    expectError(await verify(api, account.address, nonce, forged), 401, 'INVALID_SIGNATURE');
    // The owner's wrapped signature presented for another counterfactual address.
    const other = await counterfactual(owner);
    const { nonce: otherNonce, message: otherMessage } = await issuedNonce(api, other.address);
    const misdirected = account.wrap(await owner.signMessage({ message: otherMessage }));
    expectError(await verify(api, other.address, otherNonce, misdirected), 401, 'INVALID_SIGNATURE');
    // Still usable.
    expect((await verify(api, account.address, nonce, account.wrap(await owner.signMessage({ message })))).status).toBe(
      200,
    );
  });

  it('the SDK signs in through evmSigner(walletClient) unchanged: a deployed 1271 wallet and a counterfactual 6492 one', async () => {
    // Deployed: the wallet answers with the signature its isValidSignature accepts (the owner's).
    const deployed = smartWalletProvider(wallet1271, (message) => owner.signMessage({ message }));
    const withAccount = createWalletClient({ account: wallet1271, transport: custom(deployed) });
    const client = createClient({ baseUrl: api.url, signer: evmSigner(withAccount) });
    const session = await client.signIn();
    expect(session.user.wallet).toBe(wallet1271);
    expect((await client.me.get()).wallet).toBe(wallet1271);
    // The SDK's default message: SIWE naming this site and the contract as the signing address.
    expect(deployed.signed).toHaveLength(1);
    expect(deployed.signed[0]).toContain(
      `${new URL(api.url).host} wants you to sign in with your Ethereum account:\n${wallet1271}\n`,
    );

    // Counterfactual: the wallet wraps the owner's signature with its factory call (EIP-6492);
    // a client without an account asks the wallet for its address first.
    const account = await counterfactual(owner);
    const undeployed = smartWalletProvider(account.address, async (message) =>
      account.wrap(await owner.signMessage({ message })),
    );
    const noAccount = createWalletClient({ transport: custom(undeployed) });
    const plain = createClient({ baseUrl: api.url, signer: evmSigner(noAccount), messageFormat: 'plain' });
    expect((await plain.signIn()).user.wallet).toBe(account.address);
    expect(undeployed.signed[0]).toMatch(/^Sign this message to authenticate: [A-Za-z0-9]+$/);
    expect((await plain.me.get()).wallet).toBe(account.address);
    expect(await anvil.client.getCode({ address: account.address })).toBeUndefined();
  });

  it('the SDK links a deployed 1271 wallet and a counterfactual 6492 one to a key user; each then signs that user in', async () => {
    const user = createClient({ baseUrl: api.url, signer: evmSigner(privateKeyToAccount(generatePrivateKey())) });
    const { user: me } = await user.signIn();
    const deployed = await deploy(anvil, contracts.OwnedWallet, [owner.address]);
    const account = await counterfactual(owner);
    const signers = [
      evmSigner(
        createWalletClient({
          account: deployed,
          transport: custom(smartWalletProvider(deployed, (message) => owner.signMessage({ message }))),
        }),
      ),
      evmSigner(
        createWalletClient({
          account: account.address,
          transport: custom(
            smartWalletProvider(account.address, async (message) => account.wrap(await owner.signMessage({ message }))),
          ),
        }),
      ),
    ];
    for (const signer of signers) {
      const linked = await user.linkWallet(signer);
      expect(linked).toMatchObject({ wallet: await signer.getAddress(), chain: 'evm', primary: false });
      const again = createClient({ baseUrl: api.url, signer });
      expect((await again.signIn()).user).toMatchObject({ id: me.id, wallet: me.wallet });
    }
    expect(await anvil.client.getCode({ address: account.address })).toBeUndefined();
  });

  it('malformed long signatures → 401, not 500', async () => {
    const { nonce } = await issuedNonce(api, wallet1271);
    for (const signature of [
      `0x${'ab'.repeat(4000)}`,
      `0x${'1'.repeat(301)}`,
      'zz'.repeat(100),
      `0x${'00'.repeat(200)}`,
    ]) {
      expectError(await verify(api, wallet1271, nonce, signature), 401, 'INVALID_SIGNATURE');
    }
  });

  it('node stopped (connections refused) → 503 within the time box; the nonce stays usable', async () => {
    const { nonce, message } = await issuedNonce(api, wallet1271);
    const signature = await owner.signMessage({ message });
    await proxy.cut();
    try {
      const started = performance.now();
      const reply = await verify(api, wallet1271, nonce, signature);
      expectError(reply, 503, 'SERVICE_UNAVAILABLE');
      expect(performance.now() - started).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
      // An ordinary wallet never waits for the node.
      const eoa = evmWallet();
      expect((await signIn(api, eoa)).user.wallet).toBe(eoa.address);
    } finally {
      await proxy.restore();
    }
    expect((await verify(api, wallet1271, nonce, signature)).status).toBe(200);
  });

  it('node stalled (accepts, never answers) → 503 after the time box, not before; the nonce stays usable', async () => {
    const account = await counterfactual(owner);
    const { nonce, message } = await issuedNonce(api, account.address);
    const signature = account.wrap(await owner.signMessage({ message }));
    await proxy.stall();
    try {
      const started = performance.now();
      const reply = await verify(api, account.address, nonce, signature);
      const elapsed = performance.now() - started;
      expectError(reply, 503, 'SERVICE_UNAVAILABLE');
      expect(elapsed).toBeGreaterThanOrEqual(RPC_TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(RPC_TIMEOUT_MS + SLACK_MS);
      const started2 = performance.now();
      await signIn(api, evmWallet());
      expect(performance.now() - started2).toBeLessThan(RPC_TIMEOUT_MS);
    } finally {
      await proxy.restore();
    }
    expect((await verify(api, account.address, nonce, signature)).status).toBe(200);
  });
});

describe('without EVM_RPC_URL', () => {
  const api = useApi('pglite');

  it('an EIP-6492 signature and a deployed 1271 wallet’s owner signature → 401 INVALID_SIGNATURE', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const account = await counterfactual(owner);
    const { nonce, message } = await issuedNonce(api, account.address);
    expectError(
      await verify(api, account.address, nonce, account.wrap(await owner.signMessage({ message }))),
      401,
      'INVALID_SIGNATURE',
    );
    const deployed = await deploy(anvil, contracts.OwnedWallet, [owner.address]);
    const second = await issuedNonce(api, deployed);
    expectError(
      await verify(api, deployed, second.nonce, await owner.signMessage({ message: second.message })),
      401,
      'INVALID_SIGNATURE',
    );
  });
});

describe('the node itself stopped', () => {
  it('a contract wallet gets 503 and an ordinary wallet still signs in', async () => {
    const api = await startApi('pglite', {
      env: { EVM_RPC_URL: anvil.url, EVM_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) },
    });
    try {
      const owner = privateKeyToAccount(generatePrivateKey());
      const deployed = await deploy(anvil, contracts.OwnedWallet, [owner.address]);
      const { nonce, message } = await issuedNonce(api, deployed);
      await anvil.stop();
      expectError(await verify(api, deployed, nonce, await owner.signMessage({ message })), 503, 'SERVICE_UNAVAILABLE');
      const eoa = evmWallet();
      expect((await signIn(api, eoa)).user.wallet).toBe(eoa.address);
    } finally {
      await api.stop();
    }
  });
});
