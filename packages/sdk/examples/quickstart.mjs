// Quick start for scripts: sign in with a freshly generated wallet, then list, follow and
// unfollow providers, list its sessions and sign out on a running API.
//
//   pnpm start                                   # in one terminal: the API on :3000
//   pnpm --filter @signal/sdk example            # EVM wallet (viem LocalAccount)
//   pnpm --filter @signal/sdk example -- --solana  # Solana wallet (@solana/web3.js Keypair)
//
// SIGNAL_API_URL points it elsewhere (default http://127.0.0.1:3000). CI runs it against the
// built API; it exits non-zero if anything is off.
import { createClient, isSignalApiError } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { solanaSigner } from '@signal/sdk/solana';
import { Keypair } from '@solana/web3.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const baseUrl = process.env.SIGNAL_API_URL ?? 'http://127.0.0.1:3000';
const signer = process.argv.includes('--solana')
  ? solanaSigner(Keypair.generate())
  : evmSigner(privateKeyToAccount(generatePrivateKey()));

const signal = createClient({ baseUrl, signer });

/** @param {boolean} condition @param {string} message */
function check(condition, message) {
  if (!condition) throw new Error(`quickstart: ${message}`);
}

try {
  const session = await signal.signIn();
  console.log(`signed in to ${baseUrl} as ${session.user.wallet} (${session.user.chain}, user ${session.user.id})`);
  console.log(`token valid until ${session.expiresAt}`);

  const page = await signal.providers.list({ limit: 5 });
  console.log(`\n${page.total} providers; the five most followed:`);
  for (const provider of page.items) {
    console.log(`  #${provider.id} ${provider.name} (${provider.followerCount} followers)`);
  }
  const top = page.items[0];
  if (!top) throw new Error('quickstart: the catalogue is empty; start the API with SEED_PROVIDERS > 0');

  const stats = await signal.providers.stats(top.id);
  console.log(`\n${top.name}: win rate ${(stats.winRate * 100).toFixed(1)} %, ${stats.totalSignals} signals`);

  const followed = await signal.providers.follow(top.id);
  console.log(`followed #${top.id}: now ${followed.followerCount} followers`);
  check(followed.following && followed.followerCount === top.followerCount + 1, 'follow did not count');

  const mine = await signal.me.following();
  console.log(`I follow ${mine.total}: ${mine.items.map((p) => `#${p.id} since ${p.followedAt}`).join(', ')}`);
  check(mine.items.length === 1 && mine.items[0]?.id === top.id, 'my following list is wrong');

  const unfollowed = await signal.providers.unfollow(top.id);
  console.log(`unfollowed #${top.id}: back to ${unfollowed.followerCount} followers`);
  check(!unfollowed.following && unfollowed.followerCount === top.followerCount, 'unfollow did not count');

  const sessions = await signal.sessions.list();
  const here = sessions.items.find((session) => session.current);
  console.log(`\n${sessions.total} session(s); this one from ${here?.userAgent ?? 'an unknown agent'}`);
  check(here !== undefined, 'the session list does not show this session');

  const signedOut = await signal.signOut();
  check(signedOut.serverConfirmed && signedOut.revoked === 1, 'the API did not end the session');
  console.log('signed out (the token is refused from now on); done.');
} catch (error) {
  if (isSignalApiError(error)) {
    console.error(`API error ${error.code} (HTTP ${error.status}): ${error.message}`);
    process.exit(1);
  }
  throw error;
}
