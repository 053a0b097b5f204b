/** How each sort of the catalogue reads, and which order a first choice of it asks for. */
import type { SortOrder as Order, ProviderSortBy as SortBy } from '@signal/sdk';

export interface SortOption {
  label: string;
  /**
   * Best first: the highest return, win rate, following and longest record, the smallest
   * drawdown, the newest listing; names and ids from the top.
   */
  firstOrder: Order;
}

/**
 * Every sort of the API, in the order of the "Sort by" menu: the `Record` makes a sort added to
 * the schema fail the typecheck here until it has its label.
 */
export const SORT_OPTIONS: Record<SortBy, SortOption> = {
  followerCount: { label: 'Followers', firstOrder: 'desc' },
  name: { label: 'Name', firstOrder: 'asc' },
  createdAt: { label: 'Listing date', firstOrder: 'desc' },
  id: { label: 'ID', firstOrder: 'asc' },
  roi7d: { label: 'ROI 7d', firstOrder: 'desc' },
  roi30d: { label: 'ROI 30d', firstOrder: 'desc' },
  roi90d: { label: 'ROI 90d', firstOrder: 'desc' },
  roiAll: { label: 'ROI all time', firstOrder: 'desc' },
  maxDrawdown: { label: 'Max drawdown', firstOrder: 'asc' },
  winRate: { label: 'Win rate', firstOrder: 'desc' },
  tradingDays: { label: 'Track record (days)', firstOrder: 'desc' },
};

/** The sorts, in menu order; also what an address may name (any other `sortBy` is left out). */
export const SORT_FIELDS = Object.keys(SORT_OPTIONS) as SortBy[];
