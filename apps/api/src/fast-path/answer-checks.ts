/**
 * The procedures' answers checked by compiled code (core's `compileAnswerCheck`) before zod: a
 * list page no longer costs zod's copy of 21 objects per request (LAB-NOTES.md, "tRPC 11 and zod
 * 4"). Switched on once, for the whole router, where it is built (procedures/routers/index.ts); the schema
 * of each procedure is the one its `.output()` names, so no list is kept by hand.
 *
 * tRPC checks an answer in the middleware `.output()` adds (`outputValidatorMiddleware`). Here
 * that middleware is wrapped: an answer the compiled check passes goes out as it is (zod would
 * return an equal value); any other answer goes through tRPC's own middleware, so zod's verdict
 * and tRPC's "Output validation failed" error stay exactly theirs.
 */
import { compileAnswerCheck } from '@signal/core/answer-check';
import type { AnyRouter } from '@trpc/server';
import type { ProcedureDef, Middleware as TrpcMiddleware } from './run-procedure.js';

type Middleware = TrpcMiddleware & { [COMPILED]?: true };

const COMPILED = Symbol('compiled answer check');
/** Answers the compiled check was not sure of, by procedure: each went to zod instead. */
const decidedByZod = new Map<string, number>();
/** The name tRPC 11 gives the middleware `.output()` adds. */
const TRPC_OUTPUT_MIDDLEWARE = 'outputValidatorMiddleware';

/**
 * Puts the compiled check in front of tRPC's answer check on every procedure of `router` that
 * has an output schema. Returns the procedures left to zod alone (their schema is beyond the
 * compiler); the server names them in its start-up log. Throws when a procedure with an output
 * schema has no answer check of tRPC's to wrap: a tRPC upgrade that moved it must be looked at.
 */
export function useCompiledAnswerChecks(router: AnyRouter): string[] {
  const leftToZod: string[] = [];
  const procedures = router._def.procedures as Record<
    string,
    { _def: Omit<ProcedureDef, 'middlewares'> & { middlewares: Middleware[] } }
  >;
  for (const [path, procedure] of Object.entries(procedures)) {
    const { output, middlewares } = procedure._def;
    if (!output) continue;
    const at = middlewares.findIndex((m) => m.name === TRPC_OUTPUT_MIDDLEWARE || m[COMPILED]);
    if (at < 0) throw new Error(`${path}: tRPC's answer check (${TRPC_OUTPUT_MIDDLEWARE}) was not found`);
    const zodCheck = middlewares[at] as Middleware;
    if (zodCheck[COMPILED]) continue;
    const check = compileAnswerCheck(output);
    if (!check) {
      leftToZod.push(path);
      continue;
    }
    const compiled: Middleware = async (opts) => {
      const result = await opts.next();
      if (!result.ok || check(result.data)) return result;
      decidedByZod.set(path, (decidedByZod.get(path) ?? 0) + 1);
      return zodCheck({ ...opts, next: async () => result });
    };
    compiled[COMPILED] = true;
    middlewares[at] = compiled;
  }
  return leftToZod;
}

/**
 * How many answers of each procedure went to zod because the compiled check was not sure of
 * them (an invalid answer, or one in another shape than the schema's, such as keys in another
 * order). A test asks it after calling every procedure: real answers all take the fast path.
 */
export function answersDecidedByZod(): ReadonlyMap<string, number> {
  return decidedByZod;
}
