/**
 * The demo seed's signals (CONTRACT.md, Version 4, "Signals": "The demo seed gives its providers
 * publisher keys and signals … through the same code"; docs/demo-app.md, "Signals in the demo").
 * Once the server listens, the process that seeded the demo catalogue acts as its providers'
 * publishers would, over its own HTTP routes: every key delegation and signal statement is a
 * signed RFC 8785 statement POSTed to the contract's path, checked, logged and answered by the
 * very code that serves everyone (and only answered once its entry is in a signed checkpoint),
 * so the log and the reads show nothing the routes would not have accepted.
 *
 * Operator actions have no signed statement: making a wallet a publisher and setting a reveal
 * delay are the publisher and provider-write routes' own database writes (@signal/db's
 * addPublisher, updateProvider), with their log entry and events, run here without a service key.
 *
 * The demo keys are derived from the provider id (`demoPublisherKeys`): anyone who reads this file
 * can sign as a demo publisher, which is the point of a demo (the browser tests and a developer's
 * browser wallet use them) and why SEED_PROVIDERS is for demos only.
 */
import { createHash, createPrivateKey, randomBytes, sign as signEd25519 } from 'node:crypto';
import { canonicalJson, type JsonValue } from '@signal/core/statements';
import { addPublisher, appendEvents, type Database, updateProvider } from '@signal/db';
import bs58 from 'bs58';
import type { Kysely } from 'kysely';
import { privateKeyToAccount } from 'viem/accounts';
import type { Services } from '../procedures/context.js';

/** Providers seeded at once: each waits for its answers' checkpoints, and the log signs one for all of them. */
const CONCURRENCY = 10;

/** The deterministic demo keys of provider `id`: its publisher wallet (EVM) and the bot key it delegates. */
export function demoPublisherKeys(id: number): { walletPrivateKey: `0x${string}`; botSeed: Buffer } {
  const digest = (label: string) => createHash('sha256').update(`signal demo ${label} ${id}`).digest();
  return { walletPrivateKey: `0x${digest('publisher wallet').toString('hex')}`, botSeed: digest('bot key') };
}

/** PKCS#8 DER prefix of an Ed25519 private key: node:crypto takes the 32-byte seed after it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

interface Signer {
  id: string;
  sign(text: string): Promise<string>;
}

function walletSigner(privateKey: `0x${string}`): Signer {
  const account = privateKeyToAccount(privateKey);
  return { id: account.address, sign: (message) => account.signMessage({ message }) };
}

function botSigner(seed: Buffer): Signer {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const raw = Buffer.from((key.export({ format: 'jwk' }) as { x: string }).x, 'base64url');
  return {
    id: `ed25519:${bs58.encode(raw)}`,
    sign: async (text) => bs58.encode(signEd25519(null, Buffer.from(text, 'utf8'), key)),
  };
}

/**
 * The most statements one signer of the seed signs for a provider, all within a minute: the bot
 * key's five of the six opens, an update, three closes and a cancel (the wallet signs three). Under a
 * per-signer limit below it the seed would stop half-way, so it does not start.
 */
const SEED_STATEMENTS_PER_SIGNER = 10;

/** A statement route refused the seed's statement: the seed stops that provider and says why. */
class SeedRefused extends Error {}

const opaqueId = () => randomBytes(12).toString('base64url');
const salt = () => randomBytes(16).toString('base64url');

/** One provider's publisher, posting to this server's routes. */
function publisher(baseUrl: string, log: string, provider: number) {
  let posted = 0;
  async function post(path: string, fields: Record<string, JsonValue>, by: Signer): Promise<Record<string, unknown>> {
    const statement = canonicalJson({ v: 1, log, provider, issuedAt: new Date().toISOString(), ...fields });
    const body = { statement, signer: by.id, signature: await by.sign(statement) };
    const res = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = (await res.json().catch(() => ({}))) as Record<string, unknown>;
    if (res.status !== 201 && res.status !== 200) {
      throw new SeedRefused(`${path}: ${res.status} ${String(answer.code)} ${String(answer.message)}`);
    }
    posted += 1;
    return answer;
  }
  const signals = `/providers/${provider}/signals`;
  return {
    posted: () => posted,
    delegate: (key: string, by: Signer) =>
      post(
        `/providers/${provider}/publisher-keys`,
        { type: 'key.delegate', key, expiresAt: new Date(Date.now() + 180 * 86_400_000).toISOString() },
        by,
      ),
    async open(terms: Record<string, JsonValue>, by: Signer): Promise<string> {
      const id = opaqueId();
      await post(signals, { type: 'signal.open', id, salt: salt(), ...terms }, by);
      return id;
    },
    change: (signal: string, type: string, fields: Record<string, JsonValue>, by: Signer) =>
      post(`${signals}/${signal}/updates`, { type, id: opaqueId(), salt: salt(), signal, ...fields }, by),
  };
}

/** Prices near each instrument's level, from a small generator seeded by the provider id. */
function priceSource(seed: number) {
  let state = seed * 2654435761;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return (level: number, spread: number, digits: number) => (level * (1 + (next() - 0.5) * spread)).toFixed(digits);
}

const INSTRUMENTS: [instrument: string, level: number, digits: number][] = [
  ['BTC-USD', 97_000, 0],
  ['ETH-USD', 3_400, 1],
  ['SOL-USD', 180, 2],
  ['EUR/USD', 1.08, 4],
  ['XAU/USD', 2_650, 1],
  ['ES:CME', 6_050, 2],
  ['LINK-USD', 21, 3],
  ['ARB-USD', 0.78, 4],
];

/**
 * Reveal delays by rank (seconds): most providers reveal at once, some after a delay, and two
 * switch to a delay halfway, so one page shows revealed and unrevealed signals together.
 */
const DELAYS: { before: number; after: number }[] = [
  { before: 0, after: 3_600 },
  { before: 0, after: 0 },
  { before: 86_400, after: 86_400 },
  { before: 0, after: 900 },
  { before: 0, after: 0 },
  { before: 14_400, after: 14_400 },
  { before: 0, after: 0 },
  { before: 600, after: 600 },
  { before: 0, after: 0 },
  { before: 3_600, after: 3_600 },
];

async function setRevealDelay(services: Pick<Services, 'database' | 'now'>, id: number, seconds: number) {
  await services.database.db.transaction().execute(async (trx) => {
    const outcome = await updateProvider(trx, id, { revealDelaySeconds: seconds }, services.now());
    if (outcome !== 'provider-not-found' && outcome.changes.length > 0) {
      await appendEvents(trx, [{ type: 'provider.updated', data: { providerId: id } }]);
    }
  });
}

/** Adds the provider's demo wallet as a publisher; false when it already was one (another start seeded it). */
async function claimProvider(
  services: Pick<Services, 'database' | 'now' | 'logSequencer'>,
  id: number,
  wallet: string,
) {
  const outcome = await services.database.db
    .transaction()
    .execute((trx) => addPublisher(trx, { providerId: id, wallet, chain: 'evm', now: services.now() }));
  if (outcome.kind !== 'added') return false;
  services.logSequencer.kick();
  return true;
}

/** One provider's history: a delegated bot key, then six signals opened, changed and ended as a desk would. */
async function seedProvider(services: Services, baseUrl: string, id: number, rank: number): Promise<number> {
  const keys = demoPublisherKeys(id);
  const wallet = walletSigner(keys.walletPrivateKey);
  const bot = botSigner(keys.botSeed);
  if (!(await claimProvider(services, id, wallet.id))) return 0;
  const delay = DELAYS[rank % DELAYS.length]!;
  await setRevealDelay(services, id, delay.before);
  const pub = publisher(baseUrl, services.logSequencer.origin, id);
  const price = priceSource(id);
  const instrument = (k: number) => INSTRUMENTS[(id + k) % INSTRUMENTS.length]!;
  const terms = (k: number, side: 'long' | 'short', extra: Record<string, JsonValue> = {}) => {
    const [name, level, digits] = instrument(k);
    const sign = side === 'long' ? 1 : -1;
    return {
      instrument: name,
      side,
      entry: { type: 'market' },
      stop: price(level * (1 - sign * 0.03), 0.01, digits),
      targets: [price(level * (1 + sign * 0.04), 0.01, digits), price(level * (1 + sign * 0.08), 0.01, digits)],
      sizePct: ['2', '5', '2.5', '10'][k % 4]!,
      expiresAt: null,
      ...extra,
    };
  };

  await pub.delegate(bot.id, wallet);
  // The opens one after another (the list's order is theirs), each signal's changes in its own
  // chain beside the next opens: ten round trips a provider rather than fourteen.
  const chains: Promise<void>[] = [];
  let refused: unknown;
  const then = (signal: Promise<string>, ...steps: ((id: string) => Promise<unknown>)[]) =>
    chains.push(
      signal
        .then(async (id) => {
          for (const step of steps) await step(id);
        })
        // Caught at once (never an unhandled rejection while the opens go on), thrown below.
        .catch((error: unknown) => {
          refused ??= error;
        }),
    );
  // 1. Taken in two halves: closed.
  const first = await pub.open(terms(0, 'long', { note: 'Breakout above the weekly range.' }), bot);
  then(
    Promise.resolve(first),
    (id) => pub.change(id, 'signal.update', { stop: terms(0, 'long').stop as string }, bot),
    (id) => pub.change(id, 'signal.close', { closePct: '50' }, bot),
    (id) => pub.change(id, 'signal.close', { closePct: '50' }, bot),
  );
  // 2. Signed by the wallet itself, targets moved: open.
  const second = await pub.open(terms(1, 'short'), wallet);
  then(Promise.resolve(second), (id) =>
    pub.change(id, 'signal.update', { targets: terms(1, 'short').targets as string[] }, wallet),
  );
  // 3. Cancelled before the entry.
  const [, level, digits] = instrument(2);
  const third = await pub.open(
    terms(2, 'long', { entry: { type: 'limit', price: price(level * 0.97, 0.005, digits) } }),
    bot,
  );
  then(Promise.resolve(third), (id) => pub.change(id, 'signal.cancel', {}, bot));
  if (delay.after !== delay.before) await setRevealDelay(services, id, delay.after);
  // 4. A third taken off: 66.7 % still open.
  const fourth = await pub.open(terms(3, 'short', { note: 'Fading the squeeze; scaling out.' }), bot);
  then(Promise.resolve(fourth), (id) => pub.change(id, 'signal.close', { closePct: '33.3' }, bot));
  // 5. Expires two minutes after the start, untouched.
  await pub.open(terms(4, 'long', { expiresAt: new Date(Date.now() + 120_000).toISOString() }), bot);
  // 6. The newest: open.
  await pub.open(terms(5, rank % 2 === 0 ? 'long' : 'short'), bot);
  await Promise.all(chains);
  if (refused) throw refused;
  return pub.posted();
}

export interface DemoSignalsResult {
  providers: number;
  statements: number;
  ms: number;
}

/**
 * Gives the most followed demo providers publishers, keys and signals, posting to `baseUrl` (this
 * server). Runs only where the publisher table is empty (a fresh demo), and a provider whose demo
 * wallet is a publisher already is left to whoever added it, so concurrent starts do not seed twice.
 */
export async function seedDemoSignals(services: Services, baseUrl: string): Promise<DemoSignalsResult | null> {
  const started = performance.now();
  const limit = services.config.signalRateLimitPerMinute;
  if (limit > 0 && limit < SEED_STATEMENTS_PER_SIGNER) {
    // Half a demo, never re-run (the catalogue is no longer fresh), would be worse than none.
    services.log.warn(
      `demo signals not seeded: SIGNAL_RATE_LIMIT_PER_MINUTE=${limit} is below the ${SEED_STATEMENTS_PER_SIGNER} statements a minute the seed's bot key signs`,
    );
    return null;
  }
  const { db } = services.database;
  const any = await db.selectFrom('provider_publishers').select('provider_id').limit(1).executeTakeFirst();
  if (any) return null;
  const ids = await topProviders(db, services.config.seedSignalProviders);
  let statements = 0;
  const queue = ids.map((id, rank) => ({ id, rank }));
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        try {
          const posted = await seedProvider(services, baseUrl, next.id, next.rank);
          statements += posted;
        } catch (error) {
          failures.push(`provider ${next.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }),
  );
  if (failures.length > 0) services.log.warn({ failures }, 'demo signals: some providers were not seeded');
  return { providers: ids.length - failures.length, statements, ms: Math.round(performance.now() - started) };
}

async function topProviders(db: Kysely<Database>, count: number): Promise<number[]> {
  const rows = await db
    .selectFrom('providers')
    .select('id')
    .where('archived_at', 'is', null)
    .orderBy('follower_count', 'desc')
    .orderBy('id', 'asc')
    .limit(count)
    .execute();
  return rows.map((row) => Number(row.id));
}
