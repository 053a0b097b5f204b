/**
 * New statements of the followed providers' signals as they are published: the API's
 * `signals.live` subscription through the SDK (`client.signals.live`), resumed right after the
 * newest statement the page already shows (`lastEventId`, a log index), so nothing published
 * between the list's read and the stream's start is missed; a dropped connection resumes by
 * itself after the last event handed out.
 */
import type { SignalClient, SignalLiveEvent } from '@signal/sdk';

export type LiveState = 'listening' | 'stopped';

export function watchSignals(
  client: SignalClient,
  after: number | undefined,
  onSignal: (event: SignalLiveEvent) => void,
  onStopped: (error: unknown) => void,
): () => void {
  return client.signals.live((event) => onSignal(event), {
    ...(after === undefined ? {} : { lastEventId: String(after) }),
    onError: onStopped,
  });
}
