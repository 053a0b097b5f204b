/**
 * `signals.live` (tRPC only: a subscription over server-sent events, written by the process's
 * live hub; see procedures/signal-live.ts and http/trpc-stream.ts). Merged into the `signals`
 * namespace beside the signal routes.
 */
import { type SignalLiveEvent, SignalLiveInputSchema } from '@signal/core';
import type { TrackedEnvelope } from '@trpc/server';
import { liveReaderProcedure, openSignalLive } from '../signal-live.js';
import { holdStreamSlot } from '../stream-slots.js';
import { router } from '../trpc.js';

export const signalLiveRouter = router({
  live: liveReaderProcedure
    .use(holdStreamSlot)
    .meta({ errors: ['FORBIDDEN'] })
    .input(SignalLiveInputSchema)
    // The hub writes the events itself; to tRPC's types (and the SDK's) they are tracked events.
    .subscription(
      async ({ input, ctx }) =>
        (await openSignalLive(ctx, input ?? {})) as unknown as AsyncIterable<TrackedEnvelope<SignalLiveEvent>>,
    ),
});
