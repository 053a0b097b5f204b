/**
 * Signals as the app reads them (CONTRACT.md, Version 4, "Signals"), through the SDK's
 * `client.signals`: reads send the stored token, so a follower sees the terms of signals still
 * hidden from the public. The types are the SDK's (core's wire schemas).
 */
import { type Signal, SignalApiError, type SignalClient, type SignalLiveEvent } from '@signal/sdk';
import { API_URL } from './api';

export type { Signal, SignalContent, SignalList, SignalStatus } from '@signal/sdk';
export type StatementType = SignalLiveEvent['type'];
export type SignalStatementView = Signal['statements'][number];

/**
 * Every signal the log holds for the provider (the public list has them all, content or not),
 * up to `max`: the count the page sets beside the pipeline's figure, and what the record check reads.
 */
export async function allSignals(client: SignalClient, providerId: number, max = 500): Promise<Signal[]> {
  const all: Signal[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.signals.list(providerId, { limit: 100, ...(cursor ? { cursor } : {}) });
    all.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && all.length < max);
  return all;
}

export interface PublisherRow {
  wallet: string;
  chain: string;
  addedAt: string;
  removedAt: string | null;
}

/** `GET /providers/{id}/publishers` (the SDK has no reader for it): the wallets that may sign for the provider. */
export async function listPublishers(providerId: number): Promise<PublisherRow[]> {
  let response: Response;
  try {
    response = await fetch(`${API_URL}/providers/${providerId}/publishers`, {
      headers: { accept: 'application/json' },
    });
  } catch (error) {
    throw new SignalApiError('NETWORK_ERROR', `Could not reach the API at ${API_URL}: ${String(error)}`, {
      cause: error,
    });
  }
  const body = (await response.json().catch(() => null)) as { items?: PublisherRow[]; code?: string; message?: string };
  if (response.ok && body?.items) return body.items;
  throw new SignalApiError(
    body?.code === 'PROVIDER_NOT_FOUND' ? 'PROVIDER_NOT_FOUND' : 'INTERNAL_ERROR',
    body?.message ?? `HTTP ${response.status}`,
    { status: response.status },
  );
}

export const STATUS_LABEL: Record<Signal['status'], string> = {
  open: 'Open',
  closed: 'Closed',
  cancelled: 'Cancelled',
  expired: 'Expired',
};

export const STATEMENT_LABEL: Record<StatementType, string> = {
  'signal.open': 'Opened',
  'signal.update': 'Updated',
  'signal.close': 'Closed part',
  'signal.cancel': 'Cancelled',
};

/** True while the public may not see the signal's content yet. */
export const beforeReveal = (signal: Signal, now = Date.now()) => Date.parse(signal.revealAt) > now;

/** The log index of the newest statement among `signals`: where a live stream resumes after them. */
export function lastLogIndex(signals: readonly Signal[]): number | undefined {
  let last: number | undefined;
  for (const signal of signals) {
    for (const statement of signal.statements)
      if (last === undefined || statement.logIndex > last) last = statement.logIndex;
  }
  return last;
}
