import type { Provider, ProviderStats } from '@signal/sdk';
import { Avatar } from '../components/avatar';
import { type Bar, BarChart } from '../components/bar-chart';
import { FollowButton } from '../components/follow-button';
import { ErrorPanel, Loading } from '../components/states';
import { formatAgo, formatCount, formatDate, formatDateTime, formatRate, formatReturn } from '../format';
import { catalogueHref, DEFAULT_VIEW } from '../router';
import { useSession } from '../session';
import { useAsync } from '../use-async';

function Figure({ label, value, hint, tone }: { label: string; value: string; hint?: string; tone?: 'up' | 'down' }) {
  return (
    <div className="figure" data-figure={label}>
      <dt>{label}</dt>
      <dd className={tone ? `tone-${tone}` : undefined}>{value}</dd>
      {hint ? <dd className="figure-hint">{hint}</dd> : null}
    </div>
  );
}

const toneOf = (value: number) => (value > 0 ? 'up' : value < 0 ? 'down' : undefined);

function Statistics({ stats }: { stats: ProviderStats }) {
  const wins = Math.round(stats.totalSignals * stats.winRate);
  const followers: Bar[] = [
    { label: 'All followers', value: stats.followerCount, text: formatCount(stats.followerCount), tone: 'accent' },
    {
      label: 'New, last 30 days',
      value: stats.followersGained30d,
      text: formatCount(stats.followersGained30d),
      tone: 'muted',
    },
    {
      label: 'New, last 7 days',
      value: stats.followersGained7d,
      text: formatCount(stats.followersGained7d),
      tone: 'muted',
    },
  ];
  const performance: Bar[] = [
    { label: 'Win rate', value: stats.winRate * 100, text: formatRate(stats.winRate), tone: 'accent' },
    {
      label: 'Total return',
      value: stats.totalReturnPct,
      text: formatReturn(stats.totalReturnPct),
      tone: stats.totalReturnPct < 0 ? 'down' : 'up',
    },
    {
      label: 'Avg return / signal',
      value: stats.avgReturnPct,
      text: formatReturn(stats.avgReturnPct),
      tone: stats.avgReturnPct < 0 ? 'down' : 'up',
    },
    // A magnitude on the wire (41.9 = a 41.9% fall); drawn as the loss it is.
    { label: 'Max drawdown', value: -stats.maxDrawdownPct, text: formatReturn(-stats.maxDrawdownPct), tone: 'down' },
  ];
  return (
    <>
      <dl className="figures" data-testid="figures">
        <Figure
          label="Followers"
          value={formatCount(stats.followerCount)}
          hint={`+${formatCount(stats.followersGained7d)} this week`}
        />
        <Figure
          label="Signals"
          value={formatCount(stats.totalSignals)}
          hint={stats.lastSignalAt ? `latest ${formatAgo(stats.lastSignalAt)}` : 'none yet'}
        />
        <Figure
          label="Win rate"
          value={formatRate(stats.winRate)}
          hint={`${formatCount(wins)} of ${formatCount(stats.totalSignals)} won`}
        />
        <Figure
          label="Avg return"
          value={formatReturn(stats.avgReturnPct)}
          hint="per signal"
          tone={toneOf(stats.avgReturnPct)}
        />
        <Figure
          label="Total return"
          value={formatReturn(stats.totalReturnPct)}
          hint="all signals"
          tone={toneOf(stats.totalReturnPct)}
        />
        <Figure label="Max drawdown" value={formatReturn(-stats.maxDrawdownPct)} hint="peak to trough" tone="down" />
      </dl>
      <div className="charts">
        <BarChart title="Followers" bars={followers} />
        <BarChart title="Performance" bars={performance} />
      </div>
      <p className="muted small">Statistics updated {formatDateTime(stats.updatedAt)}.</p>
    </>
  );
}

export function ProviderPage({ id }: { id: number }) {
  const { client } = useSession();
  const { state, reload, update } = useAsync(
    () => Promise.all([client.providers.get(id), client.providers.stats(id)]),
    [client, id],
  );
  const back = (
    <a className="back" href={catalogueHref(DEFAULT_VIEW)}>
      ← All providers
    </a>
  );
  if (state.data === undefined) {
    return (
      <section>
        {back}
        {state.status === 'error' ? (
          <ErrorPanel error={state.error} onRetry={reload} />
        ) : (
          <Loading label="Loading provider…" />
        )}
      </section>
    );
  }
  const [provider, stats]: [Provider, ProviderStats] = state.data;
  return (
    <section data-testid="provider" data-provider-id={provider.id}>
      {back}
      {state.status === 'error' ? <ErrorPanel error={state.error} onRetry={reload} /> : null}
      <div className="card provider-card">
        <Avatar name={provider.name} url={provider.avatarUrl} id={provider.id} size={72} />
        <div className="provider-main">
          <h1>{provider.name}</h1>
          <p className="provider-about">{provider.description ?? 'This provider has not written a description.'}</p>
          <p className="muted small">
            Listed {formatDate(provider.createdAt)} · ID {provider.id}
          </p>
        </div>
        <div className="provider-side">
          <div className="follower-count" data-testid="follower-count">
            <strong>{formatCount(provider.followerCount)}</strong>{' '}
            {provider.followerCount === 1 ? 'follower' : 'followers'}
          </div>
          <FollowButton
            providerId={provider.id}
            onChange={(result) => {
              // The count comes with the answer; the 7/30-day figures are fetched again.
              update(([current, currentStats]) => [
                { ...current, followerCount: result.followerCount },
                { ...currentStats, followerCount: result.followerCount },
              ]);
              reload();
            }}
          />
        </div>
      </div>
      <Statistics stats={stats} />
    </section>
  );
}
