/**
 * The service's configuration, parsed once from the environment by one zod schema. Nothing
 * else reads process.env. A bad value stops the start with a message naming the variable.
 */
import { isAbsolute, resolve } from 'node:path';
import { DEFAULT_SIGN_IN_STATEMENT, isSignInDomain } from '@signal/core';
import { z } from 'zod';
import { parseTrustProxy, type TrustProxy } from '../wire/client-address.js';
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

const EnvSchema = z.object({
  PORT: withDefault(integer(0, 65_535), '3000'),
  HOST: withDefault(z.string(), '127.0.0.1'),
  DATABASE_URL: optional(z.string().url('must be a postgres:// connection URL')),
  DATA_DIR: withDefault(z.string(), '.data'),
  SEED_PROVIDERS: withDefault(integer(0, 10_000_000), '100'),
  NONCE_TTL_SECONDS: withDefault(integer(1, 86_400), '300'),
  AUTH_RATE_LIMIT_PER_MINUTE: withDefault(integer(0, 1_000_000), '60'),
  FOLLOW_RATE_LIMIT_PER_MINUTE: withDefault(integer(0, 1_000_000), '60'),
  READ_RATE_LIMIT_PER_MINUTE: withDefault(integer(0, 100_000_000), '6000'),
  NEW_USER_RATE_LIMIT_PER_HOUR: withDefault(integer(0, 1_000_000), '10'),
  NEW_USER_RATE_LIMIT_PER_HOUR_PER_56: withDefault(integer(0, 1_000_000), '30'),
  JWT_PRIVATE_KEY: optional(pem),
  JWT_PREVIOUS_PUBLIC_KEYS: optional(z.string()),
  JWT_ISSUER: withDefault(z.string(), 'signal-auth'),
  JWT_AUDIENCE: withDefault(z.string(), 'signal-api'),
  LOG_LEVEL: withDefault(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  TRUST_PROXY: withDefault(trustProxy, 'false'),
  CORS_ORIGINS: optional(origins),
  DATABASE_POOL_SIZE: withDefault(integer(1, 1000), '10'),
  MAX_CONNECTIONS: optional(integer(1, 10_000_000)),
  MAX_CONNECTIONS_PER_ADDRESS: withDefault(integer(0, 10_000_000), '256'),
  HEADERS_TIMEOUT_MS: withDefault(integer(100, 3_600_000), '15000'),
  REQUEST_TIMEOUT_MS: withDefault(integer(100, 3_600_000), '30000'),
  KEEP_ALIVE_TIMEOUT_MS: withDefault(integer(1_000, 3_600_000), '5000'),
  METRICS: withDefault(boolean, 'false'),
  METRICS_PORT: optional(integer(0, 65_535)),
  SHUTDOWN_DELAY_SECONDS: withDefault(integer(0, 300), '0'),
  DATABASE_PREPARED_STATEMENTS: withDefault(boolean, 'false'),
  // Wallets (issue 14): contract accounts checked on chain.
  EVM_RPC_URL: optional(z.string().regex(/^https?:\/\/[^\s]+$/, 'must be an http:// or https:// JSON-RPC URL')),
  EVM_RPC_TIMEOUT_MS: withDefault(integer(1, 60_000), '5000'),
  EVM_RPC_MAX_CONCURRENT: withDefault(integer(1, 10_000), '8'),
  EVM_RPC_MAX_CALLS_PER_MINUTE: withDefault(integer(1, 1_000_000), '120'),
  EVM_RPC_GAS_CAP: withDefault(integer(21_000, 100_000_000), '3000000'),
  PUBLIC_CACHE_MAX_AGE: withDefault(integer(0, 86_400), '5'),
  ANSWER_CACHE_MB: withDefault(integer(0, 65_536), '64'),
  DATABASE_READ_URL: optional(z.string().url('must be a postgres:// connection URL')),
  DATABASE_READ_MAX_LAG_SECONDS: withDefault(integer(0, 86_400), '30'),
  // Sign-in messages (SIWE, SIWS): the site they name.
  SIGN_IN_DOMAIN: optional(signInDomains),
  SIGN_IN_URI: optional(
    z
      .string()
      .url('must be a URI such as https://app.example.com')
      .refine((v) => !/\s/.test(v)),
  ),
  SIGN_IN_STATEMENT: withDefault(
    z
      .string()
      .min(1)
      .max(500)
      .regex(/^[^\n\r]*$/, 'must be one line'),
    DEFAULT_SIGN_IN_STATEMENT,
  ),
  EVM_CHAIN_ID: withDefault(integer(1, Number.MAX_SAFE_INTEGER), '1'),
  SIWS_CHAIN: withDefault(
    z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be a chain name such as mainnet'),
    'mainnet',
  ),
  // Service keys (issue 25): the operator's master credential and the per-key limit.
  ADMIN_KEY: optional(
    z
      .string()
      .regex(
        /^[A-Za-z0-9_.~+/=-]{32,}$/,
        'must be at least 32 characters of A-Z a-z 0-9 _ . ~ + / = - (it is sent as a Bearer token)',
      ),
  ),
  SERVICE_KEY_RATE_LIMIT_PER_MINUTE: withDefault(integer(0, 100_000_000), '6000'),
  // Events (issue 27): how long the feed keeps them.
  EVENT_RETENTION_DAYS: withDefault(integer(1, 3_650), '30'),
  // Webhooks (issue 27): delivery (docs/events.md, "Webhooks").
  WEBHOOK_RETRY_SCHEDULE: withDefault(
    z.string().transform((value, ctx) => {
      const delays = parseRetrySchedule(value);
      if (delays && delays.length <= 50) return delays;
      ctx.addIssue({ code: 'custom', message: 'must be up to 50 comma-separated durations such as 5s,5m,2h' });
      return z.NEVER;
    }),
    DEFAULT_RETRY_SCHEDULE,
  ),
  WEBHOOK_DISABLE_AFTER: withDefault(
    z.string().transform((value, ctx) => {
      const ms = parseDuration(value);
      if (ms !== undefined && ms > 0) return ms;
      ctx.addIssue({ code: 'custom', message: 'must be a duration such as 5d, 12h or 30m' });
      return z.NEVER;
    }),
    DEFAULT_DISABLE_AFTER,
  ),
  WEBHOOK_ALLOW_PRIVATE: withDefault(boolean, 'false'),
  WEBHOOK_ALLOW_HTTP: withDefault(boolean, 'false'),
  WEBHOOK_DNS_SERVERS: optional(
    z
      .string()
      .regex(/^[0-9A-Fa-f:.[\]]+(,[0-9A-Fa-f:.[\]]+)*$/, 'must be comma-separated IP addresses (ip or ip:port)')
      .transform((value) => value.split(',')),
  ),
  WEBHOOK_CONCURRENCY: withDefault(integer(1, 10_000), '64'),
  WEBHOOK_ENDPOINT_CONCURRENCY: withDefault(integer(1, 10_000), '16'),
  // The NATS JetStream bus (docs/events.md, "NATS JetStream"): unset, no relay runs.
  EVENT_BUS_URL: optional(
    z
      .string()
      .regex(
        /^(nats|tls):\/\/[^\s,]+(,(nats|tls):\/\/[^\s,]+)*$/,
        'must be nats://host:port (several comma-separated)',
      ),
  ),
  EVENT_BUS_STREAM: withDefault(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1..64 of A-Z a-z 0-9 _ -'),
    'SIGNAL_EVENTS',
  ),
  EVENT_BUS_SUBJECT_PREFIX: withDefault(
    z.string().regex(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/, 'must be dot-separated tokens of A-Z a-z 0-9 _ -'),
    'signal.events',
  ),
});

/** Every variable the service reads; `.env.example` lists each of them (a test holds it to this). */
export const CONFIG_VARIABLES = Object.keys(EnvSchema.shape);

export interface Config {
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  seedProviders: number;
  nonceTtlSeconds: number;
  authRateLimitPerMinute: number;
  followRateLimitPerMinute: number;
  readRateLimitPerMinute: number;
  /** New accounts an hour per client address (IPv6: per /64); 0 = off. */
  newUserRateLimitPerHour: number;
  /** New accounts an hour per IPv6 /56 (a home or office allocation of 256 /64s); 0 = off. */
  newUserRateLimitPerHourPer56: number;
  jwtPrivateKey: string | undefined;
  jwtPreviousPublicKeys: string[];
  jwtIssuer: string;
  jwtAudience: string;
  logLevel: string;
  trustProxy: TrustProxy;
  corsOrigins: string[];
  databasePoolSize: number;
  /** Unset: sized from the descriptor limit when the server starts (http/connection-limits.ts). */
  maxConnections: number | undefined;
  maxConnectionsPerAddress: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** Serve /metrics on the API's own port. */
  metrics: boolean;
  /** Serve /metrics on a listener of its own on HOST at this port (0 picks a free one). */
  metricsPort: number | undefined;
  /** On SIGTERM/SIGINT, keep serving (with /ready 503) this long before draining. */
  shutdownDelaySeconds: number;
  /** Hot queries as named prepared statements: only on direct connections or a pooler that tracks them. */
  databasePreparedStatements: boolean;
  /** JSON-RPC node for EIP-1271/6492 contract-account signatures; unset: no chain checks. */
  evmRpcUrl: string | undefined;
  evmRpcTimeoutMs: number;
  /** Contract-wallet checks waiting on the node at once; more → 503 with Retry-After. */
  evmRpcMaxConcurrent: number;
  /** Node calls a minute for contract-wallet checks; more → 503 with Retry-After. */
  evmRpcMaxCallsPerMinute: number;
  /** The `gas` of the signature check's simulation. */
  evmRpcGasCap: number;
  /** Seconds a browser or CDN may reuse a public catalogue read (Cache-Control max-age). */
  publicCacheMaxAge: number;
  /** Byte budget (MiB) of the built public answers kept in memory (http/answer-cache.ts); 0: none kept. */
  answerCacheMb: number;
  /** A streaming replica for public catalogue reads; unset: everything reads the primary. */
  databaseReadUrl: string | undefined;
  /** Beyond this replay lag the replica is left out until it catches up. */
  databaseReadMaxLagSeconds: number;
  /**
   * The sites (host[:port], lower case) SIWE/SIWS messages may name: the request's Host when it
   * is one of them, else the first. Empty: the Host of the nonce request, and only while HOST
   * is loopback (sign-in.ts).
   */
  signInDomains: string[];
  /** URI named in SIWE/SIWS messages; unset: https://{domain} (http:// for localhost). */
  signInUri: string | undefined;
  signInStatement: string;
  evmChainId: number;
  siwsChain: string;
  /** The operator's master credential: every scope, never stored; unset: no admin access. */
  adminKey: string | undefined;
  /** Requests a minute per service key on scoped routes, per server process; 0 = off. */
  serviceKeyRateLimitPerMinute: number;
  /** Events older than this many days are purged from the feed (maintenance.ts). */
  eventRetentionDays: number;
  /** Webhook delivery (webhooks/worker.ts; docs/events.md, "Webhooks"). */
  webhooks: {
    /** The delay after each failed attempt, in ms: 1 + its length attempts in all. */
    retrySchedule: number[];
    /** An endpoint failing every attempt for this long (ms) is disabled. */
    disableAfterMs: number;
    /** Development only: inward (loopback, private, …) targets allowed. */
    allowPrivate: boolean;
    /** Development only: http:// targets allowed. */
    allowHttp: boolean;
    /** DNS servers for webhook hosts; empty: the system resolver. */
    dnsServers: string[];
    /** Attempts in flight per server process, and per endpoint within it. */
    concurrency: number;
    endpointConcurrency: number;
  };
  /** NATS servers the relay publishes every event to (events/relay.ts); unset: no relay. */
  eventBusUrl: string | undefined;
  /** The JetStream stream the relay expects, or creates when no stream covers its subjects. */
  eventBusStream: string;
  /** Subjects are `<prefix>.<type>`; `signal.events` as the contract says (another for tests). */
  eventBusSubjectPrefix: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Splits concatenated PEM blocks (`JWT_PREVIOUS_PUBLIC_KEYS` may hold several). */
function splitPem(value: string | undefined): string[] {
  if (!value) return [];
  const text = value.replace(/\\n/g, '\n');
  return text.match(/-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g) ?? [];
}

export function loadConfig(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  if (e.DATABASE_READ_URL && !e.DATABASE_URL) {
    throw new ConfigError('Invalid configuration: DATABASE_READ_URL: needs DATABASE_URL (a replica of that primary)');
  }
  const previous = splitPem(e.JWT_PREVIOUS_PUBLIC_KEYS);
  if (e.JWT_PREVIOUS_PUBLIC_KEYS && previous.length === 0) {
    throw new ConfigError('Invalid configuration: JWT_PREVIOUS_PUBLIC_KEYS: must hold one or more PEM public keys');
  }
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration: HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS');
  }
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    dataDir: isAbsolute(e.DATA_DIR) ? e.DATA_DIR : resolve(cwd, e.DATA_DIR),
    seedProviders: e.SEED_PROVIDERS,
    nonceTtlSeconds: e.NONCE_TTL_SECONDS,
    authRateLimitPerMinute: e.AUTH_RATE_LIMIT_PER_MINUTE,
    followRateLimitPerMinute: e.FOLLOW_RATE_LIMIT_PER_MINUTE,
    readRateLimitPerMinute: e.READ_RATE_LIMIT_PER_MINUTE,
    newUserRateLimitPerHour: e.NEW_USER_RATE_LIMIT_PER_HOUR,
    newUserRateLimitPerHourPer56: e.NEW_USER_RATE_LIMIT_PER_HOUR_PER_56,
    jwtPrivateKey: e.JWT_PRIVATE_KEY,
    jwtPreviousPublicKeys: previous,
    jwtIssuer: e.JWT_ISSUER,
    jwtAudience: e.JWT_AUDIENCE,
    logLevel: e.LOG_LEVEL,
    trustProxy: e.TRUST_PROXY,
    corsOrigins: e.CORS_ORIGINS ?? [],
    databasePoolSize: e.DATABASE_POOL_SIZE,
    maxConnections: e.MAX_CONNECTIONS,
    maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    metrics: e.METRICS,
    metricsPort: e.METRICS_PORT,
    shutdownDelaySeconds: e.SHUTDOWN_DELAY_SECONDS,
    databasePreparedStatements: e.DATABASE_PREPARED_STATEMENTS,
    evmRpcUrl: e.EVM_RPC_URL,
    evmRpcTimeoutMs: e.EVM_RPC_TIMEOUT_MS,
    evmRpcMaxConcurrent: e.EVM_RPC_MAX_CONCURRENT,
    evmRpcMaxCallsPerMinute: e.EVM_RPC_MAX_CALLS_PER_MINUTE,
    evmRpcGasCap: e.EVM_RPC_GAS_CAP,
    publicCacheMaxAge: e.PUBLIC_CACHE_MAX_AGE,
    answerCacheMb: e.ANSWER_CACHE_MB,
    databaseReadUrl: e.DATABASE_READ_URL,
    databaseReadMaxLagSeconds: e.DATABASE_READ_MAX_LAG_SECONDS,
    signInDomains: e.SIGN_IN_DOMAIN ?? [],
    signInUri: e.SIGN_IN_URI,
    signInStatement: e.SIGN_IN_STATEMENT,
    evmChainId: e.EVM_CHAIN_ID,
    siwsChain: e.SIWS_CHAIN,
    adminKey: e.ADMIN_KEY,
    serviceKeyRateLimitPerMinute: e.SERVICE_KEY_RATE_LIMIT_PER_MINUTE,
    eventRetentionDays: e.EVENT_RETENTION_DAYS,
    webhooks: {
      retrySchedule: e.WEBHOOK_RETRY_SCHEDULE,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER,
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      allowHttp: e.WEBHOOK_ALLOW_HTTP,
      dnsServers: e.WEBHOOK_DNS_SERVERS ?? [],
      concurrency: e.WEBHOOK_CONCURRENCY,
      endpointConcurrency: e.WEBHOOK_ENDPOINT_CONCURRENCY,
    },
    eventBusUrl: e.EVENT_BUS_URL,
    eventBusStream: e.EVENT_BUS_STREAM,
    eventBusSubjectPrefix: e.EVENT_BUS_SUBJECT_PREFIX,
  };
}
