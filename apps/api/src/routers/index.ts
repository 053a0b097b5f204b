import { router } from '../trpc.js';
import { authRouter } from './auth.router.js';
import { meRouter } from './me.router.js';
import { providersRouter } from './providers.router.js';
import { sessionsRouter } from './sessions.router.js';

export const appRouter = router({
  auth: authRouter,
  me: meRouter,
  providers: providersRouter,
  sessions: sessionsRouter,
});

/** The router's type: what the SDK's tRPC client infers every call from. */
export type AppRouter = typeof appRouter;
