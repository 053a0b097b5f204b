/**
 * The provider page's chart card: window tabs (7d, 30d, 90d, 1y, all), the chart of the chosen
 * window from `GET /providers/{id}/performance`, and the day it is as of. The chart code
 * (lightweight-charts) is loaded on first use, in a chunk of its own.
 */
import type { PerformanceWindow } from '@signal/sdk';
import { type KeyboardEvent, lazy, Suspense, useId, useRef, useState } from 'react';
import { formatDay } from '../format';
import { useSession } from '../session';
import { useAsync } from '../use-async';
import { Empty, ErrorPanel, Loading } from './states';

const PerformanceChart = lazy(() => import('./performance-chart'));

const WINDOWS: { window: PerformanceWindow; label: string; title: string }[] = [
  { window: '7d', label: '7D', title: 'Last 7 days' },
  { window: '30d', label: '30D', title: 'Last 30 days' },
  { window: '90d', label: '90D', title: 'Last 90 days' },
  { window: '1y', label: '1Y', title: 'Last 365 days' },
  { window: 'all', label: 'All', title: 'Since the first published day' },
];

/** The API's default window. */
const FIRST_WINDOW: PerformanceWindow = '90d';

export function PerformancePanel({ providerId }: { providerId: number }) {
  const { client } = useSession();
  const [chosen, setChosen] = useState<PerformanceWindow>(FIRST_WINDOW);
  const { state, reload } = useAsync(
    () => client.providers.performance(providerId, chosen),
    [client, providerId, chosen],
  );
  const id = useId();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);

  // Arrow keys move between the tabs, as in any tab list.
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = (index + step + WINDOWS.length) % WINDOWS.length;
    setChosen((WINDOWS[next] as (typeof WINDOWS)[number]).window);
    tabs.current[next]?.focus();
  };

  const data = state.data;
  return (
    <section className="card performance" aria-labelledby={`${id}-title`} data-testid="performance">
      <header className="performance-header">
        <div>
          <h2 id={`${id}-title`}>Return and drawdown</h2>
          <p className="muted small performance-asof" data-testid="performance-asof">
            {data?.asOf
              ? `As of ${formatDay(data.asOf)}, the last day published. Return from the window's first day; drawdown from its peak.`
              : data
                ? 'Nothing published yet.'
                : '\u00a0'}
          </p>
        </div>
        <div className="window-tabs" role="tablist" aria-label="Chart window">
          {WINDOWS.map((tab, index) => (
            <button
              key={tab.window}
              ref={(element) => {
                tabs.current[index] = element;
              }}
              type="button"
              role="tab"
              id={`${id}-${tab.window}`}
              aria-selected={tab.window === chosen}
              aria-controls={`${id}-panel`}
              tabIndex={tab.window === chosen ? 0 : -1}
              title={tab.title}
              data-window={tab.window}
              onClick={() => setChosen(tab.window)}
              onKeyDown={(event) => onKeyDown(event, index)}
            >
              {tab.label}
            </button>
          ))}
        </div>
      </header>
      <div
        id={`${id}-panel`}
        role="tabpanel"
        aria-labelledby={`${id}-${chosen}`}
        aria-busy={state.status === 'loading'}
        className="performance-body"
      >
        {state.status === 'error' ? (
          <ErrorPanel error={state.error} onRetry={reload} />
        ) : data === undefined ? (
          <Loading label="Loading the chart…" />
        ) : data.points.length === 0 ? (
          <Empty title="No performance published yet">
            The chart appears once the provider's signal pipeline publishes its daily NAV.
          </Empty>
        ) : (
          <Suspense fallback={<Loading label="Loading the chart…" />}>
            <PerformanceChart performance={data} />
          </Suspense>
        )}
      </div>
    </section>
  );
}
