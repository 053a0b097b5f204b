/** How each sort of the catalogue reads, and which order a first choice of it asks for. */
import type { Order, SortBy } from './router';

export interface SortOption {
  label: string;
  /**
   * Best first: the highest return, win rate, following and longest record, the smallest
   * drawdown, the newest listing; names and ids from the top.
   */
  firstOrder: Order;
}

export const SORT_OPTIONS: Record<SortBy, SortOption> = {
  followerCount: { label: 'Followers', firstOrder: 'desc' },
  roi7d: { label: 'ROI 7d', firstOrder: 'desc' },
  roi30d: { label: 'ROI 30d', firstOrder: 'desc' },
  roi90d: { label: 'ROI 90d', firstOrder: 'desc' },
  roiAll: { label: 'ROI all time', firstOrder: 'desc' },
  maxDrawdown: { label: 'Max drawdown', firstOrder: 'asc' },
  winRate: { label: 'Win rate', firstOrder: 'desc' },
  tradingDays: { label: 'Track record (days)', firstOrder: 'desc' },
  name: { label: 'Name', firstOrder: 'asc' },
  createdAt: { label: 'Listing date', firstOrder: 'desc' },
  id: { label: 'ID', firstOrder: 'asc' },
};
