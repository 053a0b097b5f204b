/**
 * The tRPC subscription `signals.live` (CONTRACT.md, Version 4, "Signals": Live): for a user's
 * JWT the providers it follows now (narrowed by `providerIds`), for a `signals:read` key (or
 * ADMIN_KEY) every provider or those named; one tracked event per signal statement, its id the
 * entry's log index, from now on or right after `lastEventId`, in log order (docs/signals.md,
 * "Live").
 *
 * Admission settles everything before the stream opens (http/trpc-stream.ts answers a refusal
 * with its status before any stream): the credential (401, 403), the stream slot (429, 503),
 * the input (400: `lastEventId` must be an index the log holds), where the stream starts (the
 * log's size now, read once: an entry sequenced after the client saw the stream connect is in
 * it) and the user's follows. The stream itself is the process's live hub's (ops/live-hub.ts),
 * which writes each event's bytes, made once, to every stream that carries it.
 */
import { DomainError } from '@signal/core';
import { followedProviderIds, readLogSize } from '@signal/db';
import { directStream } from '../wire/direct-stream.js';
import type { Context, LiveReader } from './context.js';
import { countServiceKeyRequest } from './rate-limit.js';
import {
  assertToken68,
  bearerText,
  resolveServiceCredential,
  type ServiceKeyIdentity,
  unknownServiceKey,
} from './service-credential.js';
import { authenticate, middleware, publicProcedure } from './trpc.js';

const SCOPE = 'signals:read';

const lacksScope = () => new DomainError('FORBIDDEN', `This service key lacks the scope ${SCOPE}`);

/**
 * A user's live session (ctx.auth) or a service key holding `signals:read` (ctx.serviceKey):
 * none or an unknown one → 401, a key without the scope → 403, a key past its rate → 429.
 */
const liveReader = middleware(async ({ ctx, next }) => {
  const token = bearerText(ctx.req);
  if (!ctx.services.tokens.verifiedClaims(token)) {
    const credential = await resolveServiceCredential(ctx.services, assertToken68(token));
    if (credential === 'unknown') throw unknownServiceKey();
    if (credential !== 'not-a-key') {
      countServiceKeyRequest(ctx, credential.id);
      if (!credential.scopes.includes(SCOPE)) throw lacksScope();
      return next({ ctx: { serviceKey: credential as ServiceKeyIdentity | undefined, auth: undefined } });
    }
  }
  return next({ ctx: { serviceKey: undefined as ServiceKeyIdentity | undefined, auth: await authenticate(ctx) } });
});

export const liveReaderProcedure = publicProcedure.use(liveReader);

const DECIMAL_INDEX = /^(0|[1-9][0-9]{0,15})$/;

function badLastEventId(message: string): DomainError {
  return new DomainError('VALIDATION_ERROR', `Invalid request: lastEventId: ${message}`, {
    issues: [{ path: ['lastEventId'], message }],
  });
}

export async function openSignalLive(
  ctx: Context & {
    releaseStream: () => void;
    serviceKey: ServiceKeyIdentity | undefined;
    auth: { userId: number; sessionId: string } | undefined;
  },
  input: { lastEventId?: string | undefined; providerIds?: number[] | undefined },
) {
  const { services } = ctx;
  const { db } = services.database;
  const size = await readLogSize(db);
  let after = size - 1;
  if (input.lastEventId) {
    const id = input.lastEventId;
    if (!DECIMAL_INDEX.test(id)) throw badLastEventId('an event id is a log index, a decimal integer');
    if (Number(id) >= size) throw badLastEventId(`no such event: the log holds ${size} entries`);
    after = Number(id);
  }
  const { serviceKey, auth } = ctx;
  const reader: LiveReader = serviceKey
    ? { kind: 'key', keyId: serviceKey.id }
    : { kind: 'user', userId: auth!.userId, sessionId: auth!.sessionId };
  const follows = reader.kind === 'user' ? await followedProviderIds(db, reader.userId) : undefined;
  const token = serviceKey ? bearerText(ctx.req) : undefined;
  const recheck = token
    ? async () => {
        const key = await resolveServiceCredential(services, token);
        if (key === 'unknown' || key === 'not-a-key') throw unknownServiceKey();
        if (!key.scopes.includes(SCOPE)) throw lacksScope();
      }
    : undefined;
  return directStream(async (res) => {
    try {
      await services.live.serve(res, {
        reader,
        providerIds: input.providerIds,
        follows,
        after,
        ...(recheck ? { recheck } : {}),
      });
    } finally {
      ctx.releaseStream();
    }
  });
}
