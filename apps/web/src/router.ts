/**
 * Hash routes (`#/providers/5`), so the API only has to serve `/` and the assets: no fallback
 * route for client-side paths, and a bookmark or reload lands on the same screen.
 */
import type { ProviderListQuery } from '@signal/sdk';
import { useSyncExternalStore } from 'react';

export type SortBy = NonNullable<ProviderListQuery['sortBy']>;
export type Order = NonNullable<ProviderListQuery['order']>;
export const SORT_FIELDS: readonly SortBy[] = ['followerCount', 'name', 'createdAt', 'id'];

export interface CatalogueView {
  page: number;
  sortBy: SortBy;
  order: Order;
}

export type Route =
  | { name: 'catalogue'; view: CatalogueView }
  | { name: 'provider'; id: number }
  | { name: 'following'; page: number }
  | { name: 'sessions'; page: number }
  | { name: 'wallets' }
  | { name: 'not-found'; path: string };

/** The API's defaults: most followed first. */
export const DEFAULT_VIEW: CatalogueView = { page: 1, sortBy: 'followerCount', order: 'desc' };

function positive(value: string | null): number | undefined {
  if (!value || !/^[1-9][0-9]{0,8}$/.test(value)) return undefined;
  return Number(value);
}

export function parseRoute(hash: string): Route {
  const [rawPath = '', rawQuery = ''] = hash.replace(/^#/, '').split('?');
  const path = rawPath === '' ? '/' : rawPath;
  const query = new URLSearchParams(rawQuery);
  if (path === '/') {
    const sortBy = SORT_FIELDS.find((field) => field === query.get('sortBy')) ?? DEFAULT_VIEW.sortBy;
    const order = query.get('order') === 'asc' ? 'asc' : query.get('order') === 'desc' ? 'desc' : DEFAULT_VIEW.order;
    return { name: 'catalogue', view: { page: positive(query.get('page')) ?? 1, sortBy, order } };
  }
  const provider = /^\/providers\/([0-9]+)$/.exec(path);
  const id = positive(provider?.[1] ?? null);
  if (id !== undefined) return { name: 'provider', id };
  if (path === '/following') return { name: 'following', page: positive(query.get('page')) ?? 1 };
  if (path === '/sessions') return { name: 'sessions', page: positive(query.get('page')) ?? 1 };
  if (path === '/wallets') return { name: 'wallets' };
  return { name: 'not-found', path };
}

export function catalogueHref(view: CatalogueView): string {
  const query = new URLSearchParams();
  if (view.sortBy !== DEFAULT_VIEW.sortBy) query.set('sortBy', view.sortBy);
  if (view.order !== DEFAULT_VIEW.order) query.set('order', view.order);
  if (view.page !== 1) query.set('page', String(view.page));
  const text = query.toString();
  return text ? `#/?${text}` : '#/';
}

export const providerHref = (id: number) => `#/providers/${id}`;
export const followingHref = (page = 1) => (page === 1 ? '#/following' : `#/following?page=${page}`);
export const sessionsHref = (page = 1) => (page === 1 ? '#/sessions' : `#/sessions?page=${page}`);
export const walletsHref = () => '#/wallets';

function subscribe(onChange: () => void) {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The current route; re-renders on every hash change (links, back and forward). */
export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseRoute(hash);
}
