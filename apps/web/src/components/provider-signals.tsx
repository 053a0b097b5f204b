/**
 * A provider's signals and what backs its figures. The list is `GET /providers/{id}/signals`
 * (newest first; as the signed-in user, so a follower sees the terms before the reveal). Beside
 * it, the record: which figures the operator's pipeline published (the performance series and
 * its signal count, which nothing here can check) and which the public log backs (every signed
 * signal, counted from the list, and the browser's own check of it: record-check.tsx).
 */
import { useMemo } from 'react';
import { formatCount } from '../format';
import { useSession } from '../session';
import { allSignals, type Signal, type SignalStatus } from '../signals';
import { useAsync } from '../use-async';
import { RecordCheck } from './record-check';
import { SignalCard, useNow } from './signal-card';
import { Empty, ErrorPanel, Loading } from './states';

const SHOWN = 20;

function statusCounts(signals: Signal[]): string {
  const counts: Record<SignalStatus, number> = { open: 0, closed: 0, cancelled: 0, expired: 0 };
  for (const signal of signals) counts[signal.status] += 1;
  return (Object.entries(counts) as [SignalStatus, number][])
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${formatCount(n)} ${status}`)
    .join(', ');
}

/** The pipeline's figures beside the log's, each saying whose word it is. */
function Record({
  providerId,
  pipelineSignals,
  signals,
}: {
  providerId: number;
  pipelineSignals: number;
  signals: Signal[];
}) {
  const statements = signals.reduce((n, signal) => n + signal.statements.length, 0);
  const hidden = signals.filter((signal) => signal.content === null).length;
  return (
    <div className="card record" data-testid="record">
      <h2>The record</h2>
      <dl className="record-figures">
        <div data-testid="record-pipeline">
          <dt>Published by the operator’s pipeline</dt>
          <dd>
            <strong>{formatCount(pipelineSignals)}</strong> signals, and every return, drawdown and win rate above
          </dd>
          <dd className="muted small">
            The operator’s word: its signal pipeline sends these figures with the performance series. No signature or
            log entry stands behind them, so nobody can check them here.
          </dd>
        </div>
        <div data-testid="record-log">
          <dt>Backed by the public log</dt>
          <dd>
            <strong>{formatCount(signals.length)}</strong> signed {signals.length === 1 ? 'signal' : 'signals'}
            {signals.length > 0 ? ` (${statusCounts(signals)})` : ''}, {formatCount(statements)}{' '}
            {statements === 1 ? 'statement' : 'statements'}
          </dd>
          <dd className="muted small">
            Each statement is signed by the provider’s wallet or a key it delegated and committed to the log when it was
            received{hidden > 0 ? `; ${formatCount(hidden)} still for followers only, as commitments` : ''}.
          </dd>
        </div>
      </dl>
      <RecordCheck providerId={providerId} signals={signals} />
    </div>
  );
}

export function ProviderSignals({ providerId, pipelineSignals }: { providerId: number; pipelineSignals: number }) {
  const { client } = useSession();
  const { state, reload } = useAsync(() => allSignals(client, providerId), [client, providerId]);
  const now = useNow();
  const signals = state.data;
  const shown = useMemo(() => signals?.slice(0, SHOWN) ?? [], [signals]);
  if (signals === undefined) {
    return state.status === 'error' ? (
      <ErrorPanel error={state.error} onRetry={reload} />
    ) : (
      <Loading label="Loading signals…" />
    );
  }
  return (
    <section className="provider-signals" data-testid="provider-signals">
      <Record providerId={providerId} pipelineSignals={pipelineSignals} signals={signals} />
      <div className="signals-header">
        <h2>Signals</h2>
        <a className="button button-quiet" href={`#/providers/${providerId}/publish`}>
          Publish as this provider
        </a>
      </div>
      {signals.length === 0 ? (
        <Empty title="No signed signals yet">
          This provider has published nothing through the log. Its publishers open signals from the{' '}
          <a href={`#/providers/${providerId}/publish`}>publisher page</a>.
        </Empty>
      ) : (
        <>
          <ol className="signal-list" data-testid="signals">
            {shown.map((signal) => (
              <SignalCard key={signal.id} signal={signal} now={now} />
            ))}
          </ol>
          {signals.length > shown.length ? (
            <p className="muted small">
              The {formatCount(shown.length)} newest of {formatCount(signals.length)} signals.
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
