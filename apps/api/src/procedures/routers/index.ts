import { mergeRouters, router } from '../trpc.js';
import { adminKeysRouter } from './admin-keys.router.js';
import { authRouter } from './auth.router.js';
import { eventsRouter } from './events.router.js';
import { followersRouter } from './followers.router.js';
import { logRouter } from './log.router.js';
import { meRouter } from './me.router.js';
import { providersRouter } from './providers.router.js';
import { publisherKeysRouter } from './publisher-keys.router.js';
import { publishersRouter } from './publishers.router.js';
import { sessionsRouter } from './sessions.router.js';
import { signalLiveRouter } from './signal-live.router.js';
import { signalsRouter } from './signals.router.js';
import { walletsRouter } from './wallets.router.js';
import { webhooksRouter } from './webhooks.router.js';

export const appRouter = router({
  auth: authRouter,
  me: meRouter,
  providers: providersRouter,
  sessions: sessionsRouter,
  wallets: walletsRouter,
  keys: adminKeysRouter,
  events: eventsRouter,
  followers: followersRouter,
  webhooks: webhooksRouter,
  log: logRouter,
  publishers: publishersRouter,
  publisherKeys: publisherKeysRouter,
  // The signal routes and the live subscription (signal-live.router.ts) in one namespace.
  signals: mergeRouters(signalsRouter, signalLiveRouter),
});

/** The router's type: what the SDK's tRPC client infers every call from. */
export type AppRouter = typeof appRouter;
