/**
 * Every wire type the SDK exposes, inferred from the API's router (and the error codes from
 * core, and the signals' from core's one zod schema per wire type, signal.schemas.ts and
 * publisher-key.schemas.ts) rather than written again by hand. This is the SDK's only window onto the private
 * packages' types: the build (scripts/flatten-wire-types.mjs) rewrites the emitted
 * `dist/wire.types.d.ts` into the resolved structural types, so the published declarations need
 * neither `@signal/api` nor `@trpc/server` nor zod.
 */
import type { AppRouter } from '@signal/api';
import type {
  ErrorCode as ContractErrorCode,
  ErrorIssue as ContractErrorIssue,
  PublisherKey as CorePublisherKey,
  PublisherKeyRevoked as CorePublisherKeyRevoked,
  Signal as CoreSignal,
  SignalContent as CoreSignalContent,
  SignalList as CoreSignalList,
  SignalLiveEvent as CoreSignalLiveEvent,
  SignalReceipt as CoreSignalReceipt,
  SignalStatementAnswer as CoreSignalStatementAnswer,
  SignalStatementView as CoreSignalStatementView,
  SignalStatus as CoreSignalStatus,
} from '@signal/core';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';

type Inputs = inferRouterInputs<AppRouter>;
type Outputs = inferRouterOutputs<AppRouter>;

/** Wallet family: `evm` or `solana`. */
export type Chain = Outputs['auth']['nonce']['chain'];
/** `GET /auth/nonce`: the single-use nonce and the exact message to sign. */
export type Nonce = Outputs['auth']['nonce'];
/**
 * `POST /auth/verify` (what `signIn()` returns): the access token, its expiry, the signed-in
 * user and `sessionId`, the id of the server-side session the sign-in started. The name
 * predates server-side sessions and is kept so existing code keeps compiling; one entry of the
 * session list (`GET /me/sessions`) is an {@link ActiveSession}.
 */
export type Session = Outputs['auth']['verify'];
/** `GET /me`. */
export type User = Outputs['me']['get'];
/** A provider of the catalogue. */
export type Provider = Outputs['providers']['get'];
/** `GET /providers/{id}/stats`. */
export type ProviderStats = Outputs['providers']['stats'];
/** A page of providers (`GET /providers`). */
export type ProviderPage = Outputs['providers']['list'];
/** A provider the user follows, with `followedAt`. */
export type FollowedProvider = Outputs['me']['following']['items'][number];
/** A page of followed providers, newest follow first (`GET /me/following`). */
export type FollowedProviderPage = Outputs['me']['following'];
/** Result of a follow (`following: true`); idempotent. */
export type FollowResult = Outputs['providers']['follow'];
/** Result of an unfollow (`following: false`); idempotent. */
export type UnfollowResult = Outputs['providers']['unfollow'];
/**
 * Page (or cursor), limit, sort field and direction, and filters of `providers.list`; every field
 * is optional. From the API's one schema (core's ProviderListQuerySchema and catalogue-search.ts).
 */
export type ProviderListQuery = Inputs['providers']['list'];
/**
 * What the catalogue sorts by: `followerCount` (default), `createdAt`, `name`, `id`, or a
 * performance figure, `roi7d`, `roi30d`, `roi90d`, `roiAll`, `maxDrawdown`, `winRate`,
 * `tradingDays` (a provider without the figure comes last in both orders).
 */
export type ProviderSortBy = NonNullable<ProviderListQuery['sortBy']>;
/** Sort direction: `desc` (default) or `asc`; ties by id in the same direction. */
export type SortOrder = NonNullable<ProviderListQuery['order']>;
/**
 * The filters of `providers.list`, combined with AND: `q` (name contains, 1..100 characters),
 * `minRoi30dPct`, `maxDrawdownPct`, `minWinRate` (0..1), `minTradingDays`, `minFollowers`. A
 * provider without a figure (null) fails a filter on it. A cursor carries its filters: send it
 * with the same ones, or alone.
 */
export type ProviderFilters = Omit<ProviderListQuery, 'page' | 'limit' | 'cursor' | 'sortBy' | 'order'>;
/** Page (or cursor) and limit of `me.following` and `sessions.list`; all optional. */
export type PageQuery = Inputs['me']['following'];
/**
 * One live session of the signed-in user (`GET /me/sessions`): a sign-in on some device, with
 * the user agent and client address it started from; `current` marks this client's own. Named
 * apart from {@link Session}, which is the sign-in result holding the token.
 */
export type ActiveSession = Outputs['sessions']['list']['items'][number];
/** A page of live sessions, newest first (`GET /me/sessions`). */
export type ActiveSessionPage = Outputs['sessions']['list'];
/** Result of `sessions.revoke(id)` (`DELETE /me/sessions/{id}`); idempotent. */
export type RevokedSession = Outputs['sessions']['revoke'];
/**
 * Which sessions `signOut()` ends: `current` (this client's, the default), `others` (every
 * other session of the user: "sign out everywhere else") or `all`.
 */
export type SignOutScope = NonNullable<Extract<Inputs['auth']['logout'], object>['scope']>;
/** A provider as the operator's writes answer it: with `archived`. */
export type ProviderWrite = Outputs['providers']['create'];
/** Result of `archiveProvider(id)` (`DELETE /providers/{id}`); idempotent. */
export type ProviderArchived = Outputs['providers']['archive'];
/** `POST /providers`: `name` (trimmed, 1..100 characters), optional `description` and https `avatarUrl`. */
export type ProviderCreateBody = Inputs['providers']['create'];
/** `PATCH /providers/{id}`: any non-empty subset of the fields, and `archived` to archive or restore. */
export type ProviderPatch = Omit<Inputs['providers']['update'], 'id'>;
/** `POST /providers/{id}/performance`: daily NAV `points` (≤ 1,000, upserted by date) and/or `signals`. */
export type PerformancePublishBody = Omit<Inputs['providers']['publish'], 'id'>;
/** `GET /providers/{id}/performance`: the chart of one window, as of the series' last date. */
export type Performance = Outputs['providers']['performance'];
/** `GET /log/proof/inclusion`: `{ index, size, leafHash, proof }`, hashes in padded base64. */
export type InclusionProof = Outputs['log']['inclusion'];
/** `GET /log/proof/consistency`: `{ from, to, proof }`, hashes in padded base64. */
export type ConsistencyProof = Outputs['log']['consistency'];
/** A chart window: `7d`, `30d`, `90d` (default), `1y` (365 days) or `all`. */
export type PerformanceWindow = Performance['window'];
/** One day of a chart: `roiPct` cumulative from the window's base, `drawdownPct` the fall from the peak since (≥ 0). */
export type PerformancePoint = Performance['points'][number];
/** A provider id: a positive integer. */
export type ProviderId = Inputs['providers']['get']['id'];
/** The contract's error codes. */
export type ContractCode = ContractErrorCode;
/** One field problem of a `VALIDATION_ERROR`. */
export type ErrorIssue = { [K in keyof ContractErrorIssue]: ContractErrorIssue[K] };
/** A wallet linked to the user (`GET /me/wallets`, `User.wallets`); `primary` is the one `User.wallet` names. */
export type LinkedWallet = Outputs['wallets']['link'];
/** Result of `unlinkWallet(wallet)` (`DELETE /me/wallets/{wallet}`). */
export type UnlinkedWallet = Outputs['wallets']['unlink'];
/** A service-key scope: `keys:manage`, `providers:write`, `stats:write`, `followers:read`, … */
export type Scope = Outputs['keys']['list']['items'][number]['scopes'][number];
/** A service key as listed (`GET /admin/keys`): never the secret, `start` recognises it. */
export type ServiceKey = Outputs['keys']['list']['items'][number];
/** `POST /admin/keys`: the new key with its secret `key`, shown in this answer only. */
export type CreatedServiceKey = Outputs['keys']['create'];
/** What `createKey` takes: a name, the scopes, and optionally when the key expires. */
export type CreateServiceKeyBody = Inputs['keys']['create'];
/** A page of service keys, newest first, revoked ones included. */
export type ServiceKeyPage = Outputs['keys']['list'];
/** Result of `revokeKey(id)` (`DELETE /admin/keys/{id}`); idempotent. */
export type RevokedServiceKey = Outputs['keys']['revoke'];
/** One follower of a provider: user id, wallet, chain and when it followed. */
export type Follower = Outputs['followers']['list']['items'][number];
/** A page of a provider's followers by user id (`GET /providers/{id}/followers`). */
export type FollowerPage = Outputs['followers']['list'];
/** A webhook endpoint (`GET /webhooks/{id}`): never its secret. */
export type WebhookEndpoint = Outputs['webhooks']['get'];
/** `POST /webhooks`: the new endpoint with its `whsec_` secret, shown in this answer only. */
export type CreatedWebhookEndpoint = Outputs['webhooks']['create'];
/** What `createWebhook` takes: `url`, `types` (`["*"]` for all) and an optional `description`. */
export type CreateWebhookBody = Inputs['webhooks']['create'];
/** `PATCH /webhooks/{id}`: any non-empty subset of `url`, `types`, `description`, `enabled`. */
export type WebhookPatch = Omit<Inputs['webhooks']['update'], 'id'>;
/** Result of `deleteWebhook(id)` (`DELETE /webhooks/{id}`). */
export type DeletedWebhook = Outputs['webhooks']['delete'];
/** One attempt of the deliveries log: `succeeded`, `failed`, or `pending` with its `nextAttemptAt`. */
export type DeliveryAttempt = Outputs['webhooks']['deliveries']['items'][number];
/** A page of an endpoint's deliveries log, newest first (`GET /webhooks/{id}/deliveries`). */
export type DeliveryPage = Outputs['webhooks']['deliveries'];
/**
 * An event (`GET /events`, `events.stream`, the bus, webhooks): `{ id, type, occurredAt, data }`
 * with `data` typed by `type` (docs/events.md). Named apart from the DOM's `Event`.
 */
export type SignalEvent = Outputs['events']['feed']['items'][number];
/** An event type: `follow.created`, `session.revoked`, … */
export type SignalEventType = SignalEvent['type'];
/**
 * A trading signal (`GET /providers/{id}/signals/{signalId}`) as this reader sees it: `content`
 * (the terms after every update) is null, and each statement's `statement`, `signer` and
 * `signature` are null, for a reader who may not see it yet (before `revealAt`, anyone but a
 * follower or a `signals:read` key).
 */
export type Signal = CoreSignal;
/** A signal's terms after every update, with `openPct` (100 minus every close, exact). */
export type SignalContent = CoreSignalContent;
/** `open`, `closed` (nothing left open), `cancelled` or `expired` (its `expiresAt` passed while open). */
export type SignalStatus = CoreSignalStatus;
/** One statement of a signal, in log order, with its commitment (hex SHA-256 of the statement). */
export type SignalStatementView = CoreSignalStatementView;
/** Where an accepted statement is in the log: `logIndex`, a signed `checkpoint` holding it, its inclusion `proof`. */
export type SignalReceipt = CoreSignalReceipt;
/** The answer of an open, update, close or cancel: the signal after it (with content) and the statement's receipt. */
export type SignalStatementAnswer = CoreSignalStatementAnswer;
/** A page of signals, newest first (`GET /providers/{id}/signals`, `GET /me/signals`); `nextCursor` null on the last. */
export type SignalList = CoreSignalList;
/** The data of a `signals.live` event: the statement's `type` and the signal after it. */
export type SignalLiveEvent = CoreSignalLiveEvent;
/**
 * A key delegated to sign for a provider (`POST /providers/{id}/publisher-keys`); `logIndex` is
 * always set in the delegation's answer (null in a list only before the next checkpoint).
 */
export type PublisherKey = CorePublisherKey;
/** Result of a key's revocation (`POST /providers/{id}/publisher-keys/{key}/revoke`); idempotent. */
export type PublisherKeyRevoked = CorePublisherKeyRevoked;
