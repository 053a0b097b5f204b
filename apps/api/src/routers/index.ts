import { useCompiledAnswerChecks } from '../answer-checks.js';
import { router } from '../trpc.js';
import { adminKeysRouter } from './admin-keys.router.js';
import { authRouter } from './auth.router.js';
import { eventsRouter } from './events.router.js';
import { meRouter } from './me.router.js';
import { providersRouter } from './providers.router.js';
import { sessionsRouter } from './sessions.router.js';

export const appRouter = router({
  auth: authRouter,
  me: meRouter,
  providers: providersRouter,
  sessions: sessionsRouter,
  admin: router({ keys: adminKeysRouter }),
  events: eventsRouter,
});

/**
 * Every answer is checked against its schema by compiled code first, zod after when that is not
 * sure (answer-checks.ts). These procedures' answer schemas are beyond the compiler: zod alone.
 */
export const answersCheckedByZodAlone = useCompiledAnswerChecks(appRouter);

/** The router's type: what the SDK's tRPC client infers every call from. */
export type AppRouter = typeof appRouter;
