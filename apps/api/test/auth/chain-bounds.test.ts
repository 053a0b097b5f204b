/**
 * The chain node as an amplifier, attacked: bad EVM signatures flood /auth/verify from many
 * wallets, copies of one bad signature arrive at once, distinct ones pile up, while a fake
 * JSON-RPC node (a real node:http server in the test) counts its calls by method, their
 * concurrency and their parameters. Before (issue 24): every bad signature was one eth_call,
 * 8 wallets × 5 attempts = 40 calls, 20 copies at once = 20 concurrent calls, no gas. Now: a
 * plain signature from an address without code costs one eth_getCode per address; copies share
 * one call; a failed check is remembered; the node never sees more than the bound, and past it
 * the contract wallet hears 503 with Retry-After while a key wallet signs in at once.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { serializeErc6492Signature } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, evmWallet, signIn, startApi, type TestApi } from '../harness.js';
import { parsePrometheusText, sampleValue } from '../prometheus-text.js';

const CONTRACT = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
const MAX_CONCURRENT = 3;
const MAX_CALLS_PER_MINUTE = 40;
const GAS_CAP = 400_000;

/** A JSON-RPC node that knows one contract (CONTRACT) and rejects every signature, slowly. */
class FakeNode {
  calls: Record<string, number> = {};
  inFlight = 0;
  maxInFlight = 0;
  gas: string[] = [];
  delayMs = 30;
  private server: Server | undefined;
  url = '';

  async start() {
    this.server = createServer((req, res) => void this.answer(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  reset() {
    this.calls = {};
    this.maxInFlight = 0;
    this.gas = [];
  }

  total(): number {
    return Object.values(this.calls).reduce((a, b) => a + b, 0);
  }

  private async answer(req: IncomingMessage, res: import('node:http').ServerResponse) {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = JSON.parse(text) as { id: number; method: string; params: unknown[] };
    this.calls[body.method] = (this.calls[body.method] ?? 0) + 1;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    this.inFlight--;
    let result: string;
    if (body.method === 'eth_getCode') {
      result = String(body.params[0]).toLowerCase() === CONTRACT ? '0x6080604052' : '0x';
    } else if (body.method === 'eth_call') {
      this.gas.push(String((body.params[0] as { gas?: string }).gas));
      result = `0x${'0'.repeat(64)}`; // the validator's `false`
    } else result = '0x1';
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result }));
  }

  close() {
    return new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A sign-in attempt for `wallet` signed by another key: a signature that does not recover. */
async function badSignIn(api: TestApi, wallet: string, signature?: string) {
  const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet}`);
  const forged =
    signature ?? (await privateKeyToAccount(generatePrivateKey()).signMessage({ message: nonce.body.message }));
  return call(api, 'POST', '/auth/verify', { body: { wallet, nonce: nonce.body.nonce, signature: forged } });
}

describe('chain checks bounded (fake JSON-RPC node, postgres)', () => {
  const node = new FakeNode();
  let api: TestApi;
  beforeAll(async () => {
    await node.start();
    api = await startApi('postgres', {
      env: {
        EVM_RPC_URL: node.url,
        EVM_RPC_MAX_CONCURRENT: String(MAX_CONCURRENT),
        EVM_RPC_MAX_CALLS_PER_MINUTE: String(MAX_CALLS_PER_MINUTE),
        EVM_RPC_GAS_CAP: String(GAS_CAP),
        METRICS: 'true',
      },
    });
  });
  afterAll(async () => {
    await api?.stop();
    await node.close();
  });

  /** To the start of a minute on the server's clock: a fresh per-minute budget. */
  const toMinuteStart = () => api.advanceClock(60_000 - (api.now().getTime() % 60_000) + 50);

  it('8 wallets × 5 bad plain signatures: one eth_getCode per wallet, no eth_call', async () => {
    toMinuteStart();
    node.reset();
    const wallets = Array.from({ length: 8 }, () => evmWallet().address);
    for (let round = 0; round < 5; round++) {
      for (const wallet of wallets) {
        const reply = await badSignIn(api, wallet);
        expect(reply.status).toBe(401);
        expect(reply.body.code).toBe('INVALID_SIGNATURE');
      }
    }
    expect(node.calls).toEqual({ eth_getCode: 8 });
    const metrics = parsePrometheusText((await call(api, 'GET', '/metrics')).body);
    expect(sampleValue(metrics, 'signal_chain_checks_total', { outcome: 'no-code' })).toBe(8);
    expect(sampleValue(metrics, 'signal_chain_checks_total', { outcome: 'no-code-known' })).toBe(32);
  });

  it('an EIP-6492-wrapped signature still goes to the chain, with the gas cap', async () => {
    toMinuteStart();
    node.reset();
    const wallet = evmWallet().address;
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${wallet}`);
    const inner = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: nonce.body.message });
    const wrapped = serializeErc6492Signature({ address: CONTRACT as `0x${string}`, data: '0x1234', signature: inner });
    const reply = await call(api, 'POST', '/auth/verify', {
      body: { wallet, nonce: nonce.body.nonce, signature: wrapped },
    });
    expect(reply.status).toBe(401);
    expect(node.calls).toEqual({ eth_call: 1 });
    expect(node.gas).toEqual([`0x${GAS_CAP.toString(16)}`]);
  });

  it('20 copies of one bad signature at once: one eth_call; the same bytes again: none', async () => {
    toMinuteStart();
    node.reset();
    const nonce = await call(api, 'GET', `/auth/nonce?wallet=${CONTRACT}`);
    const signature = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: nonce.body.message });
    const attempt = () =>
      call(api, 'POST', '/auth/verify', { body: { wallet: CONTRACT, nonce: nonce.body.nonce, signature } });
    const replies = await Promise.all(Array.from({ length: 20 }, attempt));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(401));
    expect(node.calls).toEqual({ eth_getCode: 1, eth_call: 1 });
    expect((await attempt()).status).toBe(401);
    expect(node.total()).toBe(2);
  });

  it('distinct bad signatures at once: the node never sees more than the bound; a key wallet never waits', async () => {
    toMinuteStart();
    node.reset();
    node.delayMs = 2_000;
    try {
      const flood = Promise.all(Array.from({ length: 12 }, () => badSignIn(api, CONTRACT)));
      // Meanwhile an ordinary wallet signs in without touching the node.
      const started = performance.now();
      await signIn(api, evmWallet());
      const keyWalletMs = performance.now() - started;
      const replies = await flood;
      const busy = replies.filter((r) => r.status === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(replies.every((r) => r.status === 401 || r.status === 503)).toBe(true);
      for (const reply of busy) {
        expect(reply.body.code).toBe('SERVICE_UNAVAILABLE');
        expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
      expect(node.maxInFlight).toBeLessThanOrEqual(MAX_CONCURRENT);
      expect(keyWalletMs).toBeLessThan(2_000);
    } finally {
      node.delayMs = 30;
    }
  });

  it('past the calls a minute: 503 with Retry-After until the minute ends, never more calls', async () => {
    toMinuteStart();
    node.reset();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const reply = await badSignIn(api, CONTRACT);
      statuses.push(reply.status);
      if (reply.status === 503) {
        const retryAfter = Number(reply.headers.get('retry-after'));
        expect(retryAfter).toBeGreaterThanOrEqual(1);
        expect(retryAfter).toBeLessThanOrEqual(60);
      }
    }
    expect(node.total()).toBeLessThanOrEqual(MAX_CALLS_PER_MINUTE);
    expect(statuses.filter((s) => s === 401)).toHaveLength(MAX_CALLS_PER_MINUTE / 2);
    expect(statuses.filter((s) => s === 503)).toHaveLength(30 - MAX_CALLS_PER_MINUTE / 2);
    // The next minute has its budget again.
    toMinuteStart();
    expect((await badSignIn(api, CONTRACT)).status).toBe(401);
  });
});
