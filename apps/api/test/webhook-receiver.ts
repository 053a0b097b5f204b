/**
 * A webhook receiver for tests: a real HTTP server on 127.0.0.1 that records every request
 * (path, headers, raw body) and answers as the test scripts it per path (default 200).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The webhook-id header. */
  id: string;
}

export type Answer = (request: ReceivedRequest, res: ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  /** Requests to `path` so far. */
  at(path: string): ReceivedRequest[];
  /** How `path` answers from now on. */
  answer(path: string, answer: Answer): void;
  /** Resolves once `predicate` holds for the requests received (checked on each one). */
  until(predicate: (received: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const status =
  (code: number, headers: Record<string, string> = {}): Answer =>
  (_request, res) => {
    res.writeHead(code, headers);
    res.end(code >= 400 ? 'receiver says no' : 'ok');
  };

/** Holds the request unanswered; the responses are kept for `release` to answer. */
export function hanging() {
  const held: ServerResponse[] = [];
  return {
    held,
    answer: ((_request, res) => {
      held.push(res);
    }) as Answer,
    release(code = 200) {
      for (const res of held.splice(0)) {
        if (!res.destroyed) res.writeHead(code).end('ok');
      }
    },
  };
}

export async function startReceiver(): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const answers = new Map<string, Answer>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join(',') : (value ?? ''),
        ]),
      );
      const path = (req.url ?? '/').split('?')[0] as string;
      const request = { path, headers, body: Buffer.concat(chunks).toString('utf8'), id: headers['webhook-id'] ?? '' };
      received.push(request);
      (answers.get(path) ?? status(200))(request, res);
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    at: (path) => received.filter((request) => request.path === path),
    answer: (path, answer) => answers.set(path, answer),
    until(predicate, timeoutMs = 60_000) {
      if (predicate(received)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${received.length} requests)`));
        }, timeoutMs);
        const wake = () => {
          if (!predicate(received)) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
