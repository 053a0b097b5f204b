/**
 * The OpenAPI document served at /openapi.json and rendered at /docs. trpc-to-openapi generates
 * the operations from the routers (paths, parameters and schemas from core's zod 4 schemas);
 * this module adds the examples of the procedures' meta and replaces its generic error
 * responses (tRPC's codes) with the contract's: per operation, one response per status with the ErrorBody schema
 * narrowed to the codes that operation can answer, and an example of each code. Last,
 * openapi.components.ts names the schemas (core's wire types as `$ref` components) and makes
 * request bodies say that unknown fields are ignored.
 */
import { STATUS_CODES } from 'node:http';
import {
  DEFAULT_PAGE_LIMIT,
  ERROR_CODES,
  ERROR_STATUS,
  type ErrorBody,
  ErrorBodySchema,
  type ErrorCode,
  HealthResponseSchema,
  JwksSchema,
  ReadyResponseSchema,
} from '@signal/core';
import type { AnyProcedure } from '@trpc/server';
import type { OpenAPIV3 } from 'openapi-types';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { type ZodType, z } from 'zod';

import * as examples from '../procedures/examples.js';
import { appRouter } from '../procedures/routers/index.js';
import type { Meta } from '../procedures/trpc.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../procedures/write-transaction.js';
import { MAX_BODY_BYTES } from '../wire/body.js';
import { noRoute, toWireError, validationError } from '../wire/errors.js';
import { MAX_HEADER_BYTES, MAX_URL_BYTES, parseRequestTarget } from '../wire/limits.js';
import { acceptUnknownBodyFields, nameComponentSchemas } from './components.js';

export type OpenApiDocument = OpenAPIV3.Document;

export const BEARER_SCHEME = 'bearerAuth';
/** Internal services' credential: a service key (or ADMIN_KEY) on the routes that take a scope. */
export const SERVICE_KEY_SCHEME = 'serviceKey';
const ERROR_BODY_REF = '#/components/schemas/ErrorBody';

/** When each code is answered, and the body it is answered with (messages as the service words them). */
const ERROR_DOCS: Record<ErrorCode, { when: string; example: ErrorBody }> = {
  VALIDATION_ERROR: {
    when:
      'a query, path or body field is invalid (`issues` lists them) or the body is not JSON; and on any operation, ' +
      `a request that cannot be read: a URL over ${MAX_URL_BYTES / 1024} KiB (\`issues\` path \`["url"]\`), ` +
      `headers over ${MAX_HEADER_BYTES / 1024} KiB, malformed HTTP, or one not received in time`,
    example: {
      code: 'VALIDATION_ERROR',
      message: 'Invalid request: limit: must be at most 100',
      issues: [{ path: ['limit'], message: 'must be at most 100' }],
    },
  },
  INVALID_WALLET: {
    when: 'the wallet is neither an EVM address nor a Solana public key, or fails its EIP-55 checksum',
    example: { code: 'INVALID_WALLET', message: 'EVM address fails its EIP-55 checksum' },
  },
  INVALID_NONCE: {
    when: 'the nonce is unknown, expired, already used, or was issued for another wallet',
    example: { code: 'INVALID_NONCE', message: 'nonce has expired' },
  },
  INVALID_SIGNATURE: {
    when: 'the signature is malformed or not by this wallet (the nonce stays usable)',
    example: { code: 'INVALID_SIGNATURE', message: 'signature is not a valid evm signature by this wallet' },
  },
  UNAUTHORIZED: {
    when: 'the bearer token is missing, malformed, tampered with or signed by an unknown key',
    example: { code: 'UNAUTHORIZED', message: 'Authorization header with a Bearer token is required' },
  },
  TOKEN_EXPIRED: {
    when: 'the bearer token has expired',
    example: { code: 'TOKEN_EXPIRED', message: 'token has expired; sign in again' },
  },
  SESSION_REVOKED: {
    when: "the bearer token's session was signed out (POST /auth/logout, DELETE /me/sessions/{id}) on any server",
    example: { code: 'SESSION_REVOKED', message: 'this session was signed out; sign in again' },
  },
  SESSION_NOT_FOUND: {
    when: 'the signed-in user has no session with this id (unknown, or another user’s)',
    example: { code: 'SESSION_NOT_FOUND', message: 'you have no session c81d4e2a-5f60-4b7e-9a13-2e4f6b8d0c15' },
  },
  FORBIDDEN: {
    when:
      'the credential is valid but not allowed here: a service key without the route’s scope, a user’s token on ' +
      'a route that needs a service key, or a service key on a user route',
    example: { code: 'FORBIDDEN', message: 'this route needs a service key with the scope providers:write' },
  },
  WALLET_ALREADY_LINKED: {
    when: 'the wallet is linked to another user',
    example: { code: 'WALLET_ALREADY_LINKED', message: 'this wallet belongs to another user' },
  },
  LAST_WALLET: {
    when: 'the wallet is the user’s only one; link another before removing it',
    example: { code: 'LAST_WALLET', message: 'a user keeps at least one wallet; link another first' },
  },
  IDEMPOTENCY_CONFLICT: {
    when: 'the Idempotency-Key was used before with another body or route, or its first request is still running',
    example: { code: 'IDEMPOTENCY_CONFLICT', message: 'this Idempotency-Key was used with another request' },
  },
  WALLET_NOT_FOUND: {
    when: 'the token is valid but its user no longer exists',
    example: { code: 'WALLET_NOT_FOUND', message: 'the user of this token no longer exists; sign in again' },
  },
  PROVIDER_NOT_FOUND: {
    when: 'no provider has this id',
    example: { code: 'PROVIDER_NOT_FOUND', message: 'provider 5 does not exist' },
  },
  NOT_FOUND: {
    when:
      'the URL names no route: a mistyped path, or a path parameter holding a `/` (routing comes before the ' +
      'operation, so any operation can get it; so does a method a path does not take)',
    example: toWireError(noRoute('GET', '/providers/5/statistics', [])).body,
  },
  PAYLOAD_TOO_LARGE: {
    when:
      `the request body is over ${MAX_BODY_BYTES / 1024} KiB (any method but GET: the host reads a body on each; ` +
      'POST /providers/{id}/performance takes up to 64 KiB)',
    example: { code: 'PAYLOAD_TOO_LARGE', message: `Request body is larger than ${MAX_BODY_BYTES / 1024} KiB` },
  },
  RATE_LIMITED: {
    when:
      'a rate limit is used up: sign-in requests per client address (`AUTH_RATE_LIMIT_PER_MINUTE`), follows and ' +
      'unfollows per user (`FOLLOW_RATE_LIMIT_PER_MINUTE`), catalogue reads per client address ' +
      '(`READ_RATE_LIMIT_PER_MINUTE`); see Retry-After and RateLimit',
    example: {
      code: 'RATE_LIMITED',
      message: 'More than 60 auth.nonce requests a minute from this address; retry in 42 s',
    },
  },
  INTERNAL_ERROR: {
    when: 'an unexpected failure (logged with its cause; the body carries no details)',
    example: { code: 'INTERNAL_ERROR', message: 'Internal server error' },
  },
  SERVICE_UNAVAILABLE: {
    when: 'the database is unreachable; the service recovers by itself',
    example: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable; retry shortly' },
  },
};

const ERROR_HEADERS: Partial<Record<ErrorCode, Record<string, OpenAPIV3.HeaderObject>>> = {
  UNAUTHORIZED: {
    'WWW-Authenticate': {
      description: 'Bearer challenge (RFC 6750), on every 401 of an authenticated route',
      schema: { type: 'string', example: 'Bearer error="invalid_token"' },
    },
  },
  SESSION_REVOKED: {
    'WWW-Authenticate': {
      description: 'Bearer challenge (RFC 6750): the token is no longer valid',
      schema: { type: 'string', example: 'Bearer error="invalid_token", error_description="session revoked"' },
    },
  },
  RATE_LIMITED: {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', example: 42 } },
    RateLimit: {
      description:
        'Which limit, what is left of it and seconds until its window ends (IETF draft-ietf-httpapi-ratelimit-headers)',
      schema: { type: 'string', example: '"follow";r=0;t=42' },
    },
    'RateLimit-Policy': {
      description: 'The limit: quota `q` per window of `w` seconds',
      schema: { type: 'string', example: '"follow";q=60;w=60' },
    },
  },
  SERVICE_UNAVAILABLE: {
    'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', example: 1 } },
  },
};

/** Where to ask, and the repository's licence (LICENSE at its root; the SDK's package.json says the same). */
const CONTACT: OpenAPIV3.ContactObject = {
  name: 'Signal provider service',
  url: 'https://github.com/signal-provider/signal/issues',
};
const LICENSE: OpenAPIV3.LicenseObject = {
  name: 'MIT',
  url: 'https://github.com/signal-provider/signal/blob/main/LICENSE',
};

const TAGS: OpenAPIV3.TagObject[] = [
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
];

const DESCRIPTION = `Wallet-authenticated API for a catalogue of trading-signal providers. Every procedure here is also
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

/** A zod schema as an OpenAPI 3.0 schema object, as the generator converts the routers' answers. */
function schemaOf(schema: ZodType): OpenAPIV3.SchemaObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'output' }) as Record<
    string,
    unknown
  >;
  return json as OpenAPIV3.SchemaObject;
}

interface ServiceEndpoint {
  path: string;
  summary: string;
  description: string;
  schema: ZodType;
  example: unknown;
  errors: ErrorCode[];
}

/** The fixed endpoints of the HTTP host (not procedures), documented alongside them. */
const SERVICE_ENDPOINTS: ServiceEndpoint[] = [
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

/**
 * What the host can answer to any request before (or beside) its operation: an unreadable
 * request (http/limits.ts), no route for the URL (http/rest.ts), a bug.
 */
const ANY_OPERATION: readonly ErrorCode[] = ['VALIDATION_ERROR', 'NOT_FOUND', 'INTERNAL_ERROR'];

/** The VALIDATION_ERROR of an unreadable request, as the host words it. */
function urlTooLongExample(): ErrorBody {
  try {
    parseRequestTarget(`/${'x'.repeat(MAX_URL_BYTES)}`);
  } catch (error) {
    return toWireError(error).body;
  }
  throw new Error('OpenAPI: parseRequestTarget took a URL over MAX_URL_BYTES');
}

/** Error codes an operation can answer: its own (meta.errors) plus those of every route of its kind. */
function errorCodesOf(
  operation: OpenAPIV3.OperationObject,
  method: string,
  own: ErrorCode[],
  scoped: boolean,
): ErrorCode[] {
  const codes = new Set<ErrorCode>([...own, ...ANY_OPERATION]);
  // A service key's route: an unknown key is 401, a user's token or a missing scope 403, and
  // each key has its own rate limit (service-auth.ts).
  if (scoped) codes.add('UNAUTHORIZED').add('FORBIDDEN').add('RATE_LIMITED');
  // A user's route: its token refused, or a service key sent instead (403).
  else if (operation.security) codes.add('UNAUTHORIZED').add('TOKEN_EXPIRED').add('SESSION_REVOKED').add('FORBIDDEN');
  // The REST host reads a body on every method but GET (follow and unfollow take an empty one).
  if (method !== 'get') codes.add('PAYLOAD_TOO_LARGE');
  return ERROR_CODES.filter((code) => codes.has(code));
}

/**
 * A VALIDATION_ERROR example for one procedure, made by the service's own mapping from a real
 * zod failure of its input schema: a bad first field, else a missing one.
 */
function validationExample(input: ZodType | undefined): ErrorBody | undefined {
  const shape = (input as { shape?: Record<string, unknown> } | undefined)?.shape;
  const first = shape ? Object.keys(shape)[0] : undefined;
  if (!input || !first) return undefined;
  for (const candidate of [{ [first]: 'x' }, {}]) {
    const result = input.safeParse(candidate);
    if (!result.success) return validationError(result.error).body;
  }
  return undefined;
}

function errorResponses(codes: ErrorCode[], overrides: Partial<Record<ErrorCode, ErrorBody>> = {}) {
  const responses: OpenAPIV3.ResponsesObject = {};
  const statuses = [...new Set(codes.map((code) => ERROR_STATUS[code]))];
  for (const status of statuses) {
    const here = codes.filter((code) => ERROR_STATUS[code] === status);
    const headers = Object.assign({}, ...here.map((code) => ERROR_HEADERS[code] ?? {}));
    responses[status] = {
      description: `${STATUS_CODES[status]}: ${here.map((code) => `\`${code}\` when ${ERROR_DOCS[code].when}`).join('; ')}.`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/json': {
          // The shared body, with `code` narrowed to the codes this operation answers with this status.
          schema: {
            allOf: [
              { $ref: ERROR_BODY_REF },
              { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: here } } },
            ],
          },
          examples: Object.fromEntries(
            here.map((code) => [code, { summary: code, value: overrides[code] ?? ERROR_DOCS[code].example }]),
          ),
        },
      },
    };
  }
  return responses;
}

function serviceOperation(endpoint: ServiceEndpoint): OpenAPIV3.OperationObject {
  return {
    operationId: `service-${endpoint.path.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`,
    summary: endpoint.summary,
    description: endpoint.description,
    tags: ['service'],
    responses: {
      200: {
        description: 'Successful response',
        content: { 'application/json': { schema: schemaOf(endpoint.schema), example: endpoint.example } },
      },
      ...errorResponses(
        ERROR_CODES.filter((code) => ANY_OPERATION.includes(code) || endpoint.errors.includes(code)),
        { VALIDATION_ERROR: urlTooLongExample() },
      ),
    },
  };
}

/**
 * The meta's example in the document: each request field on its parameter (or in the body's
 * example), the answer on the 200. A cursor gets none (see below).
 */
function addExamples(operation: OpenAPIV3.OperationObject, example: NonNullable<Meta['openapi']>['example']): void {
  if (!example) return;
  const request = example.request ?? {};
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    if (parameter.name in request) parameter.example = request[parameter.name];
  }
  const body = (operation.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content?.['application/json'];
  if (body) {
    const named = new Set(((operation.parameters ?? []) as OpenAPIV3.ParameterObject[]).map((p) => p.name));
    body.example = Object.fromEntries(Object.entries(request).filter(([name]) => !named.has(name)));
  }
  const ok = (operation.responses[200] as OpenAPIV3.ResponseObject | undefined)?.content?.['application/json'];
  if (ok && example.response !== undefined) ok.example = example.response;
}

const PARAMETER_DEFAULTS: Record<string, unknown> = {
  page: 1,
  limit: DEFAULT_PAGE_LIMIT,
  sortBy: 'followerCount',
  order: 'desc',
};

const CACHING_HEADERS: Record<string, OpenAPIV3.HeaderObject> = {
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

/** The 200's caching headers, and the 304 a matching If-None-Match gets. */
function cachingResponses(success: OpenAPIV3.ResponsesObject): OpenAPIV3.ResponsesObject {
  const ok = success[200] as OpenAPIV3.ResponseObject | undefined;
  if (ok) ok.headers = { ...ok.headers, ...CACHING_HEADERS };
  return {
    304: {
      description: 'Not modified: the If-None-Match tag is still current (no body; no Authorization header only)',
      headers: CACHING_HEADERS,
    },
  };
}

/** The header of the procedures whose meta says `idempotent` (write-transaction.ts honours it there only). */
const IDEMPOTENCY_KEY_HEADER: OpenAPIV3.ParameterObject = {
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

/**
 * zod 4 writes its own ISO 8601 regular expression beside `format: date-time` (400 characters
 * per timestamp field); the format says the same to every reader of the document.
 */
function dropDateTimePatterns(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.format === 'date-time' && typeof schema.pattern === 'string') delete schema.pattern;
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'example' && key !== 'examples') dropDateTimePatterns(value);
  }
}

/**
 * The document. Its server is `/`, resolved by clients against the URL they fetched it from,
 * so it is the same for every Host and "Try it" on /docs calls the origin that served the page.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  const doc = generateOpenApiDocument(appRouter, {
    // 3.0: what every generator, validator and Swagger UI release reads; 3.1 adds nothing used here.
    openApiVersion: '3.0.3',
    title: 'Signal provider service',
    description: DESCRIPTION,
    version: '0.1.0',
    baseUrl: '/',
    tags: TAGS.map((tag) => tag.name),
    securitySchemes: {
      [BEARER_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'The `token` from POST /auth/verify, valid 30 days. EdDSA (or ES256) JWT, verifiable with the keys at ' +
          '/.well-known/jwks.json.',
      },
      [SERVICE_KEY_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'sgk_ service key',
        description:
          'A service key for internal services, e.g. `Authorization: Bearer sgk_Qm3xV8pLr2YwT0nB5cKd9HfJ1sA7gE4uZ6vN8iOq3Xy` ' +
          "(`sgk_` and 43 base64url characters), created with POST /admin/keys, or the operator's ADMIN_KEY (every " +
          'scope). Each such operation names the scope it needs. See docs/operators.md.',
      },
    },
  }) as unknown as OpenApiDocument;
  doc.info = { ...doc.info, contact: CONTACT, license: LICENSE };
  doc.servers = [{ url: '/', description: 'This server (the origin that served this document)' }];
  doc.tags = TAGS;

  // tRPC keeps every procedure of the tree in one flat record, keyed by its dotted path.
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;
  const idempotent: OpenAPIV3.OperationObject[] = [];
  for (const procedure of Object.values(procedures)) {
    const meta = procedure._def.meta as Meta | undefined;
    if (!meta?.openapi) continue;
    const method = meta.openapi.method.toLowerCase() as OpenAPIV3.HttpMethods;
    const operation = doc.paths[meta.openapi.path]?.[method];
    if (!operation) throw new Error(`OpenAPI: no operation for ${meta.openapi.method} ${meta.openapi.path}`);
    const input = (procedure._def as unknown as { inputs?: ZodType[] }).inputs?.[0];
    const validation = validationExample(input);
    // The generator lists every scheme on a protected operation; each takes exactly one.
    if (operation.security && !meta.scope) operation.security = [{ [BEARER_SCHEME]: [] }];
    if (meta.scope) {
      operation.security = [{ [SERVICE_KEY_SCHEME]: [] }];
      operation.description = `${operation.description ?? ''}\n\nTakes a service key with the scope \`${meta.scope}\` (or ADMIN_KEY); a user's token is refused with 403.`;
    }
    addExamples(operation, meta.openapi.example);
    if (meta.idempotent) idempotent.push(operation);
    // The generator's own error responses (tRPC's codes) give way to the contract's below.
    const ok = operation.responses[200];
    if (!ok) throw new Error(`OpenAPI: no 200 for ${meta.openapi.method} ${meta.openapi.path}`);
    const successStatus = meta.openapi.successStatus;
    if (successStatus) (ok as OpenAPIV3.ResponseObject).description = STATUS_CODES[successStatus] ?? 'Success';
    const success: OpenAPIV3.ResponsesObject = { [successStatus ?? 200]: ok };
    // Every procedure reads the database, so each can answer SERVICE_UNAVAILABLE.
    const own: ErrorCode[] = [...(meta.errors ?? []), 'SERVICE_UNAVAILABLE'];
    operation.responses = {
      ...success,
      // The public reads that carry an ETag and a public Cache-Control: their meta says so (procedures/cache-policy.ts).
      ...(meta.cache && !meta.cache.undocumented ? cachingResponses(success) : {}),
      ...errorResponses(errorCodesOf(operation, method, own, meta.scope !== undefined), {
        VALIDATION_ERROR: validation ?? urlTooLongExample(),
      }),
    };
    // `cursor` has no example on purpose: a cursor only comes from an answer of this server
    // (sealed with its key), and Swagger UI would put an example into "Try it out" beside `page`.
    for (const parameter of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
      // The generator leaves `required` off a path parameter whose schema is a preprocess (REST
      // sends digits); OpenAPI requires it on every path parameter.
      if (parameter.in === 'path') parameter.required = true;
      const schema = parameter.schema as OpenAPIV3.SchemaObject | undefined;
      // The description on the parameter, where readers look (the generator puts an optional
      // one's only in its schema, a required one's in both).
      if (schema?.description !== undefined) {
        parameter.description ??= schema.description;
        delete schema.description;
      }
      // Optional in the schema so that a cursor's own sort can be told apart, or behind a
      // preprocess the generator does not see through; the defaults without one are these.
      const fallback = PARAMETER_DEFAULTS[parameter.name];
      if (fallback !== undefined) parameter.schema = { ...parameter.schema, default: fallback };
    }
  }
  for (const endpoint of SERVICE_ENDPOINTS) doc.paths[endpoint.path] = { get: serviceOperation(endpoint) };

  doc.components = {
    securitySchemes: doc.components?.securitySchemes ?? {},
    schemas: { ErrorBody: schemaOf(ErrorBodySchema) },
  };
  acceptUnknownBodyFields(doc);
  dropDateTimePatterns(doc.paths);
  nameComponentSchemas(doc, SERVICE_ENDPOINTS);
  // Last: the components above read the query and path parameters to tell what the body is.
  for (const operation of idempotent)
    operation.parameters = [...(operation.parameters ?? []), { ...IDEMPOTENCY_KEY_HEADER }];
  return doc;
}
