/**
 * The read replica (DATABASE_READ_URL) as the service uses it: public catalogue reads (list,
 * detail, stats) of requests without a token go to it; a request carrying a token and every
 * write use the primary, so a user always sees their own follows. Its state and replay lag
 * are logged and, with metrics on, exported as gauges.
 */
import { createReadReplica, type Database, type DatabaseHandle, type ReadReplica, type ReplicaEvent } from '@signal/db';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Context } from './context.js';

/** How often the lag is logged at info while nothing changes. */
const LAG_LOG_INTERVAL_MS = 60_000;

export async function openReadReplica(
  config: Config,
  primary: DatabaseHandle,
  log: Logger,
): Promise<ReadReplica | undefined> {
  if (!config.databaseReadUrl) return undefined;
  let lastLagLog = 0;
  const onEvent = (event: ReplicaEvent) => {
    if (event.kind === 'lag') {
      if (Date.now() - lastLagLog < LAG_LOG_INTERVAL_MS) return;
      lastLagLog = Date.now();
      log.info({ lagSeconds: event.lagSeconds }, 'read replica lag');
    } else if (event.kind === 'down') {
      log.warn({ err: event.error }, 'read replica unreachable: public reads go to the primary');
    } else if (event.kind === 'behind') {
      log.warn(
        { lagSeconds: event.lagSeconds, maxLagSeconds: event.maxLagSeconds },
        'read replica too far behind: public reads go to the primary until it catches up',
      );
    } else {
      log.info({ lagSeconds: event.lagSeconds }, 'read replica serving public reads again');
    }
  };
  const replica = createReadReplica({
    url: config.databaseReadUrl,
    primary: primary.db,
    poolSize: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
    maxLagSeconds: config.databaseReadMaxLagSeconds,
    onEvent,
  });
  // A replica down at start is no reason not to start: reads fall back until it answers.
  await replica.probe();
  return replica;
}

/**
 * Runs a public catalogue read: on the replica when there is one and the request carries no
 * token (any Authorization header counts: it reads the primary), else on the primary.
 */
export function readCatalogue<T>(ctx: Context, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const { replica, database } = ctx.services;
  if (!replica || ctx.req.headers.authorization !== undefined) return read(database.db);
  return replica.read(read);
}

/** The longest a write waits for the replica to replay it (see awaitReplicaAfterWrite). */
const REPLAY_WAIT_MS = 2_000;

/**
 * After a committed write: waits until the read replica has replayed it, so that the next public
 * read on every server using that replica shows it (a write's answer is not sent before). A
 * replica that does not catch up within REPLAY_WAIT_MS is taken out of service on this server
 * until its next probe; without a replica, nothing to wait for.
 */
export async function awaitReplicaAfterWrite(ctx: Context): Promise<void> {
  await ctx.services.replica?.awaitReplay(REPLAY_WAIT_MS);
}
