/**
 * HTTP below fetch: raw bytes over a socket (for requests fetch refuses to send), and
 * node:http requests with any method, path and headers. Loopback only, every call bounded.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Writes `bytes` to the server and reads until it closes the connection (or `timeoutMs`).
 * `halfClose` sends FIN after the bytes, as a client that has nothing more to say.
 */
export function rawHttp(
  url: string,
  bytes: string | Buffer,
  options: { timeoutMs?: number; halfClose?: boolean } = {},
): Promise<RawReply> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseRaw(Buffer.concat(chunks).toString('utf8')));
    });
    if (options.halfClose) socket.end(bytes);
    else socket.write(bytes);
  });
}

function parseRaw(raw: string): RawReply {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, text: end < 0 ? '' : raw.slice(end + 4) };
}

export interface HttpCall {
  method: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Connect from this loopback address (127.0.0.2, …): another client host. */
  localAddress?: string;
}

/** One request through node:http, which sends methods, paths and headers that fetch would not. */
export function httpCall(url: string, call: HttpCall, timeoutMs = 10_000): Promise<RawReply> {
  const { hostname, port } = new URL(url);
  // node frames a body of GET, HEAD, DELETE or OPTIONS only when told its length; unframed,
  // the server would rightly read it as the next request.
  const headers =
    call.body === undefined
      ? call.headers
      : { 'content-length': String(Buffer.byteLength(call.body)), ...call.headers };
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port: Number(port),
        method: call.method,
        path: call.path,
        headers,
        agent: false,
        localAddress: call.localAddress,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          clearTimeout(timer);
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            headers[name] = Array.isArray(value) ? value.join(', ') : (value ?? '');
          }
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    req.on('error', (error: Error & { rawPacket?: Buffer }) => {
      clearTimeout(timer);
      // A parse error of the answer: show what the server sent.
      if (error.rawPacket) error.message += `: ${JSON.stringify(error.rawPacket.toString('latin1'))}`;
      reject(error);
    });
    req.end(call.body);
  });
}
