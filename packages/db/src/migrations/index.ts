import type { Migration } from 'kysely/migration';
import * as auth from './0001-auth.js';
import * as catalogue from './0002-catalogue.js';
import * as abuseLimits from './0003-abuse-limits.js';
import * as nonceIssue from './0004-nonce-issue.js';
import * as usedNonces from './0005-used-nonces.js';
import * as cacheVersions from './0007-cache-versions.js';
import * as sessions from './0008-sessions.js';
import * as serviceKeys from './0009-service-keys.js';
import * as catalogueWrites from './0010-catalogue-writes.js';
import * as idempotency from './0010b-idempotency.js';
import * as userWallets from './0011-user-wallets.js';
import * as events from './0012-events.js';
import * as eventFeed from './0012b-event-feed.js';
import * as nameSearch from './0014-name-search.js';
import * as figureSorts from './0014b-figure-sorts.js';
import * as eventRelay from './0015-event-relay.js';
import * as webhooks from './0016-webhooks.js';
import * as log from './0017-log.js';
import * as publishers from './0017b-publishers.js';
import * as keyMakers from './0018-key-makers.js';
import * as signals from './0019-signals.js';
import * as publisherKeys from './0021-publisher-keys.js';
import * as signalsNewest from './0022-signals-newest.js';

/**
 * Every migration, by name; names sort in the order they run. Never edit a released one.
 * There is no 0006 and no 0013: those numbers were taken by work that landed under other
 * numbers (0007, 0014), and no database ever ran a migration by either name; nothing is missing.
 */
export const migrations: Record<string, Migration> = {
  '0001-auth': auth,
  '0002-catalogue': catalogue,
  '0003-abuse-limits': abuseLimits,
  '0004-nonce-issue': nonceIssue,
  '0005-used-nonces': usedNonces,
  '0007-cache-versions': cacheVersions,
  '0008-sessions': sessions,
  '0009-service-keys': serviceKeys,
  '0010-catalogue-writes': catalogueWrites,
  '0010b-idempotency': idempotency,
  '0011-user-wallets': userWallets,
  '0012-events': events,
  '0012b-event-feed': eventFeed,
  '0014-name-search': nameSearch,
  '0014b-figure-sorts': figureSorts,
  '0015-event-relay': eventRelay,
  '0016-webhooks': webhooks,
  '0017-log': log,
  '0017b-publishers': publishers,
  '0018-key-makers': keyMakers,
  '0019-signals': signals,
  '0021-publisher-keys': publisherKeys,
  '0022-signals-newest': signalsNewest,
};
