import type { ProviderPage } from '@signal/sdk';
import { Avatar } from '../components/avatar';
import { Pagination } from '../components/pagination';
import { Empty, ErrorPanel, Loading } from '../components/states';
import { formatCount, formatDate } from '../format';
import { type CatalogueView, catalogueHref, type Order, providerHref, type SortBy } from '../router';
import { useSession } from '../session';
import { useAsync } from '../use-async';

const PAGE_SIZE = 20;

interface Column {
  sortBy: SortBy;
  label: string;
  /** The order a first click on the column asks for. */
  firstOrder: Order;
  numeric?: boolean;
}

// Every sort field of the API is a column: followers and dates read best newest/largest first,
// names and ids from the top.
const COLUMNS: Column[] = [
  { sortBy: 'name', label: 'Provider', firstOrder: 'asc' },
  { sortBy: 'followerCount', label: 'Followers', firstOrder: 'desc', numeric: true },
  { sortBy: 'createdAt', label: 'Listed', firstOrder: 'desc' },
  { sortBy: 'id', label: 'ID', firstOrder: 'asc', numeric: true },
];

const ORDER_LABEL: Record<Order, 'ascending' | 'descending'> = { asc: 'ascending', desc: 'descending' };

function SortHeader({ column, view }: { column: Column; view: CatalogueView }) {
  const active = view.sortBy === column.sortBy;
  const next: Order = active ? (view.order === 'asc' ? 'desc' : 'asc') : column.firstOrder;
  return (
    <th
      scope="col"
      className={column.numeric ? 'numeric' : undefined}
      aria-sort={active ? ORDER_LABEL[view.order] : 'none'}
      data-sort={column.sortBy}
    >
      <a
        className={`sort${active ? ' sort-active' : ''}`}
        href={catalogueHref({ page: 1, sortBy: column.sortBy, order: next })}
      >
        {column.label}
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
            <td>
              <a className="provider-cell" href={providerHref(provider.id)}>
                <Avatar name={provider.name} url={provider.avatarUrl} id={provider.id} />
                <span>
                  <span className="provider-name">
                    {provider.name}
                    {followed?.has(provider.id) ? <span className="tag">Following</span> : null}
                  </span>
                  <span className="provider-description">{provider.description ?? 'No description'}</span>
                </span>
              </a>
            </td>
            <td className="numeric" data-column="followerCount">
              {formatCount(provider.followerCount)}
            </td>
            <td data-column="createdAt" title={provider.createdAt}>
              {formatDate(provider.createdAt)}
            </td>
            <td className="numeric muted" data-column="id">
              {provider.id}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function CataloguePage({ view }: { view: CatalogueView }) {
  const { client } = useSession();
  const { state, reload } = useAsync(
    () => client.providers.list({ page: view.page, limit: PAGE_SIZE, sortBy: view.sortBy, order: view.order }),
    [client, view.page, view.sortBy, view.order],
  );
  const data = state.data;
  return (
    <section>
      <header className="page-header">
        <h1>Signal providers</h1>
        <p className="lede">
          Browse the catalogue, open a provider for its track record, and follow the ones you want to hear from.
        </p>
      </header>
      {/* A failed page replaces the table: the previous page's rows under this address would mislead. */}
      {state.status === 'error' ? (
        <ErrorPanel error={state.error} onRetry={reload} />
      ) : data === undefined ? (
        <Loading label="Loading providers…" />
      ) : data.total === 0 ? (
        <Empty title="No providers yet">
          The catalogue is empty. Start the API with SEED_PROVIDERS=100 for demo data.
        </Empty>
      ) : data.items.length === 0 ? (
        <Empty title={`Page ${view.page} is past the end`}>
          There are {data.totalPages} pages. <a href={catalogueHref({ ...view, page: 1 })}>Go to the first page</a>
        </Empty>
      ) : (
        <div className="card table-card">
          <Table data={data} view={view} busy={state.status === 'loading'} />
          <Pagination of={data} noun="providers" href={(page) => catalogueHref({ ...view, page })} />
        </div>
      )}
    </section>
  );
}
