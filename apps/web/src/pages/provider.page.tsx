import type { Provider, ProviderStats } from '@signal/sdk';
import { Avatar } from '../components/avatar';
import { FollowButton } from '../components/follow-button';
import { PerformancePanel } from '../components/performance-panel';
import { ProviderSignals } from '../components/provider-signals';
import { ErrorPanel, Loading } from '../components/states';
import {
  formatAgo,
  formatCount,
  formatDate,
  formatDateTime,
  formatDay,
  formatDrawdown,
  formatPct,
  formatRate,
  formatReturn,
  MISSING,
  toneClass,
} from '../format';
import { catalogueHref, DEFAULT_VIEW } from '../router';
import { useSession } from '../session';
import { useAsync } from '../use-async';

function Figure({ label, value, hint, tone }: { label: string; value: string; hint?: string; tone?: string }) {
  return (
    <div className="figure" data-figure={label}>
      <dt>{label}</dt>
      <dd className={tone}>{value}</dd>
      {hint ? <dd className="figure-hint">{hint}</dd> : null}
    </div>
  );
}

/**
 * The provider's figures as a trader reads them: returns over 7, 30 and 90 days and since the
 * first published day (signed, green or red, "—" where no point is that old yet), the deepest
 * fall, the win rate, then signals and followers; all as of the series' last day.
 */
/** The windows of the ROI figures, shortest first: days and the Stats field. */
const ROI_WINDOWS = [
  [7, 'roi7dPct'],
  [30, 'roi30dPct'],
  [90, 'roi90dPct'],
] as const satisfies readonly (readonly [number, keyof ProviderStats])[];

function Statistics({ stats }: { stats: ProviderStats }) {
  const wins = Math.round(stats.totalSignals * stats.winRate);
  const published = stats.tradingDays > 0;
  const roiHint = (days: number, pct: number | null) =>
    pct === null ? (published ? `less than ${days} days published` : 'nothing published') : `last ${days} days`;
  return (
    <>
      <p className="figures-asof muted small" data-testid="figures-asof">
        {stats.asOf
          ? `Figures as of ${formatDay(stats.asOf)} (${formatCount(stats.tradingDays)} trading ${stats.tradingDays === 1 ? 'day' : 'days'} published).`
          : 'No performance published yet.'}
      </p>
      <dl className="figures" data-testid="figures">
        {ROI_WINDOWS.map(([days, pct]) => (
          <Figure
            key={days}
            label={`ROI ${days}d`}
            value={formatPct(stats[pct])}
            hint={roiHint(days, stats[pct])}
            tone={toneClass(stats[pct])}
          />
        ))}
        <Figure
          label="ROI all time"
          value={formatPct(stats.roiAllPct)}
          hint={published ? `over ${formatCount(stats.tradingDays)} trading days` : 'nothing published'}
          tone={toneClass(stats.roiAllPct)}
        />
        <Figure
          label="Max drawdown"
          value={published ? formatDrawdown(stats.maxDrawdownPct) : MISSING}
          hint="peak to trough"
          tone={published ? toneClass(-stats.maxDrawdownPct) : undefined}
        />
        <Figure
          label="Win rate"
          value={stats.totalSignals > 0 ? formatRate(stats.winRate) : MISSING}
          hint={`${formatCount(wins)} of ${formatCount(stats.totalSignals)} won`}
        />
        <Figure
          label="Signals"
          value={formatCount(stats.totalSignals)}
          hint={
            stats.totalSignals > 0
              ? `avg ${formatReturn(stats.avgReturnPct)} each${stats.lastSignalAt ? `, latest ${formatAgo(stats.lastSignalAt)}` : ''}; the pipeline’s count`
              : 'none yet'
          }
        />
        <Figure
          label="Followers"
          value={formatCount(stats.followerCount)}
          hint={`+${formatCount(stats.followersGained7d)} this week, +${formatCount(stats.followersGained30d)} in 30 days`}
        />
      </dl>
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
      <PerformancePanel providerId={provider.id} />
      <p className="muted small">
        Statistics updated {formatDateTime(stats.updatedAt)}, as the operator’s pipeline published them (see the record
        below).
      </p>
      <ProviderSignals providerId={provider.id} pipelineSignals={stats.totalSignals} />
    </section>
  );
}
