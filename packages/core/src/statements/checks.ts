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
import { SIGNAL_STATEMENT_ACCEPTS } from './fast-schema.js';
import { ED25519_KEY_PREFIX, instantMs, parseEd25519Key } from './fields.js';
import {
  type SignalStatementType,
  STATEMENT_CHECKS,
  type StatementBody,
  StatementBodySchema,
  type StatementOf,
  type StatementType,
} from './statement.schemas.js';

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
export interface StatementSigner {
  readonly kind: 'evm' | 'solana' | 'ed25519';
  /** The canonical spelling: what the log, the rows and the timeline name. */
  readonly id: string;
}

export type SignerKind = StatementSigner['kind'];

const UNKNOWN_FIELD = 'is not a field of this statement';

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
      return issue.keys.map((key) => ({ path: [...path, key], message: UNKNOWN_FIELD }));
    }
    return [{ path, message: issue.message }];
  });
}

/** The body's three strings; zod is asked only to word what is wrong (it costs a microsecond a request). */
function readBody(body: unknown): StatementBody {
  if (typeof body === 'object' && body !== null) {
    const { statement, signer, signature } = body as Record<string, unknown>;
    if (typeof statement === 'string' && typeof signer === 'string' && typeof signature === 'string') {
      return { statement, signer, signature };
    }
  }
  const parsedBody = StatementBodySchema.safeParse(body);
  if (!parsedBody.success) throw invalid('Invalid request', issuesUnder([], parsedBody.error));
  return parsedBody.data;
}

/**
 * Body, JSON, canonical form, schema, `log` and `provider`, in that order; throws the first
 * failure as VALIDATION_ERROR.
 */
export function readStatement<T extends StatementType>(body: unknown, context: StatementContext<T>): ReadStatement<T> {
  const { statement: text, signer, signature } = readBody(body);
  const at = (...path: (string | number)[]) => ['statement', ...path];

  // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4): a text of up
  // to a third of the bound in units is within it without counting.
  if (text.length > STATEMENT_MAX_BYTES / 3 && utf8ByteLength(text) > STATEMENT_MAX_BYTES) {
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
  const { fields, schema } = STATEMENT_CHECKS[type as T];
  let known = true;
  for (const key in json) {
    if (!fields.has(key)) {
      known = false;
      break;
    }
  }
  // The signal types' own predicates take what their schema takes (fast-schema.ts); zod judges
  // the rest and words what is wrong.
  const accepts = known ? SIGNAL_STATEMENT_ACCEPTS[type as SignalStatementType] : undefined;
  let statement: StatementOf<T>;
  if (accepts?.(json)) statement = json as unknown as StatementOf<T>;
  else {
    const unknown: ErrorIssue[] = [];
    for (const key in json) {
      if (!fields.has(key)) unknown.push({ path: at(key), message: UNKNOWN_FIELD });
    }
    const parsed = schema.safeParse(json);
    if (unknown.length > 0 || !parsed.success) {
      throw invalid('Invalid statement', [...unknown, ...(parsed.success ? [] : issuesUnder(at(), parsed.error))]);
    }
    statement = parsed.data as StatementOf<T>;
  }

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
        // No clock reading in the text: the same statement refused twice reads the same (the
        // answer's Date header is the server's clock, for a publisher setting its own).
        message: `must be within ${maxSkewSeconds} s of the server's clock; it is more than ${maxSkewSeconds} s ${
          skewMs > 0 ? 'ahead' : 'behind'
        } (the answer's Date header is the server's clock)`,
      },
    ]);
  }
}

// Parsing a signer costs a checksum (EVM) or a base58 decoding (the others), and a publisher
// signs many statements: the parsed forms are kept, bounded like the verifier's key cache.
const SIGNER_CACHE_SIZE = 10_000;
const parsedSigners = new Map<string, StatementSigner>();

function parseSignerUncached(signer: string): StatementSigner {
  if (signer.startsWith(ED25519_KEY_PREFIX)) {
    // base58 spells given bytes one way only (leading zero bytes are leading "1"s), so a key that
    // decodes is in canonical form.
    if (parseEd25519Key(signer)) return { kind: 'ed25519', id: signer };
    throw new DomainError('INVALID_WALLET', 'a delegated key signer must be "ed25519:" and the base58 of 32 bytes');
  }
  const wallet = parseWallet(signer);
  return { kind: wallet.chain, id: wallet.wallet };
}

/** The body's `signer` in canonical form, or INVALID_WALLET. */
export function parseStatementSigner(signer: string): StatementSigner {
  const known = parsedSigners.get(signer);
  if (known) return known;
  const parsed = Object.freeze(parseSignerUncached(signer));
  if (parsedSigners.size >= SIGNER_CACHE_SIZE) parsedSigners.delete(parsedSigners.keys().next().value as string);
  parsedSigners.set(signer, parsed);
  return parsed;
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
