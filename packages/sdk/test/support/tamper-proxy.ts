/**
 * A tampering HTTP proxy for the audit's tests: a node:http server on 127.0.0.1 between the
 * `signal-audit` command and a server (the real API, or the log fixture). It forwards every GET
 * and hands the answer to the test's current `tamper`, which may rewrite it (a changed tile, a
 * reordered entry bundle, a withheld statement) the way a lying operator's server would. With
 * `signals`, it answers the provider's signal list itself (for an upstream that serves only the
 * log: the operator's own list).
 */
import { createServer, type Server } from 'node:http';

export interface ProxiedAnswer {
  status: number;
  contentType: string;
  body: Uint8Array;
}

/** Rewrites an answer; `path` is the request's path and query. */
export type Tamper = (path: string, answer: ProxiedAnswer) => ProxiedAnswer | Promise<ProxiedAnswer>;

export interface TamperProxy {
  url: string;
  /** The current mode (honest by default); set per test. */
  tamper: Tamper;
  /** Requests seen since the last reset, by path. */
  paths: string[];
  close(): Promise<void>;
}

export const honest: Tamper = (_path, answer) => answer;

export async function startTamperProxy(options: {
  upstream: string;
  signals?: (provider: number) => unknown[];
}): Promise<TamperProxy> {
  const proxy: TamperProxy = { url: '', tamper: honest, paths: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    proxy.paths.push(path);
    (async () => {
      let answer: ProxiedAnswer;
      const list = /^\/providers\/(\d+)\/signals(?:\?|$)/.exec(path);
      if (list && options.signals) {
        answer = {
          status: 200,
          contentType: 'application/json',
          body: new TextEncoder().encode(JSON.stringify({ items: options.signals(Number(list[1])), nextCursor: null })),
        };
      } else {
        const response = await fetch(`${options.upstream}${path}`, {
          headers: { accept: req.headers.accept ?? '*/*' },
        });
        answer = {
          status: response.status,
          contentType: response.headers.get('content-type') ?? 'application/octet-stream',
          body: new Uint8Array(await response.arrayBuffer()),
        };
      }
      const tampered = await proxy.tamper(path, answer);
      res.writeHead(tampered.status, { 'content-type': tampered.contentType });
      res.end(tampered.body);
    })().catch((error: Error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(error.message);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}

/** Rewrites the JSON of the answers whose path matches. */
export function rewriteJson(match: RegExp, edit: (body: any) => unknown): Tamper {
  return (path, answer) => {
    if (!match.test(path) || answer.status !== 200) return answer;
    const body = JSON.parse(new TextDecoder().decode(answer.body));
    const edited = edit(body) ?? body;
    return { ...answer, body: new TextEncoder().encode(JSON.stringify(edited)) };
  };
}

/** Rewrites the bytes of the answers whose path matches. */
export function rewriteBytes(match: RegExp, edit: (body: Uint8Array) => Uint8Array): Tamper {
  return (path, answer) =>
    match.test(path) && answer.status === 200 ? { ...answer, body: edit(answer.body.slice()) } : answer;
}

/** The built `signal-audit` bin, run as a user runs it. */
export async function runAudit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { execFile } = await import('node:child_process');
  const bin = new URL('../../dist/bin/signal-audit.js', import.meta.url).pathname;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args], { timeout: 60_000, maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}
