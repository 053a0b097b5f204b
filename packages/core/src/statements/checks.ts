/**
 * The pure checks of a statement route, in the contract's order, each failure answered with
 * the contract's code: body, JSON, canonical form, schema, `log`, `provider` (400
 * VALIDATION_ERROR, issue paths from `"statement"`), then `issuedAt` against the clock (400),
 * then the signer's format (400 INVALID_WALLET). What needs the database comes after: the
 * provider (404), the signer's rights at `receivedAt` (`authorization.ts`, 403), the signature
 * (`signature.ts`, 401) and the id (409).
 *
 * The steps are separate functions because the server recognises a byte-identical retry between
 * `provider` and `issuedAt` (a retry after a minute still gets its first answer);
 * `checkStatementRequest` runs them all for a caller that has no retry to look up.
 */
import bs58 from 'bs58';
import type { z } from 'zod';
import { DomainError, type ErrorIssue } from '../errors.js';
import { parseWallet } from '../wallet.js';
import {
  hasOnlySafeIntegers,
  isCanonicalParsed,
  type JsonValue,
  STATEMENT_MAX_BYTES,
  utf8ByteLength,
} from './canonical-json.js';
import { ED25519_KEY_PREFIX, instantMs, parseEd25519Key } from './fields.js';
import { STATEMENT_SCHEMAS, StatementBodySchema, type StatementOf, type StatementType } from './statement.schemas.js';

export interface StatementContext<T extends StatementType> {
  /** The log's origin (`LOG_ORIGIN`): the statement's `log` must be it. */
  origin: string;
  /** The provider id of the path: the statement's `provider` must be it. */
  providerId: number;
  /** The statement types the route takes. */
  types: readonly T[];
}

/** A statement that passed the checks up to `provider`. */
export interface ReadStatement<T extends StatementType = StatementType> {
  /** The statement's text exactly as sent: its UTF-8 bytes are what was signed and what is committed. */
  text: string;
  statement: StatementOf<T>;
  /** The body's `signer` and `signature` as sent (their format is checked later, in the contract's order). */
  signer: string;
  signature: string;
}

/** Who signed, in canonical form: an EVM wallet (EIP-55), a Solana wallet, or a delegated key. */
export type StatementSigner =
  | { kind: 'evm'; id: string }
  | { kind: 'solana'; id: string }
  | { kind: 'ed25519'; id: string; publicKey: Uint8Array };

export type SignerKind = StatementSigner['kind'];

function invalid(message: string, issues: ErrorIssue[]): DomainError {
  const summary = issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
    .join('; ');
  return new DomainError('VALIDATION_ERROR', `${message}: ${summary}`, { issues });
}

/** Zod's issues under `root`; an unknown field is named by its own path, not its object's. */
function issuesUnder(root: (string | number)[], error: z.ZodError): ErrorIssue[] {
  return error.issues.flatMap((issue): ErrorIssue[] => {
    const path = [...root, ...issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key))];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...path, key], message: 'is not a field of this statement' }));
    }
    return [{ path, message: issue.message }];
  });
}

/**
 * Body, JSON, canonical form, schema, `log` and `provider`, in that order; throws the first
 * failure as VALIDATION_ERROR.
 */
export function readStatement<T extends StatementType>(body: unknown, context: StatementContext<T>): ReadStatement<T> {
  const parsedBody = StatementBodySchema.safeParse(body);
  if (!parsedBody.success) throw invalid('Invalid request', issuesUnder([], parsedBody.error));
  const { statement: text, signer, signature } = parsedBody.data;
  const at = (...path: (string | number)[]) => ['statement', ...path];

  if (utf8ByteLength(text) > STATEMENT_MAX_BYTES) {
    throw invalid('Invalid statement', [
      { path: at(), message: `must be at most ${STATEMENT_MAX_BYTES} bytes of UTF-8` },
    ]);
  }
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch {
    throw invalid('Invalid statement', [{ path: at(), message: 'must be JSON' }]);
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw invalid('Invalid statement', [{ path: at(), message: 'must be one JSON object' }]);
  }
  if (!isCanonicalParsed(text, json) || !hasOnlySafeIntegers(json)) {
    throw invalid('Invalid statement', [
      {
        path: at(),
        message: 'must be in RFC 8785 canonical form: keys sorted, no white space, no needless escapes, integers only',
      },
    ]);
  }

  const type = json.type;
  if (typeof type !== 'string' || !(context.types as readonly string[]).includes(type)) {
    throw invalid('Invalid statement', [
      { path: at('type'), message: `must be ${context.types.map((t) => JSON.stringify(t)).join(' or ')} here` },
    ]);
  }
  const parsed = STATEMENT_SCHEMAS[type as T].safeParse(json);
  if (!parsed.success) throw invalid('Invalid statement', issuesUnder(at(), parsed.error));
  const statement = parsed.data as StatementOf<T>;

  if (statement.log !== context.origin) {
    throw invalid('Invalid statement', [
      { path: at('log'), message: `must be this log's origin, ${JSON.stringify(context.origin)}` },
    ]);
  }
  if (statement.provider !== context.providerId) {
    throw invalid('Invalid statement', [
      { path: at('provider'), message: `must be the provider of the path, ${context.providerId}` },
    ]);
  }
  return { text, statement, signer, signature };
}

/** `issuedAt` within `maxSkewSeconds` of `nowMs`, either way; else VALIDATION_ERROR naming it. */
export function checkIssuedAt(statement: { issuedAt: string }, nowMs: number, maxSkewSeconds: number): void {
  const skewMs = instantMs(statement.issuedAt) - nowMs;
  if (Math.abs(skewMs) > maxSkewSeconds * 1000) {
    throw invalid('Invalid statement', [
      {
        path: ['statement', 'issuedAt'],
        message: `must be within ${maxSkewSeconds} s of the server's clock (${new Date(nowMs).toISOString()}); it is ${(
          skewMs / 1000
        ).toFixed(3)} s ${skewMs > 0 ? 'ahead' : 'behind'}`,
      },
    ]);
  }
}

/** The body's `signer` in canonical form, or INVALID_WALLET. */
export function parseStatementSigner(signer: string): StatementSigner {
  if (signer.startsWith(ED25519_KEY_PREFIX)) {
    const publicKey = parseEd25519Key(signer);
    // Re-encoding gives the one spelling of the key (base58 has no other for the same bytes).
    if (publicKey && `${ED25519_KEY_PREFIX}${bs58.encode(publicKey)}` === signer) {
      return { kind: 'ed25519', id: signer, publicKey };
    }
    throw new DomainError('INVALID_WALLET', 'a delegated key signer must be "ed25519:" and the base58 of 32 bytes');
  }
  const wallet = parseWallet(signer);
  return { kind: wallet.chain, id: wallet.wallet };
}

export interface StatementRequestContext<T extends StatementType> extends StatementContext<T> {
  /** The server's clock, in milliseconds since the epoch. */
  nowMs: number;
  /** `SIGNAL_MAX_SKEW_SECONDS`. */
  maxSkewSeconds: number;
}

/** Every pure check in the contract's order: the statement read, and its signer parsed. */
export function checkStatementRequest<T extends StatementType>(
  body: unknown,
  context: StatementRequestContext<T>,
): ReadStatement<T> & { parsedSigner: StatementSigner } {
  const read = readStatement(body, context);
  checkIssuedAt(read.statement, context.nowMs, context.maxSkewSeconds);
  return { ...read, parsedSigner: parseStatementSigner(read.signer) };
}
