/**
 * Every environment variable the service reads, declared once: its name, its zod type and default,
 * the key it has in `Config`, one line of meaning, its group and whether it is for development only.
 * `Config` is inferred from this table (config.ts), `loadConfig` parses with it, and
 * `pnpm --filter @signal/api config-docs` writes `.env.example` and the table in
 * docs/deployment.md from it (CI fails when either is stale).
 */
import { DEFAULT_SIGN_IN_STATEMENT, isSignInDomain } from '@signal/core';
import { z } from 'zod';
import { parseTrustProxy } from '../wire/client-address.js';
import {
  DEFAULT_DISABLE_AFTER,
  DEFAULT_RETRY_SCHEDULE,
  parseDuration,
  parseRetrySchedule,
} from './webhook-schedule.js';

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^[0-9]+$/, 'must be a whole number in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const boolean = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** PEM keys often travel through env files with their newlines escaped as `\n`. */
const pem = z.string().transform((v) => v.replace(/\\n/g, '\n').trim());

// Empty strings count as unset, as they do for most twelve-factor services.
const unsetIfEmpty = (v: unknown) => (v === '' ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(unsetIfEmpty, schema.optional());
// prefault, not default: the fallback is a variable's text, parsed by the schema as a set value is.
const withDefault = <T extends z.ZodType<unknown, string>>(schema: T, fallback: string) =>
  z.preprocess(unsetIfEmpty, schema.prefault(fallback as z.input<T>));

/**
 * CORS allow-list: comma-separated browser origins (`scheme://host[:port]`, compared with the
 * Origin header after normalising to the URL's origin), or `*` for any origin.
 */
const origins = z.string().transform((value, ctx) => {
  const list: string[] = [];
  for (const entry of value.split(',').map((o) => o.trim())) {
    if (entry === '') continue;
    if (entry === '*') {
      list.push(entry);
      continue;
    }
    const url = URL.canParse(entry) ? new URL(entry) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not an origin like https://app.example.com, or *` });
      return z.NEVER;
    }
    list.push(url.origin);
  }
  return list;
});

/**
 * SIGN_IN_DOMAIN: one or more sites users sign in to, comma-separated host[:port] (port 1..65535),
 * lower-cased; a message names the request's Host when it is one of them, else the first.
 */
const signInDomains = z.string().transform((value, ctx) => {
  const list: string[] = [];
  for (const entry of value.split(',').map((d) => d.trim())) {
    if (entry === '') continue;
    if (!isSignInDomain(entry)) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not host[:port], such as app.example.com` });
      return z.NEVER;
    }
    if (!list.includes(entry.toLowerCase())) list.push(entry.toLowerCase());
  }
  return list;
});

const trustProxy = z.string().transform((value, ctx) => {
  try {
    return parseTrustProxy(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message });
    return z.NEVER;
  }
});

/** Text that `parse` turns into its value; undefined refuses it with `message`. */
function parsedText<T>(parse: (value: string) => T | undefined, message: string) {
  return z.string().transform((value, ctx) => {
    const parsed = parse(value);
    if (parsed !== undefined) return parsed;
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  });
}

/** Concatenated PEM public keys (`JWT_PREVIOUS_PUBLIC_KEYS` may hold several), `\n` escapes allowed. */
const previousPublicKeys = parsedText(
  (value) => value.replace(/\\n/g, '\n').match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? undefined,
  'must hold one or more PEM public keys',
);

/** A variable's text as the environment gives it, parsed to its value. */
type Text = z.ZodType<unknown, string>;

/** Set or not, the variable has a value: unset (or empty) reads as `fallback`. */
function defaulted<T extends Text>(schema: T, fallback: string) {
  return { schema: withDefault(schema, fallback), fallback, unsetShown: undefined };
}

/** Unset (or empty) leaves the value undefined; `unsetShown` says what that means in the docs' table. */
function unset<T extends Text>(schema: T, unsetShown = 'unset') {
  return { schema: optional(schema), fallback: undefined, unsetShown };
}

/** A list: unset (or empty) is the empty list. */
function list<T extends z.ZodType<string[], string>>(schema: T, unsetShown = 'unset') {
  return {
    schema: z.preprocess(unsetIfEmpty, schema.optional()).transform((v): string[] => v ?? []),
    fallback: undefined,
    unsetShown,
  };
}

/** Sections of `.env.example`, in order. */
export const GROUPS = {
  server: 'Server: listener, connections, proxies, shutdown',
  database: 'Database',
  tokens: 'Sign-in tokens and nonces',
  'rate-limits': 'Rate limits',
  'sign-in': 'Sign-in messages (SIWE, SIWS): the site they name',
  wallets: 'Wallets: contract accounts checked on chain (docs/wallets.md)',
  caching: 'HTTP caching (docs/api.md, "HTTP caching")',
  metrics: 'Metrics (docs/deployment.md, "Metrics")',
  'service-keys': 'Service keys (docs/operators.md)',
  events: 'Events (docs/events.md)',
  webhooks: 'Webhooks (docs/events.md, "Webhooks")',
  'event-bus': 'NATS JetStream event bus (docs/events.md, "NATS JetStream"); unset: no relay runs',
  log: 'The public log of record (docs/log.md)',
} as const;

export interface Variable {
  /** The environment variable. */
  readonly env: string;
  /** Its key in `Config`; `group.key` nests it (`webhooks.concurrency`). */
  readonly key: string;
  readonly group: keyof typeof GROUPS;
  /** Development only: the docs say so, and setting it in production is a mistake. */
  readonly devOnly?: boolean;
  readonly schema: z.ZodType<unknown, unknown>;
  /** The default as the variable's text; undefined: unset by default. */
  readonly fallback: string | undefined;
  /** What unset means, for the docs' default column (when there is no default). */
  readonly unsetShown: string | undefined;
  /** One line of meaning (Markdown), for the docs' table and `.env.example`. */
  readonly doc: string;
}

export const VARIABLES = [
  {
    env: 'PORT',
    key: 'port',
    group: 'server',
    ...defaulted(integer(0, 65_535), '3000'),
    doc: 'listen port (`0` picks a free one)',
  },
  {
    env: 'HOST',
    key: 'host',
    group: 'server',
    ...defaulted(z.string(), '127.0.0.1'),
    doc: 'listen address',
  },
  {
    env: 'LOG_LEVEL',
    key: 'logLevel',
    group: 'server',
    ...defaulted(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
    doc: 'pino level (`silent` to mute)',
  },
  {
    env: 'TRUST_PROXY',
    key: 'trustProxy',
    group: 'server',
    ...defaulted(trustProxy, 'false'),
    doc: "proxies in front of the service: a number of hops (`true` = 1, `false` = 0), or a comma-separated list of the proxies' addresses / CIDR blocks (`10.0.0.0/8, fd00::/8`); the client address is read from the right of `X-Forwarded-For`, skipping exactly those (see [Security](security.md#security))",
  },
  {
    env: 'CORS_ORIGINS',
    key: 'corsOrigins',
    group: 'server',
    ...list(origins, 'empty'),
    doc: 'comma-separated allow-list of browser origins (`https://app.example.com`), or `*`; empty = no CORS headers',
  },
  {
    env: 'MAX_CONNECTIONS',
    key: 'maxConnections',
    group: 'server',
    ...unset(integer(1, 10_000_000), 'from the descriptor limit'),
    doc: "open connections in total; beyond it a new connection is closed at once. Default, sized when the server starts listening: the soft `RLIMIT_NOFILE` (`ulimit -n`, read from `/proc/self/limits`; 1,024 where unknown) less the descriptors already open then (node's, PGlite's data files, at most 64) less a reserve of max(64, a tenth) + `DATABASE_POOL_SIZE`; the start-up log line `listening` names it (`maxConnections`)",
  },
  {
    env: 'MAX_CONNECTIONS_PER_ADDRESS',
    key: 'maxConnectionsPerAddress',
    group: 'server',
    ...defaulted(integer(0, 10_000_000), '256'),
    doc: 'open connections per client address (TCP peer, IPv6 per /64); `0` = no cap. Trusted proxies (`TRUST_PROXY`) are exempt, and with `TRUST_PROXY` as hops the cap is off',
  },
  {
    env: 'HEADERS_TIMEOUT_MS',
    key: 'headersTimeoutMs',
    group: 'server',
    ...defaulted(integer(100, 3_600_000), '15000'),
    doc: 'a connection must deliver the request line and headers within this (also bounds a connection that sends nothing)',
  },
  {
    env: 'REQUEST_TIMEOUT_MS',
    key: 'requestTimeoutMs',
    group: 'server',
    ...defaulted(integer(100, 3_600_000), '30000'),
    doc: 'a request must be received whole (headers and body) within this; at least `HEADERS_TIMEOUT_MS`',
  },
  {
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    key: 'keepAliveTimeoutMs',
    group: 'server',
    ...defaulted(integer(1_000, 3_600_000), '5000'),
    doc: 'an idle keep-alive connection is closed after this (at least 1000)',
  },
  {
    env: 'SHUTDOWN_DELAY_SECONDS',
    key: 'shutdownDelaySeconds',
    group: 'server',
    ...defaulted(integer(0, 300), '0'),
    doc: 'on SIGTERM/SIGINT, keep serving this long with `/ready` answering 503 before draining (see [Operations](#operations))',
  },
  {
    env: 'DATABASE_URL',
    key: 'databaseUrl',
    group: 'database',
    ...unset(z.string().url('must be a postgres:// connection URL')),
    doc: 'PostgreSQL URL; unset → embedded PGlite under `DATA_DIR`',
  },
  {
    env: 'DATA_DIR',
    key: 'dataDir',
    group: 'database',
    ...defaulted(z.string(), '.data'),
    doc: 'PGlite files and the generated signing key; created 0700, its files kept 0600; the server refuses to start on one its group or others may write (not used when `DATABASE_URL`, `JWT_PRIVATE_KEY` and `LOG_PRIVATE_KEY` are all set)',
  },
  {
    env: 'SEED_PROVIDERS',
    key: 'seedProviders',
    group: 'database',
    ...defaulted(integer(0, 10_000_000), '100'),
    doc: 'seed this many demo providers when the catalogue is empty; `0` = never',
  },
  {
    env: 'SEED_SIGNAL_PROVIDERS',
    key: 'seedSignalProviders',
    group: 'database',
    ...defaulted(integer(0, 100), '10'),
    doc: 'with `SEED_PROVIDERS`: on a fresh demo (no publisher yet), this many of the most followed demo providers get a publisher wallet, a delegated key and six signals, posted to the server’s own statement routes once it listens (see [the demo app](demo-app.md#signals-in-the-demo)); `0` = none; none either, with a warning, under a `SIGNAL_RATE_LIMIT_PER_MINUTE` below the 10 statements a minute its bot key signs',
  },
  {
    env: 'DATABASE_POOL_SIZE',
    key: 'databasePoolSize',
    group: 'database',
    ...defaulted(integer(1, 1000), '10'),
    doc: 'pg pool size (PostgreSQL only)',
  },
  {
    env: 'DATABASE_PREPARED_STATEMENTS',
    key: 'databasePreparedStatements',
    group: 'database',
    ...defaulted(boolean, 'false'),
    doc: 'run the hot queries as named prepared statements (PostgreSQL only). Only for direct connections or a pooler that keeps prepared statements per client (PgBouncer ≥ 1.21 with `max_prepared_statements`); never behind a transaction-mode pooler without that (see [Deployment](#deployment-poolers-and-replicas))',
  },
  {
    env: 'DATABASE_READ_URL',
    key: 'databaseReadUrl',
    group: 'database',
    ...unset(z.string().url('must be a postgres:// connection URL')),
    doc: 'a streaming replica of `DATABASE_URL` for public catalogue reads (list, detail, stats of requests without a token); unset: everything reads the primary. Needs `DATABASE_URL` (see [Deployment](#deployment-poolers-and-replicas))',
  },
  {
    env: 'DATABASE_READ_MAX_LAG_SECONDS',
    key: 'databaseReadMaxLagSeconds',
    group: 'database',
    ...defaulted(integer(0, 86_400), '30'),
    doc: 'replay lag beyond which the replica is left out (reads go to the primary) until it catches up',
  },
  {
    env: 'NONCE_TTL_SECONDS',
    key: 'nonceTtlSeconds',
    group: 'tokens',
    ...defaulted(integer(1, 86_400), '300'),
    doc: 'nonce lifetime',
  },
  {
    env: 'JWT_PRIVATE_KEY',
    key: 'jwtPrivateKey',
    group: 'tokens',
    ...unset(pem),
    doc: 'PKCS#8 PEM (Ed25519 → EdDSA, P-256 → ES256); `\\n` escapes allowed. Unset → generated once into `DATA_DIR/jwt-signing-key.pem` (mode 600)',
  },
  {
    env: 'JWT_PREVIOUS_PUBLIC_KEYS',
    key: 'jwtPreviousPublicKeys',
    group: 'tokens',
    ...list(previousPublicKeys),
    doc: 'PEM public keys of earlier signing keys, still accepted (rotation)',
  },
  {
    env: 'JWT_ISSUER',
    key: 'jwtIssuer',
    group: 'tokens',
    ...defaulted(z.string(), 'signal-auth'),
    doc: '`iss` claim, pinned on verification',
  },
  {
    env: 'JWT_AUDIENCE',
    key: 'jwtAudience',
    group: 'tokens',
    ...defaulted(z.string(), 'signal-api'),
    doc: '`aud` claim, pinned on verification',
  },
  {
    env: 'AUTH_RATE_LIMIT_PER_MINUTE',
    key: 'authRateLimitPerMinute',
    group: 'rate-limits',
    ...defaulted(integer(0, 1_000_000), '60'),
    doc: 'per client address on each of `/auth/nonce` and `/auth/verify` (REST and tRPC), kept in the database; `0` turns it off (see [Security](security.md#security))',
  },
  {
    env: 'FOLLOW_RATE_LIMIT_PER_MINUTE',
    key: 'followRateLimitPerMinute',
    group: 'rate-limits',
    ...defaulted(integer(0, 1_000_000), '60'),
    doc: 'follows and unfollows per user (REST and tRPC together), kept in the database; `0` turns it off',
  },
  {
    env: 'READ_RATE_LIMIT_PER_MINUTE',
    key: 'readRateLimitPerMinute',
    group: 'rate-limits',
    ...defaulted(integer(0, 100_000_000), '6000'),
    doc: 'catalogue reads (`/providers`, `/providers/{id}`, `…/stats`, REST and tRPC) per client address, counted in each server process; `0` turns it off',
  },
  {
    env: 'SEARCH_DB_MS_PER_SECOND',
    key: 'searchDbMsPerSecond',
    group: 'rate-limits',
    ...defaulted(integer(0, 1_000_000), '100'),
    doc: "milliseconds of database time a second that one client address may spend on uncached name searches the trigram index cannot narrow (`q=#`, one or two characters, …): 100 is a tenth of a core; bursts up to ten seconds' worth, one such search at a time; counted in each server process; `0` turns it off (see [Security](security.md#searches-the-index-cannot-narrow))",
  },
  {
    env: 'NEW_USER_RATE_LIMIT_PER_HOUR',
    key: 'newUserRateLimitPerHour',
    group: 'rate-limits',
    ...defaulted(integer(0, 1_000_000), '10'),
    doc: "new accounts (a wallet's first sign-in) an hour per client address (IPv6: per /64), counted in the database in the transaction that creates the user; a returning wallet is never limited; `0` turns it off (see [Fake accounts](security.md#fake-accounts))",
  },
  {
    env: 'NEW_USER_RATE_LIMIT_PER_HOUR_PER_56',
    key: 'newUserRateLimitPerHourPer56',
    group: 'rate-limits',
    ...defaulted(integer(0, 1_000_000), '30'),
    doc: 'new accounts an hour per IPv6 /56 (256 /64s: one home or office allocation), on top of the per-/64 budget; `0` turns it off',
  },
  {
    env: 'SIGN_IN_DOMAIN',
    key: 'signInDomains',
    group: 'sign-in',
    ...list(signInDomains),
    doc: "host[:port] of the site(s) users sign in to, named in SIWE/SIWS messages; several comma-separated: the request's `Host` when listed (lower-cased), else the first; unset → the nonce request's `Host`, and only while `HOST` is loopback: beyond it SIWE/SIWS are refused (400) and the start logs a warning (set it in production: see [Security](security.md#sign-in-domain))",
  },
  {
    env: 'SIGN_IN_URI',
    key: 'signInUri',
    group: 'sign-in',
    ...unset(
      z
        .string()
        .url('must be a URI such as https://app.example.com')
        .refine((v) => !/\s/.test(v)),
      '`https://{domain}`',
    ),
    doc: 'URI named in SIWE/SIWS messages (`http://` for localhost and 127.x)',
  },
  {
    env: 'SIGN_IN_STATEMENT',
    key: 'signInStatement',
    group: 'sign-in',
    ...defaulted(
      z
        .string()
        .min(1)
        .max(500)
        .regex(/^[^\n\r]*$/, 'must be one line'),
      DEFAULT_SIGN_IN_STATEMENT,
    ),
    doc: 'the statement line of SIWE/SIWS messages (one line, at most 500 characters)',
  },
  {
    env: 'EVM_CHAIN_ID',
    key: 'evmChainId',
    group: 'sign-in',
    ...defaulted(integer(1, Number.MAX_SAFE_INTEGER), '1'),
    doc: 'EIP-155 chain id a SIWE message names when the nonce request gives no `chainId`',
  },
  {
    env: 'SIWS_CHAIN',
    key: 'siwsChain',
    group: 'sign-in',
    ...defaulted(z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be a chain name such as mainnet'), 'mainnet'),
    doc: 'the Chain ID line of SIWS messages',
  },
  {
    env: 'EVM_RPC_URL',
    key: 'evmRpcUrl',
    group: 'wallets',
    ...unset(z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// JSON-RPC URL')),
    doc: 'HTTP(S) JSON-RPC node checking contract-account signatures (EIP-1271, EIP-6492); unset → only key signatures (see [Wallets](wallets.md#wallets))',
  },
  {
    env: 'EVM_RPC_TIMEOUT_MS',
    key: 'evmRpcTimeoutMs',
    group: 'wallets',
    ...defaulted(integer(1, 60_000), '5000'),
    doc: 'time box of one on-chain check (1..60000); beyond it verify answers 503 and the nonce stays usable',
  },
  {
    env: 'EVM_RPC_MAX_CONCURRENT',
    key: 'evmRpcMaxConcurrent',
    group: 'wallets',
    ...defaulted(integer(1, 10_000), '8'),
    doc: 'contract-wallet checks waiting on the node at once, across all sign-ins; more → 503 with `Retry-After: 1` (key wallets never reach the node)',
  },
  {
    env: 'EVM_RPC_MAX_CALLS_PER_MINUTE',
    key: 'evmRpcMaxCallsPerMinute',
    group: 'wallets',
    ...defaulted(integer(1, 1_000_000), '120'),
    doc: 'node calls (`eth_getCode`, `eth_call`) a minute for contract-wallet checks, per server; more → 503 with `Retry-After` until the minute ends',
  },
  {
    env: 'EVM_RPC_GAS_CAP',
    key: 'evmRpcGasCap',
    group: 'wallets',
    ...defaulted(integer(21_000, 100_000_000), '3000000'),
    doc: "the `gas` of the signature check's `eth_call` simulation: a factory that burns gas stops there",
  },
  {
    env: 'PUBLIC_CACHE_MAX_AGE',
    key: 'publicCacheMaxAge',
    group: 'caching',
    ...defaulted(integer(0, 86_400), '5'),
    doc: 'seconds a browser or CDN may reuse a public catalogue read (`GET /providers`, `/providers/{id}`, `/providers/{id}/stats`, `/providers/{id}/performance`, `/openapi.json` without `Authorization`): `Cache-Control: public, max-age=N, stale-while-revalidate=N`; `0` → `public, no-cache` (always revalidate by ETag). See [HTTP caching](api.md#http-caching)',
  },
  {
    env: 'ANSWER_CACHE_MB',
    key: 'answerCacheMb',
    group: 'caching',
    ...defaulted(integer(0, 65_536), '64'),
    doc: 'memory (MiB) for built answers of the public reads (`GET /providers` for every sort, filter and page, `/providers/{id}`, `/providers/{id}/stats`, `/providers/{id}/performance`), least recently used first out; each is served again only while the version of its data read from the database on that request is unchanged, so every write shows at the next read on every server. `0` → every answer is built. See [HTTP caching](api.md#http-caching)',
  },
  {
    env: 'METRICS',
    key: 'metrics',
    group: 'metrics',
    ...defaulted(boolean, 'false'),
    doc: "serve Prometheus metrics at `/metrics` on the API's port (see [Metrics](#metrics))",
  },
  {
    env: 'METRICS_PORT',
    key: 'metricsPort',
    group: 'metrics',
    ...unset(integer(0, 65_535)),
    doc: 'serve `/metrics` on this port of `HOST` instead, on a listener of its own (`0` picks a free one)',
  },
  {
    env: 'ADMIN_KEY',
    key: 'adminKey',
    group: 'service-keys',
    ...unset(
      z
        .string()
        .regex(
          /^[A-Za-z0-9_.~+/=-]{32,}$/,
          'must be at least 32 characters of A-Z a-z 0-9 _ . ~ + / = - (it is sent as a Bearer token)',
        ),
    ),
    doc: "the operator's master credential, sent as `Authorization: Bearer <ADMIN_KEY>`: holds every service-key scope and is never stored; at least 32 characters of `A-Z a-z 0-9 _ . ~ + / = -` (e.g. `openssl rand -base64 48 \\| tr -d '\\n'`); unset → no admin access. See [Operators](operators.md)",
  },
  {
    env: 'SERVICE_KEY_RATE_LIMIT_PER_MINUTE',
    key: 'serviceKeyRateLimitPerMinute',
    group: 'service-keys',
    ...defaulted(integer(0, 100_000_000), '6000'),
    doc: 'requests a minute per service key (`ADMIN_KEY` included) on the scoped routes, counted in each server process; `0` turns it off',
  },
  {
    env: 'EVENT_RETENTION_DAYS',
    key: 'eventRetentionDays',
    group: 'events',
    ...defaulted(integer(1, 3_650), '30'),
    doc: 'days the event feed keeps an event (1..3650); older ones are purged by the maintenance job every minute, read or not. See [Events](events.md)',
  },
  {
    env: 'STREAMS_PER_CREDENTIAL',
    key: 'streamsPerCredential',
    group: 'events',
    ...defaulted(integer(1, 100_000), '8'),
    doc: 'open subscriptions (`events.stream`, `signals.live`) per service key or user, counted in each server process; one more is refused with 429 `RATE_LIMITED` before its stream starts. See [Events](events.md#bounds)',
  },
  {
    env: 'STREAMS_PER_ADDRESS',
    key: 'streamsPerAddress',
    group: 'events',
    ...defaulted(integer(0, 10_000_000), '64'),
    doc: 'open subscriptions (`events.stream`, `signals.live`) per client address (as the rate limits read it: `TRUST_PROXY`; IPv6 per /64), counted in each server process; one more is refused with 429 `RATE_LIMITED` before its stream starts; `0` = no cap. See [Events](events.md#bounds)',
  },
  {
    env: 'STREAMS_MAX',
    key: 'streamsMax',
    group: 'events',
    ...defaulted(integer(0, 10_000_000), '20000'),
    doc: 'open subscriptions (`events.stream`, `signals.live`) in one server process; one more is refused with 503 `SERVICE_UNAVAILABLE` and `Retry-After` before its stream starts (another server may have room); `0` = no cap. Streams count against `MAX_CONNECTIONS` too. See [Events](events.md#bounds)',
  },
  {
    env: 'LIVE_MAX_UNSENT_BYTES',
    key: 'liveMaxUnsentBytes',
    group: 'events',
    ...defaulted(integer(1_024, 1_073_741_824), '1048576'),
    doc: 'a `signals.live` stream for which the server still holds more than this many bytes its client has not taken (past what the kernel buffers) when its next events are due is closed (judged once per page of new log entries, so one large event or a burst never cuts a reader that keeps up); its client resumes with its last event id. See [Signals](signals.md#live)',
  },
  {
    env: 'WEBHOOK_RETRY_SCHEDULE',
    key: 'webhooks.retrySchedule',
    group: 'webhooks',
    ...defaulted(
      parsedText((value) => {
        const delays = parseRetrySchedule(value);
        return delays && delays.length <= 50 ? delays : undefined;
      }, 'must be up to 50 comma-separated durations such as 5s,5m,2h'),
      DEFAULT_RETRY_SCHEDULE,
    ),
    doc: 'the delay after each failed webhook attempt (units `ms`, `s`, `m`, `h`, `d`), comma-separated, so 1 + its length attempts in all; a longer `Retry-After` from the receiver wins (up to a day). See [Webhooks](events.md#webhooks)',
  },
  {
    env: 'WEBHOOK_DISABLE_AFTER',
    key: 'webhooks.disableAfterMs',
    group: 'webhooks',
    ...defaulted(
      parsedText((value) => {
        const ms = parseDuration(value);
        return ms !== undefined && ms > 0 ? ms : undefined;
      }, 'must be a duration such as 5d, 12h or 30m'),
      DEFAULT_DISABLE_AFTER,
    ),
    doc: 'an endpoint that fails every attempt for this long is disabled (its pending deliveries fail)',
  },
  {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    key: 'webhooks.allowPrivate',
    group: 'webhooks',
    devOnly: true,
    ...defaulted(boolean, 'false'),
    doc: 'lets webhooks go to loopback, private, link-local, CGNAT and metadata addresses, which are refused otherwise ([security](security.md#webhooks-never-a-door-inward)); the server logs a warning when on',
  },
  {
    env: 'WEBHOOK_ALLOW_HTTP',
    key: 'webhooks.allowHttp',
    group: 'webhooks',
    devOnly: true,
    ...defaulted(boolean, 'false'),
    doc: 'lets webhooks go to `http://` URLs (only `https` otherwise); logged as a warning when on',
  },
  {
    env: 'WEBHOOK_DNS_SERVERS',
    key: 'webhooks.dnsServers',
    group: 'webhooks',
    ...list(
      z
        .string()
        .regex(/^[0-9A-Fa-f:.[\]]+(,[0-9A-Fa-f:.[\]]+)*$/, 'must be comma-separated IP addresses (ip or ip:port)')
        .transform((value) => value.split(',')),
    ),
    doc: 'DNS servers (`ip` or `ip:port`, comma-separated) that resolve webhook hosts, at creation and at every delivery; unset: the system resolver (`/etc/hosts`, then the configured DNS)',
  },
  {
    env: 'WEBHOOK_CONCURRENCY',
    key: 'webhooks.concurrency',
    group: 'webhooks',
    ...defaulted(integer(1, 10_000), '64'),
    doc: 'webhook attempts in flight at once per server process; a claim never takes more than the free slots, so memory stays bounded however many deliveries wait',
  },
  {
    env: 'WEBHOOK_ENDPOINT_CONCURRENCY',
    key: 'webhooks.endpointConcurrency',
    group: 'webhooks',
    ...defaulted(integer(1, 10_000), '16'),
    doc: 'of those, at most this many for one endpoint (per process), so one slow or hung receiver never takes the slots of the others',
  },
  {
    env: 'WEBHOOK_SLOW_ENDPOINT_CONCURRENCY',
    key: 'webhooks.slowEndpointConcurrency',
    group: 'webhooks',
    ...defaulted(integer(1, 10_000), '2'),
    doc: 'slots for a slow endpoint (its last attempt took over 5 s, timed out or failed, or one still runs after 5 s); a new endpoint gets one until its first attempt ends; slow endpoints together, and new ones together, get at most a quarter of `WEBHOOK_CONCURRENCY` each, so receivers that hang cannot starve the healthy ones. See [Webhooks](events.md#how-delivery-works)',
  },
  {
    env: 'WEBHOOK_CONNECT_TIMEOUT',
    key: 'webhooks.connectTimeoutMs',
    group: 'webhooks',
    ...defaulted(
      parsedText((value) => {
        const ms = parseDuration(value);
        return ms !== undefined && ms > 0 && ms <= 15_000 ? ms : undefined;
      }, 'must be a duration of at most 15s, such as 3s or 500ms'),
      '3s',
    ),
    doc: 'a webhook attempt whose TCP connection is not made within this fails (the whole attempt has 15 s), so an address that drops packets frees its slot early',
  },
  {
    env: 'EVENT_BUS_URL',
    key: 'eventBusUrl',
    group: 'event-bus',
    ...unset(
      z
        .string()
        .regex(
          /^(nats|tls):\/\/[^\s,]+(,(nats|tls):\/\/[^\s,]+)*$/,
          'must be nats://host:port (several comma-separated)',
        ),
    ),
    doc: 'NATS servers (`nats://host:port`, comma-separated) that every event is also published to, through JetStream; unset: no relay runs. See [Events: NATS JetStream](events.md#nats-jetstream)',
  },
  {
    env: 'EVENT_BUS_STREAM',
    key: 'eventBusStream',
    group: 'event-bus',
    ...defaulted(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1..64 of A-Z a-z 0-9 _ -'), 'SIGNAL_EVENTS'),
    doc: 'the JetStream stream the relay expects; created (subjects `<prefix>.>`, 7 days, 2-minute duplicate window) when no stream covers the subjects',
  },
  {
    env: 'EVENT_BUS_SUBJECT_PREFIX',
    key: 'eventBusSubjectPrefix',
    group: 'event-bus',
    ...defaulted(
      z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of A-Z a-z 0-9 _ -'),
      'signal.events',
    ),
    doc: 'subjects are `<prefix>.<type>` (`signal.events.follow.created`); change it only to share one NATS account between deployments or tests',
  },
  {
    env: 'LOG_ORIGIN',
    key: 'logOrigin',
    group: 'log',
    ...unset(
      z
        .string()
        .regex(/^[\x21-\x2a\x2c-\x7e]{1,255}$/, 'must be 1..255 printable ASCII characters without spaces or +'),
      'the first `SIGN_IN_DOMAIN` + `/signals`, else `localhost/signals`',
    ),
    doc: "the log's name: the first line of its checkpoints and the name of its key (C2SP tlog-checkpoint); never change it for a log that has been published (see [Log](log.md#sequencing))",
  },
  {
    env: 'SIGNAL_MAX_SKEW_SECONDS',
    key: 'signalMaxSkewSeconds',
    group: 'log',
    ...defaulted(integer(1, 86_400), '60'),
    doc: "how far a signed statement's `issuedAt` may be from the server's clock, either way (a byte-identical retry of an accepted statement is answered before this check)",
  },
  {
    env: 'SIGNAL_RATE_LIMIT_PER_MINUTE',
    key: 'signalRateLimitPerMinute',
    group: 'rate-limits',
    ...defaulted(integer(0, 1_000_000), '600'),
    doc: 'signed statements per signer (wallet or delegated key) whose signature holds, and as many per client address for the others (a forgery, a contract wallet’s signature): a forger spends its own budget, never the publisher’s it names; on the statement routes, kept in the database so every server shares the count; `0` turns it off',
  },
  {
    env: 'LOG_PRIVATE_KEY',
    key: 'logPrivateKey',
    group: 'log',
    ...unset(pem),
    doc: "Ed25519 PKCS#8 PEM that signs the log's checkpoints; `\\n` escapes allowed. Unset → generated once into `DATA_DIR/log-signing-key.pem` (mode 600). Every server sharing a database must have the same key: a server whose key did not sign the log never signs it (it logs an error at its first pass) and serves the checkpoints the right key signed",
  },
] as const satisfies readonly Variable[];
