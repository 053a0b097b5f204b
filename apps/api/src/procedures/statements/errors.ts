/** The domain errors of the statement routes that other routes do not have (CONTRACT.md, Version 4). */
import { DomainError } from '@signal/core';
import type { SignerRight } from '@signal/core/statements';

/** No signal of the provider has this id (an update naming an unknown signal, a read of one). */
export const signalNotFound = (providerId: number, signalId: string) =>
  new DomainError('SIGNAL_NOT_FOUND', `provider ${providerId} has no signal ${JSON.stringify(signalId)}`);

/** An update, close or cancel of a signal that is no longer open. */
export const signalClosed = (signalId: string, status: 'closed' | 'cancelled' | 'expired') =>
  new DomainError('SIGNAL_CLOSED', `signal ${JSON.stringify(signalId)} is ${status}: it takes no more statements`);

/** A signer that may not sign this for the provider at `receivedAt` (the authorization timeline says why). */
export function forbidden(signer: string, providerId: number, right: SignerRight): DomainError {
  const reason = right.allowed ? 'not allowed' : right.reason;
  return new DomainError('FORBIDDEN', `${signer} may not sign this for provider ${providerId} now (${reason})`);
}

/** A statement id the provider's signal statements used before (opens and updates share the ids). */
export const statementIdUsed = (providerId: number, id: string) =>
  new DomainError(
    'IDEMPOTENCY_CONFLICT',
    `provider ${providerId} has a signal statement with id ${JSON.stringify(id)} already: each statement needs its own id`,
  );

/** The errors every statement route can answer (its OpenAPI meta). */
export const STATEMENT_ERRORS = [
  'VALIDATION_ERROR',
  'INVALID_WALLET',
  'PROVIDER_NOT_FOUND',
  'FORBIDDEN',
  'INVALID_SIGNATURE',
  'IDEMPOTENCY_CONFLICT',
  'RATE_LIMITED',
  'SERVICE_UNAVAILABLE',
] as const;

/** The checks' order, as every statement route's OpenAPI description says it. */
export const STATEMENT_ORDER =
  'Checks, first failure answers: body, JSON, canonical form, schema, `log`, `provider`, `issuedAt` (400 ' +
  '`VALIDATION_ERROR`, issue paths from `statement`), `signer` format (400 `INVALID_WALLET`), provider unknown or ' +
  'archived (404), signer not allowed now (403), signature (401). The same body again, byte for byte, gets the ' +
  'first answer with 200 and appends nothing. No `Authorization` (the signature is the credential); limited per ' +
  'signer (`SIGNAL_RATE_LIMIT_PER_MINUTE`, 429). Answered once the statement’s log entry is in a signed checkpoint.';
