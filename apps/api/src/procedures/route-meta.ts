/**
 * The parts of a route's meta that a kind of route shares, stated once, for the two kinds that
 * take no credential: public reads, and the signed-statement routes (whose statement is the
 * credential). A route for a user's token or a service key says `protect: true` itself.
 */
import type { ErrorCode } from '@signal/core';
import { STATEMENT_ERRORS } from './statements/errors.js';
import type { Meta } from './trpc.js';

type OpenApi = NonNullable<Meta['openapi']>;
/** A route's `openapi` block without what its kind sets. */
export type Words = Omit<OpenApi, 'method' | 'protect'>;

/** A public read: GET, without a credential (its operation has no security in the document). */
export const publicRead = (openapi: Words): OpenApi => ({ method: 'GET', ...openapi, protect: false });

/**
 * A read of the signed-in user's own data: GET with the bearer token (`authedProcedure`), and 404
 * `WALLET_NOT_FOUND` when the token is valid but its user no longer exists.
 */
export const signedInRead = (openapi: Words): Meta => ({
  openapi: { method: 'GET', ...openapi, protect: true },
  errors: ['WALLET_NOT_FOUND'],
});

/** A retry of a statement route that creates: the first answer again, with 200. */
const REPLAYED = {
  status: 200 as const,
  description: 'The same body again, byte for byte: the first answer, nothing appended',
};

/**
 * A signed statement's route: POST without a credential (the statement's signature is one), the
 * errors every statement route can answer and then its own; one that creates (201) answers a
 * retry with 200.
 */
export function statementRoute(openapi: Words, errors: ErrorCode[] = []): Meta {
  return {
    openapi: { method: 'POST', ...openapi, protect: false },
    errors: [...STATEMENT_ERRORS, ...errors],
    ...(openapi.successStatus === 201 ? { alsoAnswers: [REPLAYED] } : {}),
  };
}
