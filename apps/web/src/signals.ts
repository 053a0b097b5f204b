/**
 * Signals as the app reads and writes them (CONTRACT.md, Version 4, "Signals"): a provider's
 * list, the signed-in user's feed, and the publisher's statements, each POSTed as the signed
 * `{ statement, signer, signature }` body the SDK builds. Reads send the stored token, so a
 * follower sees the content of signals still hidden from the public.
 */
import { SignalApiError, type SignalClient, type SignalErrorCode } from '@signal/sdk';
import { API_URL } from './api';

export type SignalStatus = 'open' | 'closed' | 'cancelled' | 'expired';
export type StatementType = 'signal.open' | 'signal.update' | 'signal.close' | 'signal.cancel';

export interface SignalContent {
  instrument: string;
  side: 'long' | 'short';
  entry: { type: 'market' } | { type: 'limit'; price: string };
  stop: string | null;
  targets: string[];
  sizePct: string;
  openPct: string;
  expiresAt: string | null;
  note: string | null;
}

export interface SignalStatementView {
  logIndex: number;
  type: StatementType;
  receivedAt: string;
  commitment: string;
  statement: string | null;
  signer: string | null;
  signature: string | null;
}

export interface Signal {
  id: string;
  providerId: number;
  status: SignalStatus;
  publishedAt: string;
  revealAt: string;
  content: SignalContent | null;
  statements: SignalStatementView[];
}

export interface SignalPage {
  items: Signal[];
  nextCursor: string | null;
}

export interface StatementAnswer {
  signal: Signal;
  receipt: { logIndex: number; checkpoint: string; proof: string[] };
}

async function request<T>(path: string, init: RequestInit & { token?: string | undefined } = {}): Promise<T> {
  const { token, ...rest } = init;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (rest.body) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(`${API_URL}${path}`, { ...rest, headers });
  } catch (error) {
    throw new SignalApiError('NETWORK_ERROR', `Could not reach the API at ${API_URL}: ${String(error)}`, {
      cause: error,
    });
  }
  const body = (await response.json().catch(() => null)) as {
    code?: string;
    message?: string;
    issues?: { path: (string | number)[]; message: string }[];
  } | null;
  if (response.ok) return body as T;
  const code = (body?.code ?? 'INTERNAL_ERROR') as SignalErrorCode;
  const retry = Number(response.headers.get('retry-after'));
  throw new SignalApiError(code, body?.message ?? `HTTP ${response.status}`, {
    status: response.status,
    ...(body?.issues ? { issues: body.issues } : {}),
    ...(Number.isFinite(retry) && retry > 0 ? { retryAfter: retry } : {}),
  });
}

/** The stored token, sent on reads so that a follower sees what it may see. */
const tokenOf = async (client: SignalClient) => (await client.getToken())?.token;

/** `GET /providers/{id}/signals`, newest first; as the signed-in user when there is one. */
export const listSignals = async (client: SignalClient, providerId: number, cursor?: string, limit = 20) =>
  request<SignalPage>(
    `/providers/${providerId}/signals?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    { token: await tokenOf(client) },
  );

/** `GET /me/signals`: the signals of the providers the user follows, newest first. */
export const mySignals = async (client: SignalClient, limit = 20) =>
  request<SignalPage>(`/me/signals?limit=${limit}`, { token: await tokenOf(client) });

/**
 * Every signal the log holds for the provider (the public list has them all, content or not),
 * up to `max`: the count the page sets beside the pipeline's figure.
 */
export async function allSignals(client: SignalClient, providerId: number, max = 500): Promise<Signal[]> {
  const all: Signal[] = [];
  let cursor: string | undefined;
  do {
    const page = await listSignals(client, providerId, cursor, 100);
    all.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && all.length < max);
  return all;
}

export interface StatementBody {
  statement: string;
  signer: string;
  signature: string;
}

/** `POST /providers/{id}/signals` (an open) or `…/signals/{signalId}/updates` (update, close, cancel). */
export const postStatement = (providerId: number, body: StatementBody, signalId?: string) =>
  // No Authorization: the signature is the credential.
  request<StatementAnswer>(
    signalId
      ? `/providers/${providerId}/signals/${encodeURIComponent(signalId)}/updates`
      : `/providers/${providerId}/signals`,
    { method: 'POST', body: JSON.stringify(body) },
  );

/** `GET /providers/{id}/publishers`: the wallets that may sign for it (removed ones carry `removedAt`). */
export const listPublishers = (providerId: number) =>
  request<{ items: { wallet: string; chain: string; addedAt: string; removedAt: string | null }[] }>(
    `/providers/${providerId}/publishers`,
  );

/** The log's name, which every statement carries: the first line of the checkpoint. */
export async function logOrigin(): Promise<string> {
  const response = await fetch(`${API_URL}/log/checkpoint`);
  if (!response.ok) throw new SignalApiError('NETWORK_ERROR', `GET /log/checkpoint: HTTP ${response.status}`);
  return (await response.text()).split('\n')[0] ?? '';
}

export const STATUS_LABEL: Record<SignalStatus, string> = {
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
