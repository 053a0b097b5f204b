/**
 * `#/signals`: the signed-in user's signals, from the providers they follow, newest first
 * (`GET /me/signals`), and new ones as they are published (`signals.live`, live-signals.ts):
 * a statement of a followed provider moves its signal to the top, highlighted, with no reload.
 */
import { useEffect, useRef, useState } from 'react';
import { describeProblem } from '../api';
import { SignalCard, useNow } from '../components/signal-card';
import { SignedInPage } from '../components/signed-in-page';
import { Empty, ErrorPanel, Loading } from '../components/states';
import { type LiveState, watchSignals } from '../live-signals';
import { catalogueHref, DEFAULT_VIEW, providerHref } from '../router';
import { useSession } from '../session';
import { lastLogIndex, type Signal } from '../signals';
import { useAsync } from '../use-async';

function Feed() {
  const { client, authed, followed } = useSession();
  const { state, reload } = useAsync(() => authed((active) => active.signals.mine({ limit: 50 })), [client]);
  const [live, setLive] = useState<Signal[]>([]);
  const [stopped, setStopped] = useState<string>();
  const fresh = useRef(new Set<string>());
  const now = useNow();
  const loaded = state.status === 'ready' ? state.data.items : undefined;

  // Once the list is read: the stream from right after its newest statement.
  useEffect(() => {
    if (!loaded) return;
    setStopped(undefined);
    return watchSignals(
      client,
      lastLogIndex(loaded),
      (event) => {
        fresh.current.add(event.signal.id);
        setLive((known) => [event.signal, ...known.filter((signal) => signal.id !== event.signal.id)]);
      },
      (error) => setStopped(describeProblem(error).detail),
    );
  }, [client, loaded]);

  if (state.data === undefined) {
    return state.status === 'error' ? (
      <ErrorPanel error={state.error} onRetry={reload} />
    ) : (
      <Loading label="Loading signals…" />
    );
  }
  const seen = new Set(live.map((signal) => signal.id));
  const signals = [...live, ...state.data.items.filter((signal) => !seen.has(signal.id))];
  const liveState: LiveState = stopped ? 'stopped' : 'listening';
  return (
    <>
      <p className={`live-state live-${liveState}`} data-testid="live-state" data-state={liveState} role="status">
        {stopped
          ? `The live stream stopped: ${stopped} Reload for new signals.`
          : 'Live: new signals and changes of the providers you follow appear here as they are published.'}
      </p>
      {signals.length === 0 ? (
        <Empty title={followed && followed.size === 0 ? 'You follow nobody yet' : 'No signals yet'}>
          {followed && followed.size === 0 ? (
            <a href={catalogueHref(DEFAULT_VIEW)}>Find providers to follow</a>
          ) : (
            'The providers you follow have published nothing yet. New signals appear here as they are published.'
          )}
        </Empty>
      ) : (
        <ol className="signal-list" data-testid="feed">
          {signals.map((signal) => (
            <SignalCard key={signal.id} signal={signal} now={now} fresh={fresh.current.has(signal.id)}>
              <p className="small">
                <a href={providerHref(signal.providerId)}>Provider {signal.providerId}</a>
              </p>
            </SignalCard>
          ))}
        </ol>
      )}
    </>
  );
}

export function SignalsPage() {
  return (
    <SignedInPage
      title="Signals"
      lede="Signals of the providers you follow, newest first. As a follower you see their terms at once, before the public does."
      prompt="Sign in to see the signals of the providers you follow"
    >
      <Feed />
    </SignedInPage>
  );
}
