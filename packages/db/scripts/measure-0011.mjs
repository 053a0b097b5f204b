// Times migration 0011 (pnpm --filter @signal/db build first; run from packages/db: node scripts/measure-0011.mjs) on 1M users (scratch database), and how long writers wait meanwhile:
// a sign-in-like write to users and a session check, each in a loop on its own connection.

import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { createDatabase, migrateToLatest } from '../dist/index.js';
import { migrations } from '../dist/migrations/index.js';
import { createScratchDatabase } from '../dist/testing.js';

const scratch = await createScratchDatabase();
const handle = createDatabase({ url: scratch.url });
try {
  const before = new Migrator({
    db: handle.db,
    allowUnorderedMigrations: true,
    provider: { getMigrations: async () => Object.fromEntries(Object.entries(migrations).filter(([n]) => n < '0011')) },
  });
  await before.migrateToLatest();
  let t = Date.now();
  await sql`insert into users (wallet, chain, created_at, last_login_at)
    select '0x' || lpad(to_hex(g), 40, '0'), 'evm', now() - g * interval '1 second', now() from generate_series(1, 1000000) g`.execute(
    handle.db,
  );
  await sql`insert into sessions (id, user_id, created_at, last_used_at, expires_at)
    select 's' || id, id, now(), now(), now() + interval '30 days' from users`.execute(handle.db);
  await sql`vacuum analyze`.execute(handle.db);
  console.log(`setup: 1M users + 1M sessions in ${Date.now() - t} ms`);
  let running = true;
  const probe = async (text) => {
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    let worst = 0;
    while (running) {
      const s = Date.now();
      await client.query(text);
      worst = Math.max(worst, Date.now() - s);
      await new Promise((r) => setTimeout(r, 20));
    }
    await client.end();
    return worst;
  };
  const writer = probe(`update users set last_login_at = now() where id = 1`);
  const newUser = probe(`insert into users (wallet, chain) values ('0x' || md5(random()::text), 'evm')`);
  const session = probe(`select revoked_at from sessions where id = 's2'`);
  await new Promise((r) => setTimeout(r, 300));
  t = Date.now();
  console.log(await migrateToLatest(handle.db));
  console.log(`migration 0011 on 1M users: ${Date.now() - t} ms`);
  running = false;
  console.log(
    `longest wait: user update ${await writer} ms, user insert ${await newUser} ms, session read ${await session} ms`,
  );
  const { rows } =
    await sql`select pg_size_pretty(pg_total_relation_size('user_wallets')) as size, (select count(*) from user_wallets) as n, (select count(*) from users) as users,
    (select count(*) from users u where not exists (select 1 from user_wallets w where w.user_id = u.id and w.wallet = u.wallet)) as missing`.execute(
      handle.db,
    );
  console.log(rows);
} finally {
  await handle.close();
  await scratch.drop();
}
