/**
 * The floor: a hand-written Fastify + pg service answering the benchmarked endpoints with the
 * same SQL and the same JSON bodies as the service, and nothing else: no tRPC, no OpenAPI
 * mapping, no zod, no Kysely, hand-rolled parameter checks. Rows become bodies through the db
 * package's own mappers (plain functions), so the bodies are the same by construction.
 * Run as a child process by the bench.
 *
 * Two deliberate differences, both from the issue: `/offset/providers` is the page query with
 * a plain OFFSET (the naive deep page), and `/me` and follow take the user id from the bearer
 * token without checking its signature (the service's token check is what is being priced).
 * They do check the token's session in the database, with the service's statement, as any
 * service whose sign-out works must.
 */
import { randomUUID } from 'node:crypto';
import { buildAuthMessage } from '@signal/core';
import { createCursorCodec, cursorSecretFromSigningKey } from '@signal/core/cursor';
import { createNonceCodec, nonceSecretFromSigningKey } from '@signal/core/nonce';
import { createTokenService } from '@signal/core/token';
import { parseWallet } from '@signal/core/wallet';
import { PROVIDER_COLUMN_SQL, providerOfRow, toProviderStats, toUser } from '@signal/db';
import Fastify, { type FastifyReply } from 'fastify';
import pg from 'pg';
import { bareVerifyEvm, bareVerifySolana } from './wallets.js';

const env = process.env;
const INT8 = 20;
const NUMERIC = 1700;
const pool = new pg.Pool({
  connectionString: env.DATABASE_URL,
  max: Number(env.DATABASE_POOL_SIZE ?? 10),
  types: {
    getTypeParser: ((oid: number, format?: 'text') =>
      oid === INT8 || oid === NUMERIC ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  },
});
const tokens = await createTokenService({
  privateKeyPem: env.JWT_PRIVATE_KEY ?? '',
  issuer: 'signal-auth',
  audience: 'signal-api',
});
// The service's self-authenticating nonces, under the same secret (the same signing key).
const nonces = createNonceCodec(nonceSecretFromSigningKey(env.JWT_PRIVATE_KEY ?? ''));

// The service's cursors, sealed under the same key (the bench gives both the same signing key).
const cursors = createCursorCodec(cursorSecretFromSigningKey(env.JWT_PRIVATE_KEY ?? ''));

const SORT: Record<string, string> = {
  followerCount: 'follower_count',
  createdAt: 'created_at',
  name: 'name',
  id: 'id',
};
const COLUMNS = PROVIDER_COLUMN_SQL;

/**
 * The wire provider of a row read with COLUMNS: pg parses created_at into a Date, written as its ISO
 * text (the service selects that text from PostgreSQL instead; the baseline stays the plain way).
 */
function providerOf(row: object) {
  const read = row as { created_at: Date | string };
  read.created_at = (read.created_at as Date).toISOString();
  return providerOfRow(row);
}
const DIGITS = /^[0-9]+$/;

function fail(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.code(status).send({ code, message });
}

function pageQuery(query: Record<string, string | undefined>) {
  const { limit = '20', cursor } = query;
  let { page, sortBy, order } = query;
  if (!DIGITS.test(limit)) return null;
  let after: { key: string | number; id: number } | undefined;
  if (cursor !== undefined) {
    const at = cursors.open(cursor);
    // The baseline serves the sorts whose keys are never null.
    if (page !== undefined || !at || at.kind !== 'providers' || at.key === null) return null;
    if ((sortBy ?? at.sortBy) !== at.sortBy || (order ?? at.order) !== at.order) return null;
    ({ sortBy, order } = at);
    after = { key: at.key, id: at.id };
  }
  page ??= '1';
  sortBy ??= 'followerCount';
  order ??= 'desc';
  if (!DIGITS.test(page) || !(sortBy in SORT) || (order !== 'asc' && order !== 'desc')) return null;
  const p = Number(page);
  const l = Number(limit);
  if (p < 1 || l < 1 || l > 100) return null;
  const column = SORT[sortBy] as string;
  // Ties broken by id in the same direction, as the service does.
  const orderBy = (prefix: string) =>
    column === 'id' ? `${prefix}id ${order}` : `${prefix}${column} ${order}, ${prefix}id ${order}`;
  return { page: p, limit: l, offset: (p - 1) * l, orderBy, sortBy, order: order as 'asc' | 'desc', column, after };
}

const CASTS: Record<string, string> = { follower_count: 'integer', created_at: 'timestamptz', name: 'text' };
const UTC_MICROS = `to_char(p.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_key`;

interface PageRow {
  id: number;
  follower_count: number;
  name: string;
  cursor_key?: string;
}

/**
 * One page. By page number, `deferred` picks the ids from the sort index first, like the
 * service; after a cursor, the rows after its (key, id) straight from the index (keyset).
 */
async function listPage(query: Record<string, string | undefined>, reply: FastifyReply, deferred: boolean) {
  const q = pageQuery(query);
  if (!q) return fail(reply, 400, 'VALIDATION_ERROR', 'Invalid request');
  const total: number =
    (await pool.query('select provider_count from catalogue_counters')).rows[0]?.provider_count ?? 0;
  const columns = q.column === 'created_at' ? `${COLUMNS}, ${UTC_MICROS}` : COLUMNS;
  const keyOf = (row: PageRow) =>
    q.column === 'follower_count'
      ? row.follower_count
      : q.column === 'name'
        ? row.name
        : q.column === 'id'
          ? row.id
          : (row.cursor_key as string);
  const sealAfter = (row: PageRow) =>
    cursors.seal({ kind: 'providers', sortBy: q.sortBy, order: q.order, key: keyOf(row), id: row.id });
  const envelope = (rows: PageRow[], page: number | null, nextCursor: string | null) => ({
    items: rows.map(providerOf),
    page,
    limit: q.limit,
    total,
    totalPages: Math.ceil(total / q.limit),
    nextCursor,
  });
  if (q.after) {
    const op = q.order === 'desc' ? '<' : '>';
    const collate = q.column === 'name' ? ' collate "C"' : '';
    const where =
      q.column === 'id'
        ? `p.id ${op} $1`
        : `(p.${q.column}, p.id) ${op} (cast($3 as ${CASTS[q.column]})${collate}, $1)`;
    const values = q.column === 'id' ? [q.after.id, q.limit + 1] : [q.after.id, q.limit + 1, q.after.key];
    const { rows } = await pool.query<PageRow>(
      `select ${columns} from providers p where p.archived_at is null and ${where} order by ${q.orderBy('p.')} limit $2`,
      values,
    );
    const more = rows.length > q.limit;
    const items = more ? rows.slice(0, q.limit) : rows;
    return envelope(items, null, more ? sealAfter(items[items.length - 1] as PageRow) : null);
  }
  let rows: PageRow[] = [];
  if (q.offset < total) {
    const text = deferred
      ? `select ${columns} from providers p inner join (select id from providers where archived_at is null order by ${q.orderBy('')} limit $1 offset $2) k on k.id = p.id order by ${q.orderBy('p.')}`
      : `select ${columns} from providers p where p.archived_at is null order by ${q.orderBy('p.')} limit $1 offset $2`;
    rows = (await pool.query<PageRow>(text, [q.limit, q.offset])).rows;
  }
  const last = rows[rows.length - 1];
  return envelope(rows, q.page, last && q.offset + rows.length < total ? sealAfter(last) : null);
}

function providerId(params: unknown): number | null {
  const id = (params as { id: string }).id;
  return DIGITS.test(id) && Number(id) >= 1 && Number(id) <= Number.MAX_SAFE_INTEGER ? Number(id) : null;
}

/** The user id of a bearer token, read without verifying it (see the header comment). */
function bearerSession(authorization: string | undefined): { userId: number; sessionId: string } | null {
  const payload = authorization?.split('.')[1];
  if (!payload) return null;
  const { sub, sid } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  return typeof sub === 'string' && DIGITS.test(sub) && typeof sid === 'string'
    ? { userId: Number(sub), sessionId: sid }
    : null;
}

/**
 * The user id of a bearer token whose session is live: the session's row read by its key, its
 * last use written when a minute old (the service's statement), or null.
 */
async function liveSessionUser(authorization: string | undefined): Promise<number | null> {
  const session = bearerSession(authorization);
  if (!session) return null;
  const now = new Date();
  const { rows } = await pool.query(
    `with touched as (
       update sessions set last_used_at = $3
       where id = $1 and user_id = $2 and revoked_at is null and last_used_at < $4 returning id)
     select revoked_at from sessions where id = $1 and user_id = $2`,
    [session.sessionId, session.userId, now, new Date(now.getTime() - 60_000)],
  );
  return rows[0] && rows[0].revoked_at === null ? session.userId : null;
}

async function followState(userId: number, providerId: number, following: boolean) {
  const { rows } = await pool.query(
    'select follower_count, exists (select 1 from users u where u.id = $1) as user_exists from providers where id = $2',
    [userId, providerId],
  );
  const row = rows[0];
  if (!row?.user_exists) return null;
  return { providerId, following, followerCount: row.follower_count };
}

const app = Fastify({ logger: false });

app.get('/ready', async () => {
  await pool.query('select 1');
  return { status: 'ready' };
});

app.get('/providers', (req, reply) => listPage(req.query as Record<string, string>, reply, true));
app.get('/offset/providers', (req, reply) => listPage(req.query as Record<string, string>, reply, false));

// The search row's floor (operator-rows.ts): a plain sequential ILIKE over the names, the top 20
// by followers and the count of matches. `name || ''` is no indexed expression: no trigram index.
app.get('/ilike/providers', async (req, reply) => {
  const q = String((req.query as Record<string, string>).q ?? '');
  const pattern = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const { rows } = await pool.query(
    `select id::int, name, follower_count, count(*) over () as total from providers
     where archived_at is null and (name || '') ilike $1 order by follower_count desc, id desc limit 20`,
    [pattern],
  );
  reply
    .header('content-type', 'application/json')
    .send(JSON.stringify({ items: rows.map(({ total: _, ...item }) => item), total: Number(rows[0]?.total ?? 0) }));
});

app.get('/providers/:id', async (req, reply) => {
  const id = providerId(req.params);
  if (id === null) return fail(reply, 400, 'VALIDATION_ERROR', 'Invalid id');
  const { rows } = await pool.query(`select ${COLUMNS} from providers p where p.id = $1 and p.archived_at is null`, [
    id,
  ]);
  return rows[0] ? providerOf(rows[0]) : fail(reply, 404, 'PROVIDER_NOT_FOUND', `provider ${id} does not exist`);
});

const DAY_MS = 86_400_000;

app.get('/providers/:id/stats', async (req, reply) => {
  const id = providerId(req.params);
  if (id === null) return fail(reply, 400, 'VALIDATION_ERROR', 'Invalid id');
  const now = Date.now();
  const { rows } = await pool.query(
    `select p.id, p.follower_count, p.created_at, p.total_signals, p.win_rate, p.avg_return_pct, p.max_drawdown_pct,
            p.last_signal_at, p.stats_updated_at, p.roi_7d_pct, p.roi_30d_pct, p.roi_90d_pct, p.roi_all_pct,
            p.trading_days, to_char(p.as_of, 'YYYY-MM-DD') as as_of,
            (select count(*) from follows f where f.provider_id = p.id and f.created_at > $1) as gained_7d,
            (select count(*) from follows f where f.provider_id = p.id and f.created_at > $2) as gained_30d
     from providers p where p.id = $3 and p.archived_at is null`,
    [new Date(now - 7 * DAY_MS), new Date(now - 30 * DAY_MS), id],
  );
  return rows[0] ? toProviderStats(rows[0]) : fail(reply, 404, 'PROVIDER_NOT_FOUND', `provider ${id} does not exist`);
});

app.get('/auth/nonce', async (req, reply) => {
  const { wallet: input } = req.query as { wallet?: string };
  let wallet: ReturnType<typeof parseWallet>;
  try {
    wallet = parseWallet(input ?? '');
  } catch {
    return fail(reply, 400, 'INVALID_WALLET', 'Invalid wallet');
  }
  const expiresAt = Date.now() + 300_000;
  const nonce = nonces.issue({ wallet: wallet.wallet, expiresAt });
  return {
    nonce,
    message: buildAuthMessage(nonce),
    ...wallet,
    format: 'plain',
    expiresAt: new Date(expiresAt).toISOString(),
  };
});

app.post('/auth/verify', async (req, reply) => {
  const body = req.body as { wallet?: unknown; signature?: unknown; nonce?: unknown } | null;
  const { wallet: input, signature, nonce } = body ?? {};
  if (typeof input !== 'string' || typeof signature !== 'string' || typeof nonce !== 'string') {
    return fail(reply, 400, 'VALIDATION_ERROR', 'Invalid body');
  }
  let wallet: ReturnType<typeof parseWallet>;
  try {
    wallet = parseWallet(input);
  } catch {
    return fail(reply, 400, 'INVALID_WALLET', 'Invalid wallet');
  }
  const now = new Date();
  const opened = nonces.open(nonce, { wallet: wallet.wallet }, now);
  if (!opened.ok) return fail(reply, 401, 'INVALID_NONCE', opened.message);
  const verify = wallet.chain === 'evm' ? bareVerifyEvm : bareVerifySolana;
  if (!verify(wallet.wallet, buildAuthMessage(nonce), signature)) {
    const used = await pool.query('select 1 from used_nonces where nonce = $1', [nonce]);
    if (used.rows.length > 0) return fail(reply, 401, 'INVALID_NONCE', 'nonce has already been used');
    return fail(reply, 401, 'INVALID_SIGNATURE', 'signature is not valid');
  }
  const sessionId = randomUUID();
  const { rows } = await pool.query(
    `with consumed as (
       insert into used_nonces (nonce, wallet, expires_at, used_at) values ($2, $3, $5, $1)
       on conflict (nonce) do nothing
       returning wallet),
     login as (
       insert into users (wallet, chain, created_at, last_login_at)
       select consumed.wallet, $4::text, $1::timestamptz, $1::timestamptz from consumed
       on conflict (wallet) do update set last_login_at = excluded.last_login_at
       returning id, wallet, chain, created_at, last_login_at, xmax = 0 as inserted,
         ${FOLLOWING_COUNT_OF_USERS} as following_count,
         ${WALLETS_OF_USERS} as wallets),
     touched as (
       update user_wallets set last_login_at = $1 where wallet = $3),
     started as (
       insert into sessions (id, user_id, created_at, last_used_at, expires_at, user_agent, ip)
       select $6, login.id, $1, $1, $7, $8, $9 from login
       returning id)
     select * from login`,
    [
      now,
      nonce,
      wallet.wallet,
      wallet.chain,
      new Date(opened.record.expiresAt),
      sessionId,
      tokens.expiresAt(now),
      req.headers['user-agent']?.slice(0, 256) ?? null,
      req.ip,
    ],
  );
  const row = rows[0];
  if (!row) return fail(reply, 401, 'INVALID_NONCE', 'nonce has already been used');
  // The statement sees the wallets as they were before it: a new user's first wallet (inserted
  // with the user by the database) is written out here.
  if (row.inserted) {
    const at = (row.created_at as Date).toISOString();
    row.wallets = [{ wallet: row.wallet, chain: row.chain, linkedAt: at, primary: true, lastLoginAt: at }];
  }
  const issued = await tokens.issue({
    userId: row.id,
    wallet: wallet.wallet,
    chain: wallet.chain,
    sessionId,
    issuedAt: now,
  });
  return {
    token: issued.token,
    tokenType: 'Bearer',
    expiresAt: issued.expiresAt.toISOString(),
    user: toUser(row),
    isNewUser: row.inserted,
    sessionId,
  };
});

/** A user's linked wallets as wire items, oldest first (Version 3: several wallets per user). */
/** A user's following count as the service counts it: public providers only (an archived provider's
 * follows are kept for its restore but not counted), so the two answer alike whatever is archived. */
const FOLLOWING_COUNT_OF_USERS =
  '(select count(*) from follows f join providers p on p.id = f.provider_id where f.user_id = users.id and p.archived_at is null)';

const WALLETS_OF_USERS = `coalesce((
  select json_agg(json_build_object(
    'wallet', w.wallet, 'chain', w.chain,
    'linkedAt', to_char(w.linked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'primary', w.wallet = users.wallet,
    'lastLoginAt', to_char(w.last_login_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
  ) order by w.linked_at, w.wallet)
  from user_wallets w where w.user_id = users.id), '[]')`;

app.get('/me', async (req, reply) => {
  const userId = await liveSessionUser(req.headers.authorization);
  if (userId === null) return fail(reply, 401, 'UNAUTHORIZED', 'A token of a live session is required');
  const { rows } = await pool.query(
    `select id, wallet, chain, created_at, last_login_at,
       ${FOLLOWING_COUNT_OF_USERS} as following_count,
       ${WALLETS_OF_USERS} as wallets
     from users where id = $1`,
    [userId],
  );
  return rows[0] ? toUser(rows[0]) : fail(reply, 404, 'WALLET_NOT_FOUND', 'user not found');
});

app.post('/providers/:id/follow', async (req, reply) => {
  const id = providerId(req.params);
  if (id === null) return fail(reply, 400, 'VALIDATION_ERROR', 'Invalid request');
  const userId = await liveSessionUser(req.headers.authorization);
  if (userId === null) return fail(reply, 401, 'UNAUTHORIZED', 'A token of a live session is required');
  try {
    await pool.query(
      'insert into follows (user_id, provider_id, created_at) values ($1, $2, $3) on conflict (user_id, provider_id) do nothing',
      [userId, id, new Date()],
    );
  } catch (error) {
    if ((error as { code?: string }).code !== '23503') throw error;
  }
  return (await followState(userId, id, true)) ?? fail(reply, 404, 'PROVIDER_NOT_FOUND', 'not found');
});

app.delete('/providers/:id/follow', async (req, reply) => {
  const id = providerId(req.params);
  if (id === null) return fail(reply, 400, 'VALIDATION_ERROR', 'Invalid request');
  const userId = await liveSessionUser(req.headers.authorization);
  if (userId === null) return fail(reply, 401, 'UNAUTHORIZED', 'A token of a live session is required');
  await pool.query('delete from follows where user_id = $1 and provider_id = $2', [userId, id]);
  return (await followState(userId, id, false)) ?? fail(reply, 404, 'PROVIDER_NOT_FOUND', 'not found');
});

await app.listen({ port: Number(env.PORT), host: '127.0.0.1' });

const shutdown = () => {
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
