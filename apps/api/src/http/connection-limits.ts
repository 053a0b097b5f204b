/**
 * Connection limits: a total cap sized from the process's descriptor limit (at which the oldest
 * connection that has sent no request, else the oldest event stream, gives way to a newcomer), a
 * cap per client address, and
 * node:http's timeouts enforced at the values configured rather than up to one
 * check interval later.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Server, ServerOptions } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { rateLimitKey, type TrustProxy } from '../wire/client-address.js';

export interface ConnectionLimits {
  /**
   * Total open connections; at it the oldest connection that has sent no request is closed for
   * a newcomer (else the newcomer is). Unset: sized from the descriptor limit when the server
   * starts listening (defaultMaxConnections).
   */
  maxConnections: number | undefined;
  /** Pool size, part of the default cap's reserve. */
  databasePoolSize: number;
  /** Open connections per client address (IPv6 per /64); 0 = no cap. */
  maxConnectionsPerAddress: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * node:http's timeouts as configured. Two node defaults made them late:
 * - headersTimeout and requestTimeout are checked only every connectionsCheckingInterval
 *   (30 s by default), so a stalled request lived up to one interval past its timeout (a
 *   silent socket 15 s + up to 30 s, a slow upload 30 s + up to 30 s). Checking at a twentieth
 *   of the shorter timeout (within 50-500 ms) closes them on time; a check walks the open
 *   connections once, cheap next to the requests they carry.
 * - An idle keep-alive socket is closed keepAliveTimeout + 1 s after its last response (node
 *   adds the second so that a client told `Keep-Alive: timeout=N` never races the close). So
 *   node is given the configured value less that second: the socket closes at the configured
 *   time and clients are told a second less.
 */
/** node:http's HTTP_SERVER_KEEP_ALIVE_TIMEOUT_BUFFER. */
const NODE_KEEP_ALIVE_BUFFER_MS = 1_000;

export function timeoutOptions(limits: ConnectionLimits): ServerOptions {
  const shorter = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: Math.max(1, limits.keepAliveTimeoutMs - NODE_KEEP_ALIVE_BUFFER_MS),
    connectionsCheckingInterval: Math.min(500, Math.max(50, Math.floor(shorter / 20))),
  };
}

/**
 * Caps connections on the server: in total and per client address. A connection over the
 * per-address cap is closed as soon as it is accepted, before it costs a parser buffer or a
 * request. The per-address cap counts the TCP peer: a trusted proxy (TRUST_PROXY) carries many
 * clients on its connections and is not capped (the proxy is where those clients connect, and
 * where their connections are capped); with TRUST_PROXY as hops, every peer is a proxy, so the
 * cap is off. At the total cap see capTotal.
 */
export function limitConnections(server: Server, limits: ConnectionLimits, trust: TrustProxy): number {
  const total = limits.maxConnections ?? defaultMaxConnections(limits.databasePoolSize);
  capPerAddress(server, limits.maxConnectionsPerAddress, trust);
  // After the per-address cap: a connection it closed takes nobody's place.
  capTotal(server, total);
  return total;
}

function capPerAddress(server: Server, cap: number, trust: TrustProxy): void {
  if (cap === 0 || ('hops' in trust && trust.hops > 0)) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = (socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
    const family = isIP(address);
    if ('proxies' in trust && family !== 0 && trust.proxies.check(address, family === 6 ? 'ipv6' : 'ipv4')) return;
    const key = rateLimitKey(address);
    const count = open.get(key) ?? 0;
    if (count >= cap) {
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}

/**
 * Connections carrying an event stream (http/trpc-stream.ts marks them while the stream is open):
 * at the total cap one of them may give way as a silent connection does. Its client loses
 * nothing: it resumes with its last event id, on another server or after a moment. Without this,
 * streams (long-lived, and never silent) filled MAX_CONNECTIONS and every other client was
 * refused, `/health` included (issue 42). Returns the mark's removal (the stream ended and the
 * connection carries ordinary requests again).
 */
const streaming = new WeakSet<Socket>();
export function mayGiveWay(socket: Socket): () => void {
  streaming.add(socket);
  return () => streaming.delete(socket);
}

/**
 * The total cap. At the cap a newcomer is not simply refused (as node's maxConnections does):
 * the oldest connection that has not yet sent a complete request head is closed to make room,
 * and only when every open connection has sent one is the newcomer refused. An idle flood from
 * many addresses (each under its per-address cap) used to fill the total and lock everyone out
 * until the headers timeout (issue 24: a real client got 29 of 60 requests answered); now the
 * flood's own sockets, the oldest silent ones, are what give way, and a client that sends its
 * request at once is served. After the silent ones, the oldest event stream gives way (see
 * mayGiveWay); any other connection that has sent a request (keep-alive included) is never
 * closed for a newcomer.
 */
function capTotal(server: Server, total: number): void {
  // Every open connection, and those still to send a request head; both in order of arrival.
  const open = new Set<Socket>();
  const silent = new Set<Socket>();
  server.on('request', (req) => silent.delete(req.socket));
  server.on('connection', (socket: Socket) => {
    if (socket.destroyed) return;
    if (open.size >= total) {
      const oldest = silent.values().next().value ?? oldestStream(open);
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      open.delete(oldest);
      silent.delete(oldest);
      oldest.destroy();
    }
    open.add(socket);
    silent.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      silent.delete(socket);
    });
  });
}

/** The oldest open connection that carries a stream (a walk at the cap only). */
function oldestStream(open: Set<Socket>): Socket | undefined {
  for (const socket of open) if (streaming.has(socket)) return socket;
  return undefined;
}

/**
 * The default total cap: the descriptors this process may open (the soft RLIMIT_NOFILE, read
 * from /proc/self/limits where there is one), less those already open when the server starts
 * listening (node's own, the log, PGlite's data files, at most 64 of them), less a reserve for what opens
 * later: the database pool's connections, files PGlite opens as it goes, the listening socket.
 * Without the cap, a flood of idle sockets used every descriptor and the server could no
 * longer accept anyone or open a database connection. Counting the open descriptors matters on
 * PGlite: a cap from the limit alone left it fewer descriptors than its files take.
 */
export function defaultMaxConnections(
  poolSize: number,
  limitsFile = '/proc/self/limits',
  openNow = openDescriptors(),
): number {
  const descriptors = softDescriptorLimit(limitsFile) ?? 1024;
  const reserve = Math.max(64, Math.ceil(descriptors / 10)) + poolSize;
  return Math.max(16, descriptors - openNow - reserve);
}

/** Descriptors this process holds now (0 where /proc is not there to say). */
function openDescriptors(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

function softDescriptorLimit(limitsFile: string): number | undefined {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    if (soft === 'unlimited') return 1_048_576;
    const value = Number(soft);
    return Number.isInteger(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}
