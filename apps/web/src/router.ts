/**
 * Hash routes (`#/providers/5`), so the API only has to serve `/` and the assets: no fallback
 * route for client-side paths, and a bookmark or reload lands on the same screen.
 */
import type { ProviderFilters, ProviderSortBy, SortOrder } from '@signal/sdk';
import { useSyncExternalStore } from 'react';
import { FILTER_FIELDS, FILTER_KEYS, parseApiValue, searchText } from './catalogue-filters';
import { SORT_FIELDS } from './sort-options';

export type SortBy = ProviderSortBy;
export type Order = SortOrder;

/** What the catalogue shows: its page, sort and filters, all of it in the address. */
export interface CatalogueView {
  page: number;
  sortBy: SortBy;
  order: Order;
  filters: ProviderFilters;
}

export type Route =
  | { name: 'catalogue'; view: CatalogueView }
  | { name: 'provider'; id: number }
  | { name: 'publish'; id: number }
  | { name: 'signals' }
  | { name: 'following'; page: number }
  | { name: 'sessions'; page: number }
  | { name: 'wallets' }
  | { name: 'not-found'; path: string };

/** The API's defaults: most followed first. */
export const DEFAULT_VIEW: CatalogueView = { page: 1, sortBy: 'followerCount', order: 'desc', filters: {} };

function positive(value: string | null): number | undefined {
  if (!value || !/^[1-9][0-9]{0,8}$/.test(value)) return undefined;
  return Number(value);
}

export function parseRoute(hash: string): Route {
  const [rawPath = '', rawQuery = ''] = hash.replace(/^#/, '').split('?');
  const path = rawPath === '' ? '/' : rawPath;
  const query = new URLSearchParams(rawQuery);
  if (path === '/') return { name: 'catalogue', view: parseCatalogueView(query) };
  const provider = /^\/providers\/([0-9]+)$/.exec(path);
  const id = positive(provider?.[1] ?? null);
  if (id !== undefined) return { name: 'provider', id };
  const publish = positive(/^\/providers\/([0-9]+)\/publish$/.exec(path)?.[1] ?? null);
  if (publish !== undefined) return { name: 'publish', id: publish };
  if (path === '/signals') return { name: 'signals' };
  if (path === '/following') return { name: 'following', page: positive(query.get('page')) ?? 1 };
  if (path === '/sessions') return { name: 'sessions', page: positive(query.get('page')) ?? 1 };
  if (path === '/wallets') return { name: 'wallets' };
  return { name: 'not-found', path };
}

/**
 * The view an address asks for. A value the API would refuse (a typo in a shared link, an edited
 * address) is left out rather than turned into an error page.
 */
function parseCatalogueView(query: URLSearchParams): CatalogueView {
  const sortBy = SORT_FIELDS.find((field) => field === query.get('sortBy')) ?? DEFAULT_VIEW.sortBy;
  const order = query.get('order') === 'asc' ? 'asc' : query.get('order') === 'desc' ? 'desc' : DEFAULT_VIEW.order;
  const filters: ProviderFilters = {};
  const q = searchText(query.get('q') ?? '');
  if (q !== undefined) filters.q = q;
  for (const field of FILTER_FIELDS) {
    const value = parseApiValue(field, query.get(field.key) ?? '');
    if (value !== undefined) filters[field.key] = value;
  }
  return { page: positive(query.get('page')) ?? 1, sortBy, order, filters };
}

/** A number as the API's plain decimal (never `1e-7`, which it refuses). */
function plainDecimal(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(15).replace(/\.?0+$/, '') : text;
}

/** `#/?sortBy=roi30d&order=desc&q=alpha&minWinRate=0.55&page=2`: defaults left out. */
export function catalogueHref(view: CatalogueView): string {
  const query = new URLSearchParams();
  if (view.sortBy !== DEFAULT_VIEW.sortBy) query.set('sortBy', view.sortBy);
  if (view.order !== DEFAULT_VIEW.order) query.set('order', view.order);
  for (const key of FILTER_KEYS) {
    const value = view.filters[key];
    if (value !== undefined) query.set(key, typeof value === 'number' ? plainDecimal(value) : value);
  }
  if (view.page !== 1) query.set('page', String(view.page));
  const text = query.toString();
  return text ? `#/?${text}` : '#/';
}

/** Goes to an address of the app: a new history entry, so the back button returns here. */
export function navigate(href: string): void {
  if (window.location.hash !== href) window.location.hash = href;
}

export const providerHref = (id: number) => `#/providers/${id}`;
export const publishHref = (id: number) => `#/providers/${id}/publish`;
export const signalsHref = () => '#/signals';
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
