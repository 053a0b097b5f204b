/**
 * The OpenAPI document's fixed parts: its description, contact, licence and tags, the host's own
 * endpoints documented beside the procedures, and the headers some operations share. The
 * operations themselves come from the routers (document.ts).
 */
import { type ErrorCode, HealthResponseSchema, JwksSchema, ReadyResponseSchema } from '@signal/core';
import * as examples from '@signal/core/examples';
import type { OpenAPIV3 } from 'openapi-types';
import type { ZodType } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN } from '../procedures/write-transaction.js';
import { MAX_HEADER_BYTES, MAX_URL_BYTES } from '../wire/limits.js';

/** Where to ask, and the repository's licence (LICENSE at its root; the SDK's package.json says the same). */
export const CONTACT: OpenAPIV3.ContactObject = {
  name: 'Signal provider service',
  url: 'https://github.com/signal-provider/signal/issues',
};
export const LICENSE: OpenAPIV3.LicenseObject = {
  name: 'MIT',
  url: 'https://github.com/signal-provider/signal/blob/main/LICENSE',
};

export const TAGS: OpenAPIV3.TagObject[] = [
  {
    name: 'auth',
    description:
      'Sign in with a wallet: get a nonce, sign its message with the wallet, exchange the signature for a ' +
      '30-day bearer token.',
  },
  {
    name: 'me',
    description: 'The signed-in user, its sessions and the providers it follows (bearer token required).',
  },
  {
    name: 'providers',
    description: 'The catalogue of signal providers, their statistics and performance, and following them.',
  },
  {
    name: 'operators',
    description:
      'Filling the catalogue (scope `providers:write`) and publishing performance (scope `stats:write`), with a ' +
      'service key; `Idempotency-Key` makes a POST safe to retry.',
  },
  {
    name: 'publishers',
    description:
      'Statements signed by a provider’s publisher wallets or the keys they delegated: delegating and revoking keys. ' +
      'No `Authorization`: the signature is the credential. Each statement goes to the public log.',
  },
  {
    name: 'signals',
    description:
      'Trading signals: opened, updated, closed and cancelled by signed statements (no `Authorization`), each ' +
      'committed to the public log; read by provider, by id and by the signed-in follower. Before its reveal a ' +
      'signal’s content is for followers and `signals:read` keys only: docs/signals.md.',
  },
  { name: 'service', description: 'Liveness, readiness and the public keys that verify tokens.' },
  {
    name: 'admin',
    description: 'Service keys for internal services, managed by operators (scope `keys:manage`; ADMIN_KEY holds it).',
  },
  {
    name: 'events',
    description:
      'Every change announced, for internal services: the pull feed (scope `events:read`). Types, payloads and ' +
      'ordering: docs/events.md.',
  },
  {
    name: 'webhooks',
    description:
      'Events POSTed to your endpoints, signed as Standard Webhooks specifies (scope `webhooks:manage`): endpoints, ' +
      'their `whsec_` secrets and deliveries logs. Retries, disabling and URL rules: docs/events.md.',
  },
  {
    name: 'log',
    description:
      'The public log of record: proofs as JSON. The signed checkpoint (`GET /log/checkpoint`), the verifier ' +
      'key (`GET /log/key`) and the C2SP tiles (`GET /log/tile/…`) are text and bytes: docs/log.md.',
  },
];

export const DESCRIPTION = `Wallet-authenticated API for a catalogue of trading-signal providers. Every procedure here is also
served over tRPC at \`/trpc/<procedure>\` with the same shapes.

**Signing in**

1. \`GET /auth/nonce?wallet=<address>\` returns a single-use \`nonce\` and the exact \`message\` to sign.
2. Sign \`message\` with the wallet: EVM \`personal_sign\` (hex), or Solana ed25519 over its UTF-8 bytes (base58).
3. \`POST /auth/verify\` with \`{ wallet, nonce, signature }\` returns a 30-day JWT in \`token\`.
4. Send \`Authorization: Bearer <token>\`. On this page: **Authorize**, paste the token, then "Try it out".

**Errors** are always \`{ "code", "message", "issues"? }\` (\`ErrorBody\`) with a stable \`code\`; each operation
lists the codes it can answer, with an example of each. Every operation lists 400 \`VALIDATION_ERROR\` (also
for a request that cannot be read at all: URL over ${MAX_URL_BYTES / 1024} KiB, headers over ${MAX_HEADER_BYTES / 1024} KiB),
404 \`NOT_FOUND\` (no route for the URL) and 500 \`INTERNAL_ERROR\`, since the host answers these before choosing
the operation.

**Types**: every answer and body is a named schema under \`components.schemas\` (\`Provider\`, \`ProviderPage\`,
\`User\`, \`ErrorBody\`, …), named as in the service's own wire schemas, for code generators.`;

export interface ServiceEndpoint {
  path: string;
  summary: string;
  description: string;
  schema: ZodType;
  example: unknown;
  errors: ErrorCode[];
}

/** The fixed endpoints of the HTTP host (not procedures), documented alongside them. */
export const SERVICE_ENDPOINTS: ServiceEndpoint[] = [
  {
    path: '/health',
    summary: 'Liveness',
    description: 'Answers 200 while the process serves requests; does not touch the database.',
    schema: HealthResponseSchema,
    example: { status: 'ok' },
    errors: [],
  },
  {
    path: '/ready',
    summary: 'Readiness',
    description:
      'Answers 200 when the database answers within 2 s, else 503 `SERVICE_UNAVAILABLE`; recovers by itself ' +
      'when the database is back. For load balancers and orchestrators.',
    schema: ReadyResponseSchema,
    example: { status: 'ready' },
    errors: ['SERVICE_UNAVAILABLE'],
  },
  {
    path: '/.well-known/jwks.json',
    summary: 'Token verification keys',
    description:
      'The public keys (JWKS, RFC 7517) that verify the tokens this service issues: the current signing key ' +
      'and any previous ones still accepted. A token header `kid` names its key. Cacheable for 5 minutes.',
    schema: JwksSchema,
    example: examples.jwks,
    errors: [],
  },
];

export const CACHING_HEADERS: Record<string, OpenAPIV3.HeaderObject> = {
  ETag: {
    description: 'Version of this answer (without an Authorization header only); send it back in If-None-Match',
    schema: { type: 'string', example: 'W/"1bX0c9qA-c48213"' },
  },
  'Cache-Control': {
    description:
      'Without an Authorization header: `public, max-age=N, stale-while-revalidate=N` (N = PUBLIC_CACHE_MAX_AGE, ' +
      'default 5), which browsers and CDNs may honour; with one: `no-store`',
    schema: { type: 'string', example: 'public, max-age=5, stale-while-revalidate=5' },
  },
};

/** The header of the procedures whose meta says `idempotent` (write-transaction.ts honours it there only). */
export const IDEMPOTENCY_KEY_HEADER: OpenAPIV3.ParameterObject = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes this POST safe to retry: a retry with the same key and the same body within 24 h gets the first ' +
    'answer (same status and body) and changes nothing, also while the first is still running (it waits for ' +
    'it); the same key with another body or on another route → 409 `IDEMPOTENCY_CONFLICT`. Keys are per ' +
    'credential (per service key; per user for wallet tokens). 1 to 255 printable ASCII characters, else 400 ' +
    '`VALIDATION_ERROR`. A fresh random value per logical request, e.g. a UUID.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: IDEMPOTENCY_KEY_PATTERN.source },
  example: '5f0c6a1e-2b7d-4c39-9a4e-8d1f3b6e2c70',
};
