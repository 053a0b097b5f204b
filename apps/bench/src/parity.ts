/**
 * Before any load: the baseline must answer what the service answers, byte for byte where the
 * answer is deterministic, or the comparison would price different work. A mismatch stops
 * the bench (and so fails the quick run in CI).
 */
import { isDeepStrictEqual } from 'node:util';
import { type Bench, BY_NAME, deepPath, PAGE_1, TRPC_PAGE_1 } from './scenarios.js';
import { verifyBodies } from './sign-in.js';

async function call(url: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${url}${path}`, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const keysOf = (value: unknown): string[] =>
  value && typeof value === 'object'
    ? Object.entries(value)
        .flatMap(([key, inner]) => [key, ...keysOf(inner).map((k) => `${key}.${k}`)])
        .sort()
    : [];

export async function checkParity(b: Bench): Promise<void> {
  const problems: string[] = [];
  const same = async (what: string, servicePath: string, baselinePath = servicePath, init: RequestInit = {}) => {
    const [s, base] = await Promise.all([call(b.api.url, servicePath, init), call(b.baseline.url, baselinePath, init)]);
    if (s.status !== 200 || base.status !== 200 || !isDeepStrictEqual(s.body, base.body)) {
      problems.push(
        `${what}: service ${s.status} ${JSON.stringify(s.body)} / baseline ${base.status} ${JSON.stringify(base.body)}`,
      );
    }
  };
  const auth = { headers: { authorization: `Bearer ${b.users[0]?.token}` } };
  const id = b.ids[0] as number;
  await same('list page 1', PAGE_1);
  await same('deep page', deepPath(b.deepPage));
  await same('deep page, plain OFFSET', deepPath(b.deepPage), `/offset${deepPath(b.deepPage)}`);
  await same('list by name', BY_NAME);
  await same('detail', `/providers/${id}`);
  await same('stats', `/providers/${id}/stats`);
  await same('me', '/me', '/me', auth);
  for (const method of ['POST', 'DELETE']) {
    await same(`${method} follow`, `/providers/${id}/follow`, `/providers/${id}/follow`, { ...auth, method });
  }

  const trpc = await call(b.api.url, TRPC_PAGE_1);
  const rest = await call(b.api.url, PAGE_1);
  if (!isDeepStrictEqual((trpc.body as { result?: { data?: unknown } })?.result?.data, rest.body)) {
    problems.push(`tRPC list differs from REST: ${JSON.stringify(trpc.body)}`);
  }

  // Fresh nonces, tokens and timestamps differ by nature: the shapes must not.
  const wallet = b.evm[0]?.address ?? '';
  const nonce = `/auth/nonce?wallet=${encodeURIComponent(wallet)}`;
  const [sn, bn] = await Promise.all([call(b.api.url, nonce), call(b.baseline.url, nonce)]);
  if (sn.status !== 200 || bn.status !== 200 || !isDeepStrictEqual(keysOf(sn.body), keysOf(bn.body))) {
    problems.push(`nonce: ${JSON.stringify(sn.body)} / ${JSON.stringify(bn.body)}`);
  }
  for (const wallets of [b.evm, b.solana]) {
    const [first, second] = verifyBodies(b.nonces, wallets, 2);
    const post = (body: string | undefined) => ({
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const [sv, bv] = await Promise.all([
      call(b.api.url, '/auth/verify', post(first)),
      call(b.baseline.url, '/auth/verify', post(second)),
    ]);
    if (sv.status !== 200 || bv.status !== 200 || !isDeepStrictEqual(keysOf(sv.body), keysOf(bv.body))) {
      problems.push(`verify: ${JSON.stringify(sv.body)} / ${JSON.stringify(bv.body)}`);
    }
  }
  if (problems.length > 0) {
    throw new Error(`the baseline does not answer like the service:\n${problems.join('\n')}`);
  }
}
