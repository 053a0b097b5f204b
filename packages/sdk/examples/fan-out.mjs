// Fan-out: deliver a signal to every follower of a provider, as an internal service would.
// Run against `ADMIN_KEY=<the server's ADMIN_KEY> pnpm start`:
//   ADMIN_KEY=… pnpm --filter @signal/sdk example:fan-out [-- providerId]
// In production the service is given a followers:read key (created once, kept in a secret
// store) instead of ADMIN_KEY; the script creates one here to show how.
import { createClient, createServiceClient, SignalApiError } from '@signal/sdk';

const baseUrl = process.env.SIGNAL_API_URL ?? 'http://127.0.0.1:3000';
// Default: the most followed provider of the public catalogue.
const providerId = Number(
  process.argv[2] ?? (await createClient({ baseUrl }).providers.list({ limit: 1 })).items[0]?.id,
);

// The operator's side, once: a key that can only read followers. `key` is shown this once.
const admin = createServiceClient({ baseUrl, key: process.env.ADMIN_KEY ?? '' });
const created = await admin.createKey({ name: 'fan-out (example)', scopes: ['followers:read'] });
console.log(`created key ${created.id} (${created.start}…) with scopes ${created.scopes.join(', ')}`);

// The fan-out service: every follower, 1,000 a request, each exactly once.
const service = createServiceClient({ baseUrl, key: created.key });
const signal = { providerId, text: 'BTC-USD long at 64,200, stop 62,900', at: new Date().toISOString() };

/**
 * @param {import('@signal/sdk').Follower} follower
 * @param {typeof signal} message
 */
async function deliver(follower, message) {
  // Your push, e-mail or queue here; this example only counts by chain.
  byChain[follower.chain] = (byChain[follower.chain] ?? 0) + 1;
  return message;
}

/** @type {Record<string, number>} */
const byChain = {};
let delivered = 0;
try {
  for await (const follower of service.followers(providerId)) {
    await deliver(follower, signal);
    delivered++;
  }
} catch (error) {
  // UNAUTHORIZED: key unknown, revoked or expired; FORBIDDEN: it lacks followers:read;
  // PROVIDER_NOT_FOUND: no such provider; RATE_LIMITED: wait error.retryAfter seconds.
  if (error instanceof SignalApiError) console.error(`${error.code} (${error.status}): ${error.message}`);
  throw error;
}
console.log(`provider ${providerId}: signal delivered to ${delivered} followers`, byChain);

// Done with the example: revoke its key (refused from the next request on, on every server).
console.log(await admin.revokeKey(created.id));
