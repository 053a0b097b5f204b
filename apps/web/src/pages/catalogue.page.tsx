import type { Provider, ProviderPage } from '@signal/sdk';
import { FILTER_FIELDS, hasFilters } from '../catalogue-filters';
import { Avatar } from '../components/avatar';
import { FilterBar } from '../components/filter-bar';
import { Pagination } from '../components/pagination';
import { Empty, ErrorPanel, Loading, PastTheEnd } from '../components/states';
import { formatCount, formatDate, formatDrawdown, formatPct, formatRate, formatReturn, toneClass } from '../format';
import { type CatalogueView, catalogueHref, type Order, providerHref, type SortBy } from '../router';
import { useSession } from '../session';
import { SORT_OPTIONS } from '../sort-options';
import { useAsync } from '../use-async';

const PAGE_SIZE = 20;

interface Column {
  sortBy: SortBy;
  /** The header; `short` replaces it on a phone. */
  label: string;
  short?: string;
  numeric?: boolean;
  cell(provider: Provider): { text: string; className?: string; title?: string };
}

// The figures a trader ranks by first (return, drawdown, win rate), then the catalogue's own.
// Every other sort (ROI 7d, 90d, all time, track record, id) is in the bar's "Sort by".
const COLUMNS: Column[] = [
  { sortBy: 'name', label: 'Provider', cell: () => ({ text: '' }) },
  {
    sortBy: 'roi30d',
    label: 'ROI 30d',
    numeric: true,
    cell: (p) => ({
      text: formatPct(p.roi30dPct),
      className: toneClass(p.roi30dPct),
      ...(p.roi30dPct === null && { title: 'No published value 30 days old yet' }),
    }),
  },
  {
    sortBy: 'maxDrawdown',
    label: 'Max drawdown',
    short: 'Max DD',
    numeric: true,
    cell: (p) => ({ text: formatDrawdown(p.maxDrawdownPct), className: toneClass(-p.maxDrawdownPct) }),
  },
  { sortBy: 'winRate', label: 'Win rate', short: 'Win', numeric: true, cell: (p) => ({ text: formatRate(p.winRate) }) },
  {
    sortBy: 'followerCount',
    label: 'Followers',
    numeric: true,
    cell: (p) => ({ text: formatCount(p.followerCount) }),
  },
  {
    sortBy: 'createdAt',
    label: 'Listed',
    cell: (p) => ({ text: formatDate(p.createdAt), title: p.createdAt }),
  },
];

const ORDER_LABEL: Record<Order, 'ascending' | 'descending'> = { asc: 'ascending', desc: 'descending' };

function SortHeader({ column, view }: { column: Column; view: CatalogueView }) {
  const active = view.sortBy === column.sortBy;
  const next: Order = active ? (view.order === 'asc' ? 'desc' : 'asc') : SORT_OPTIONS[column.sortBy].firstOrder;
  return (
    <th
      scope="col"
      className={column.numeric ? 'numeric' : undefined}
      aria-sort={active ? ORDER_LABEL[view.order] : 'none'}
      data-sort={column.sortBy}
    >
      <a
        className={`sort${active ? ' sort-active' : ''}`}
        href={catalogueHref({ ...view, page: 1, sortBy: column.sortBy, order: next })}
        title={`Sort by ${column.label.toLowerCase()}, ${ORDER_LABEL[next]}`}
      >
        {column.short ? (
          <>
            <span className="label-long">{column.label}</span>
            <span className="label-short" aria-hidden="true">
              {column.short}
            </span>
          </>
        ) : (
          column.label
        )}
        <span className="sort-arrow" aria-hidden="true">
          {active ? (view.order === 'asc' ? '▲' : '▼') : '↕'}
        </span>
      </a>
    </th>
  );
}

function Table({ data, view, busy }: { data: ProviderPage; view: CatalogueView; busy: boolean }) {
  const { followed } = useSession();
  return (
    <div className="table-scroll">
      <table className="providers" aria-busy={busy} data-testid="providers">
        <thead>
          <tr>
            {COLUMNS.map((column) => (
              <SortHeader key={column.sortBy} column={column} view={view} />
            ))}
          </tr>
        </thead>
        <tbody>
          {data.items.map((provider) => (
            <tr key={provider.id} data-provider-id={provider.id}>
              <td data-column="name">
                <a className="provider-cell" href={providerHref(provider.id)}>
                  <Avatar name={provider.name} url={provider.avatarUrl} id={provider.id} />
                  <span className="provider-text">
                    <span className="provider-name">
                      {provider.name}
                      {followed?.has(provider.id) ? <span className="tag">Following</span> : null}
                    </span>
                    <span className="provider-description">{provider.description ?? 'No description'}</span>
                  </span>
                </a>
              </td>
              {COLUMNS.slice(1).map((column) => {
                const { text, className, title } = column.cell(provider);
                return (
                  <td
                    key={column.sortBy}
                    className={[column.numeric ? 'numeric' : '', className ?? ''].join(' ').trim() || undefined}
                    data-column={column.sortBy}
                    title={title}
                  >
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The filters in words, for the empty result: "Name contains “alpha” · ROI 30d ≥ +5.0%". */
function describeFilters(view: CatalogueView): string {
  const parts: string[] = [];
  if (view.filters.q !== undefined) parts.push(`Name contains “${view.filters.q}”`);
  for (const field of FILTER_FIELDS) {
    const value = view.filters[field.key];
    if (value === undefined) continue;
    const shown =
      field.key === 'minRoi30dPct'
        ? formatReturn(value)
        : field.unit === '%'
          ? `${formatCount(value * field.scale)}%`
          : `${formatCount(value)}${field.unit ? ` ${field.unit}` : ''}`;
    parts.push(`${field.label} ${field.relation} ${shown}`);
  }
  return parts.join(' · ');
}

export function CataloguePage({ view }: { view: CatalogueView }) {
  const { client } = useSession();
  const filtersKey = JSON.stringify(view.filters);
  const { state, reload } = useAsync(
    () =>
      client.providers.list({
        page: view.page,
        limit: PAGE_SIZE,
        sortBy: view.sortBy,
        order: view.order,
        ...view.filters,
      }),
    [client, view.page, view.sortBy, view.order, filtersKey],
  );
  const data = state.data;
  const filtered = hasFilters(view.filters);
  const cleared = catalogueHref({ ...view, page: 1, filters: {} });
  return (
    <section>
      <header className="page-header">
        <h1>Signal providers</h1>
        <p className="lede">
          Rank the catalogue by return, drawdown or win rate, open a provider for its track record, and follow the ones
          you want to hear from.
        </p>
      </header>
      <FilterBar view={view} />
      {/* A failed page replaces the table: the previous page's rows under this address would mislead. */}
      {state.status === 'error' ? (
        <ErrorPanel error={state.error} onRetry={reload} />
      ) : data === undefined ? (
        <Loading label="Loading providers…" />
      ) : data.total === 0 && filtered ? (
        <Empty title="No providers match these filters">
          <p>Searched for: {describeFilters(view)}</p>
          <a className="button button-secondary" href={cleared} data-testid="clear-filters-empty">
            Clear the filters
          </a>
        </Empty>
      ) : data.total === 0 ? (
        <Empty title="No providers yet">
          The catalogue is empty. Start the API with SEED_PROVIDERS=100 for demo data.
        </Empty>
      ) : data.items.length === 0 ? (
        <PastTheEnd page={view.page} firstPage={catalogueHref({ ...view, page: 1 })}>
          There are {data.totalPages} pages.{' '}
        </PastTheEnd>
      ) : (
        <div className="card table-card">
          <Table data={data} view={view} busy={state.status === 'loading'} />
          <Pagination
            of={data}
            noun={filtered ? 'matching providers' : 'providers'}
            href={(page) => catalogueHref({ ...view, page })}
          />
        </div>
      )}
      <p className="visually-hidden" role="status">
        {data && state.status === 'ready'
          ? `${formatCount(data.total)} ${filtered ? 'matching providers' : 'providers'}`
          : ''}
      </p>
    </section>
  );
}
