/**
 * One delivery attempt (Standard Webhooks): `POST` of `{ type, timestamp, data }` with
 * `webhook-id` (the event id, the same on every retry), `webhook-timestamp` (Unix seconds of this
 * attempt) and `webhook-signature` (`v1,` base64 HMAC-SHA256 of `id.timestamp.body` under the
 * key the `whsec_` secret carries).
 *
 * The URL is checked and its host resolved again here (wire/webhook-target.ts), and the connection goes to
 * exactly the address checked, within the connect timeout (WEBHOOK_CONNECT_TIMEOUT). A 2xx within 15 s is success; anything else fails, 3xx included
 * (node's http never follows a redirect); the answer's body is read up to a small cap.
 */
import { createHmac } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { WEBHOOK_SECRET_PREFIX } from '@signal/core';
import { resolveWebhookTarget, type TargetPolicy, WebhookTargetError } from '../wire/webhook-target.js';

/** The contract's limit: no 2xx within this is a failed attempt. */
export const ATTEMPT_TIMEOUT_MS = 15_000;
/** How much of an answer's body is read (kept for the log's error text); the rest is dropped. */
export const RESPONSE_BODY_CAP_BYTES = 4_096;
const USER_AGENT = 'signal-webhooks/1 (+https://www.standardwebhooks.com)';

export interface SignedMessage {
  id: string;
  timestamp: number;
  body: string;
  signature: string;
}

/** The Standard Webhooks signature of a message with a `whsec_` secret. */
export function signMessage(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export interface AttemptResult {
  ok: boolean;
  /** The receiver's status; null when none came (refused, timeout, connection error). */
  responseStatus: number | null;
  /** What went wrong, for the log; null on success. */
  error: string | null;
  /** Retry-After of the answer, raw. */
  retryAfter?: string;
  /** The attempt was cut short by a stop (not the receiver's doing): release, do not count it. */
  aborted?: boolean;
}

/** Keep-alive agents shared by a worker's attempts; sockets are keyed by the checked address. */
export function createAgents() {
  const options = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 256, timeout: 30_000 };
  return { http: new HttpAgent(options), https: new HttpsAgent(options) };
}
export type Agents = ReturnType<typeof createAgents>;

export async function sendAttempt(
  target: { url: string; secret: string },
  message: { id: string; body: string },
  options: { policy: TargetPolicy; agents: Agents; signal: AbortSignal; connectTimeoutMs?: number; now?: () => number },
): Promise<AttemptResult> {
  let resolved: Awaited<ReturnType<typeof resolveWebhookTarget>>;
  try {
    resolved = await resolveWebhookTarget(target.url, options.policy);
  } catch (error) {
    const reason = error instanceof WebhookTargetError ? error.message : String(error);
    return { ok: false, responseStatus: null, error: `refused: ${reason}` };
  }
  const { url, address } = resolved;
  const timestamp = Math.floor((options.now?.() ?? Date.now()) / 1000);
  const headers = {
    host: url.host,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(message.body)),
    'user-agent': USER_AGENT,
    'webhook-id': message.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signMessage(target.secret, message.id, timestamp, message.body),
  };
  const https = url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve(result);
    };
    const req = request({
      // The address checked, never the name again: a DNS answer that changed since cannot redirect us.
      host: address,
      port: url.port || (https ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers,
      agent: https ? options.agents.https : options.agents.http,
      // TLS: SNI and the certificate check use the name, as a browser would.
      ...(https ? { servername: url.hostname.startsWith('[') ? undefined : url.hostname } : {}),
    });
    const timer = setTimeout(() => {
      req.destroy();
      finish({ ok: false, responseStatus: null, error: `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s` });
    }, ATTEMPT_TIMEOUT_MS);
    // A new connection must be made within the connect timeout (an address that drops packets
    // would otherwise hold the slot for the whole attempt); a kept-alive one is made already.
    const connectTimeoutMs = options.connectTimeoutMs ?? ATTEMPT_TIMEOUT_MS;
    req.on('socket', (socket) => {
      if (!socket.connecting) return;
      const connecting = setTimeout(() => {
        req.destroy();
        finish({ ok: false, responseStatus: null, error: `no connection within ${connectTimeoutMs / 1000} s` });
      }, connectTimeoutMs);
      const made = () => clearTimeout(connecting);
      socket.once('connect', made);
      socket.once('close', made);
    });
    const onAbort = () => {
      req.destroy();
      finish({ ok: false, responseStatus: null, error: 'stopped', aborted: true });
    };
    options.signal.addEventListener('abort', onAbort);
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ ok: false, responseStatus: null, error: `connection failed: ${error.code ?? error.message}` }),
    );
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const retryAfter = res.headers['retry-after'];
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept < RESPONSE_BODY_CAP_BYTES) {
          chunks.push(chunk.subarray(0, RESPONSE_BODY_CAP_BYTES - kept));
          kept += Math.min(chunk.length, RESPONSE_BODY_CAP_BYTES - kept);
        } else {
          // Past the cap: drop the connection rather than read a flood.
          res.destroy();
          req.destroy();
          done();
        }
      });
      const done = () => {
        const ok = status >= 200 && status < 300;
        const excerpt = Buffer.concat(chunks).toString('utf8').slice(0, 200);
        finish({
          ok,
          responseStatus: status,
          error: ok
            ? null
            : `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}${excerpt ? `: ${excerpt}` : ''}`,
          ...(retryAfter ? { retryAfter } : {}),
        });
      };
      res.on('end', done);
      res.on('error', done);
      res.on('close', done);
    });
    req.end(message.body);
  });
}
