/**
 * Smart-contract wallets on a real local chain (anvil, test/chain/anvil.ts): an EIP-1271
 * account deployed from SmartWallets.sol, and a counterfactual one behind its CREATE2 factory
 * signing with an EIP-6492 wrapper. The service reaches the node through a TCP proxy the test
 * cuts (a stopped node) and stalls (a node that never answers).
 */
import { type Address, encodeFunctionData, type Hex, keccak256, serializeErc6492Signature, toHex } from 'viem';
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, contracts, deploy, startAnvil } from './chain/anvil.js';
import { call, evmWallet, expectError, signIn, startApi, type TestApi } from './harness.js';
import { TcpProxy } from './tcp-proxy.js';

/** The time box the service is started with here, and the slack a loaded machine may add. */
const RPC_TIMEOUT_MS = 1_500;
const SLACK_MS = 2_000;

async function nonceFor(api: TestApi, wallet: string) {
  const reply = await call(api, 'GET', `/auth/nonce?wallet=${wallet}`);
  expect(reply.status).toBe(200);
  return reply.body as { nonce: string; message: string; wallet: string };
}

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

describe.each(['postgres', 'pglite'] as const)('smart-contract wallets on %s', (backend) => {
  let api: TestApi;
  let owner: PrivateKeyAccount;
  let wallet1271: Address;

  beforeAll(async () => {
    api = await startApi(backend, {
      env: { EVM_RPC_URL: `http://127.0.0.1:${proxy.port}`, EVM_RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS) },
    });
    owner = privateKeyToAccount(generatePrivateKey());
    wallet1271 = await deploy(anvil, contracts.OwnedWallet, [owner.address]);
  });
  afterAll(async () => {
    await proxy.restore();
    await api?.stop();
  });

  it('a deployed EIP-1271 wallet signs in; the user is the contract address', async () => {
    const { nonce, message, wallet } = await nonceFor(api, wallet1271.toLowerCase());
    expect(wallet).toBe(wallet1271);
    const reply = await verify(api, wallet1271, nonce, await owner.signMessage({ message }));
    expect(reply.status).toBe(200);
    expect(reply.body.user).toMatchObject({ wallet: wallet1271, chain: 'evm' });
    const me = await call(api, 'GET', '/me', { token: reply.body.token });
    expect(me.body.wallet).toBe(wallet1271);
  });

  it('a signature by another key than the owner → 401, and the nonce stays usable', async () => {
    const { nonce, message } = await nonceFor(api, wallet1271);
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
    const { nonce, message } = await nonceFor(api, wallet1271);
    const contractLogin = await verify(api, wallet1271, nonce, await owner.signMessage({ message }));
    expect(contractLogin.body.user.id).not.toBe(asOwner.user.id);
  });

  it('a counterfactual account signs in with an EIP-6492 signature; nothing is deployed', async () => {
    const account = await counterfactual(owner);
    expect(await anvil.client.getCode({ address: account.address })).toBeUndefined();
    const { nonce, message } = await nonceFor(api, account.address);
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
    const { nonce, message } = await nonceFor(api, account.address);
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = account.wrap(await stranger.signMessage({ message }));
    expectError(await verify(api, account.address, nonce, forged), 401, 'INVALID_SIGNATURE');
    // The owner's wrapped signature presented for another counterfactual address.
    const other = await counterfactual(owner);
    const { nonce: otherNonce, message: otherMessage } = await nonceFor(api, other.address);
    const misdirected = account.wrap(await owner.signMessage({ message: otherMessage }));
    expectError(await verify(api, other.address, otherNonce, misdirected), 401, 'INVALID_SIGNATURE');
    // Still usable.
    expect((await verify(api, account.address, nonce, account.wrap(await owner.signMessage({ message })))).status).toBe(
      200,
    );
  });

  it('malformed long signatures → 401, not 500', async () => {
    const { nonce } = await nonceFor(api, wallet1271);
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
    const { nonce, message } = await nonceFor(api, wallet1271);
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
    const { nonce, message } = await nonceFor(api, account.address);
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
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi('pglite');
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('an EIP-6492 signature and a deployed 1271 wallet’s owner signature → 401 INVALID_SIGNATURE', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const account = await counterfactual(owner);
    const { nonce, message } = await nonceFor(api, account.address);
    expectError(
      await verify(api, account.address, nonce, account.wrap(await owner.signMessage({ message }))),
      401,
      'INVALID_SIGNATURE',
    );
    const deployed = await deploy(anvil, contracts.OwnedWallet, [owner.address]);
    const second = await nonceFor(api, deployed);
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
      const { nonce, message } = await nonceFor(api, deployed);
      await anvil.stop();
      expectError(await verify(api, deployed, nonce, await owner.signMessage({ message })), 503, 'SERVICE_UNAVAILABLE');
      const eoa = evmWallet();
      expect((await signIn(api, eoa)).user.wallet).toBe(eoa.address);
    } finally {
      await api.stop();
    }
  });
});
