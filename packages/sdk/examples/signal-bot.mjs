// A signal bot: the provider's wallet delegates a key to the bot, the bot opens, amends and closes
// a signal (signed statements, each committed to the public log), and the signal is read back as
// a follower sees it (content at once) and as the public sees it (until the reveal, commitments only).
//
//   ADMIN_KEY=<32+ characters> pnpm start                     # in one terminal: the API on :3000
//   ADMIN_KEY=<the same> pnpm --filter @signal/sdk example:signal-bot
//
// SIGNAL_API_URL points it elsewhere (default http://127.0.0.1:3000). It exits non-zero if
// anything is off.
import { createClient as createReader, createServiceClient, SignalApiError } from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import { createClient, createPublisher, ed25519StatementSigner, generateEd25519Key } from '@signal/sdk/publisher';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const baseUrl = process.env.SIGNAL_API_URL ?? 'http://127.0.0.1:3000';
const adminKey = process.env.ADMIN_KEY;
if (!adminKey)
  throw new Error('signal-bot: set ADMIN_KEY to the API’s ADMIN_KEY (or an sgk_ key with providers:write)');

// The operator, once: a provider whose signals stay for followers for 10 minutes, and the
// provider's wallet as its publisher (POST /providers/{id}/publishers, providers:write).
const operator = createServiceClient({ baseUrl, key: adminKey });
const provider = await operator.createProvider({ name: 'Signal Bot Example Desk', revealDelaySeconds: 600 });
const wallet = privateKeyToAccount(generatePrivateKey()); // in real life: the provider's own wallet
const added = await fetch(`${baseUrl}/providers/${provider.id}/publishers`, {
  method: 'POST',
  headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
  body: JSON.stringify({ wallet: wallet.address }),
});
if (added.status !== 201) throw new Error(`signal-bot: adding the publisher answered ${added.status}`);

// The provider's wallet delegates a key to the bot, for 30 days. The bot keeps the secret key.
const desk = createClient({ baseUrl }).publisher(provider.id, evmSigner(wallet));
const bot = await generateEd25519Key();
const delegated = await desk.delegateKey(bot, { expiresAt: new Date(Date.now() + 30 * 86_400_000) });
console.log(
  `provider ${provider.id}: ${delegated.key} may sign until ${delegated.expiresAt} (log entry ${delegated.logIndex})`,
);

// The bot: signs with its key; a lost answer is sent again with the same bytes, never twice.
const publisher = createPublisher({ baseUrl, providerId: provider.id, signer: ed25519StatementSigner(bot.secretKey) });
const { signal, receipt } = await publisher.open({
  instrument: 'BTC-USD',
  side: 'long',
  entry: { type: 'limit', price: '97000.5' },
  stop: '95000',
  targets: ['99000', '101000'],
  sizePct: '2.5',
  expiresAt: new Date(Date.now() + 7 * 86_400_000),
  note: 'Range breakout',
});
console.log(`opened ${signal.id} (log entry ${receipt.logIndex}); public from ${signal.revealAt}`);
await publisher.update(signal.id, { stop: '96500' });
await publisher.close(signal.id, '33.3');
const { signal: after } = await publisher.close(signal.id, '0.1');
if (after.content?.openPct !== '66.6') throw new Error(`signal-bot: openPct ${after.content?.openPct}, not 66.6`);
console.log(`closed 33.3 % then 0.1 %: ${after.content.openPct} % still open, stop ${after.content.stop}`);

// A follower sees the terms now; the public sees when and what was committed, not the terms.
const follower = createReader({ baseUrl, signer: evmSigner(privateKeyToAccount(generatePrivateKey())) });
await follower.providers.follow(provider.id);
const seen = await follower.signals.get(provider.id, signal.id);
const publicView = await createReader({ baseUrl }).signals.get(provider.id, signal.id);
if (seen.content === null || publicView.content !== null) throw new Error('signal-bot: visibility is off');
console.log(`follower: ${seen.content.instrument} ${seen.content.side}, ${seen.statements.length} statements`);
console.log(
  `public until ${publicView.revealAt}: ${publicView.statements.map((s) => s.commitment.slice(0, 12)).join(', ')}`,
);

// The key is revoked when the bot is retired: its next statement is refused (403).
await desk.revokeKey(bot);
try {
  await publisher.cancel(signal.id);
  throw new Error('signal-bot: a revoked key still signs');
} catch (error) {
  if (!(error instanceof SignalApiError) || error.code !== 'FORBIDDEN') throw error;
  console.log('revoked: the bot’s next statement is refused (FORBIDDEN)');
}
