import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

/**
 * Which proxies in front of the service are trusted to append to X-Forwarded-For (TRUST_PROXY):
 * a number of hops, or the addresses (CIDR blocks) of the proxies themselves.
 */
export type TrustProxy = { hops: number } | { proxies: BlockList; cidrs: string[] };

/**
 * The client's address as limits see it. Without trusted proxies: the socket's peer, which a
 * client cannot choose. Behind them, X-Forwarded-For is read from the right, because each proxy
 * appends the address it saw and only the left end is written by the client:
 * - `{ hops: N }`: the peer is the last of N proxies, so the client is the N-th entry from the
 *   right (with fewer entries, the left-most: every entry was then written by a trusted proxy);
 * - `{ proxies }`: starting from the peer, every address inside a trusted block is a proxy, and
 *   the first address outside them is the client.
 * An entry is read as an address, or an address with a port as some proxies append it (Azure
 * Application Gateway, IIS ARR: `1.2.3.4:5678`, `[2001:db8::1]:5678`). One that still is not an
 * IP address where the client should be falls back to the peer, so garbage cannot mint fresh
 * buckets; `onUnreadable` hears of it (every such client then shares the proxy's bucket, which
 * an operator must be told about rather than find out).
 */
export function clientAddress(req: IncomingMessage, trust: TrustProxy, onUnreadable?: (entry: string) => void): string {
  const peer = normalise(req.socket.remoteAddress ?? 'unknown');
  if ('hops' in trust ? trust.hops === 0 : !isTrusted(trust.proxies, peer)) return peer;
  const header = req.headers['x-forwarded-for'];
  // node joins repeated X-Forwarded-For headers with ", ", in the order they came.
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return peer;
  const entries = text.split(',');
  let candidate: string | undefined;
  if ('hops' in trust) {
    candidate = entries[Math.max(0, entries.length - trust.hops)];
  } else {
    for (let i = entries.length - 1; i >= 0; i--) {
      candidate = entries[i];
      const address = entryAddress(candidate ?? '');
      if (!isIP(address) || !isTrusted(trust.proxies, address)) break;
    }
  }
  const address = entryAddress(candidate ?? '');
  if (isIP(address)) return address;
  onUnreadable?.((candidate ?? '').trim());
  return peer;
}

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/;
const BRACKETED_IPV6 = /^\[([^\]]+)\](?::\d{1,5})?$/;

/** An X-Forwarded-For entry's address: trimmed, without a port, normalised. */
function entryAddress(entry: string): string {
  const text = entry.trim();
  const address = IPV4_WITH_PORT.exec(text)?.[1] ?? BRACKETED_IPV6.exec(text)?.[1] ?? text;
  return normalise(address);
}

/** How long one warning about unreadable X-Forwarded-For entries stands for all of them. */
const UNREADABLE_WARNING_INTERVAL_MS = 60_000;

/**
 * An `onUnreadable` for clientAddress that logs a warning at most once a minute (with how many
 * entries it stands for): a misconfigured proxy sends one on every request, and the log must
 * not become the flood.
 */
export function unreadableEntryWarner(
  warn: (fields: { entry: string; unreadableSinceLastWarning: number }, message: string) => void,
  clock: () => number = Date.now,
): (entry: string) => void {
  let lastWarning = Number.NEGATIVE_INFINITY;
  let count = 0;
  return (entry) => {
    count++;
    const at = clock();
    if (at - lastWarning < UNREADABLE_WARNING_INTERVAL_MS) return;
    lastWarning = at;
    warn(
      { entry: entry.slice(0, 100), unreadableSinceLastWarning: count },
      'X-Forwarded-For: the entry where the client address should be is not an IP address (or IP:port); ' +
        "these requests are counted as the proxy's own address. Check TRUST_PROXY and what the proxy appends",
    );
    count = 0;
  };
}

/**
 * What requestAddress reads of the server's services: declared here, not imported from
 * procedures/, since wire/ sits below every other folder (README, "Where things live").
 */
interface AddressServices {
  config: { trustProxy: TrustProxy };
  log: { warn(fields: object, message: string): void };
  now: () => Date;
}

const warners = new WeakMap<AddressServices, (entry: string) => void>();

/** The request's client address under the server's TRUST_PROXY, unreadable entries logged. */
export function requestAddress(ctx: { services: AddressServices; req: IncomingMessage }): string {
  const { services } = ctx;
  let warner = warners.get(services);
  if (!warner) {
    warner = unreadableEntryWarner(
      (fields, message) => services.log.warn(fields, message),
      () => services.now().getTime(),
    );
    warners.set(services, warner);
  }
  return clientAddress(ctx.req, services.config.trustProxy, warner);
}

function isTrusted(proxies: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && proxies.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Parses TRUST_PROXY: `false`/`0`/empty → no proxy; `true` → one hop (the old boolean meant
 * "a proxy sets the header", and a single proxy appending is the same as one hop); a number
 * of hops; or a comma-separated list of proxy addresses and CIDR blocks. Throws a message
 * naming the bad entry.
 */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false' || text === 'no') return { hops: 0 };
  if (text === 'true' || text === 'yes') return { hops: 1 };
  if (/^[0-9]+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) throw new Error('must be at most 32 hops');
    return { hops };
  }
  const proxies = new BlockList();
  const cidrs: string[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const [base = '', prefix, extra] = entry.split('/');
    const address = normalise(base);
    const family = isIP(address);
    const bits = family === 6 ? 128 : 32;
    const length = prefix === undefined ? bits : /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : Number.NaN;
    if (family === 0 || extra !== undefined || !(length >= 0 && length <= bits)) {
      throw new Error(`"${entry}" is not a number of hops, true/false, or an IP address or CIDR block`);
    }
    proxies.addSubnet(address, length, family === 6 ? 'ipv6' : 'ipv4');
    cidrs.push(`${address}/${length}`);
  }
  if (cidrs.length === 0) return { hops: 0 };
  return { proxies, cidrs };
}

/**
 * The rate-limit key of an address: IPv4 as it is; IPv6 by its /64 prefix, because one
 * subscriber usually holds a whole /64 and could otherwise rotate through 2^64 addresses.
 */
export function rateLimitKey(address: string): string {
  return isIP(address) === 6 ? ipv6Prefix(address, 64) : address;
}

/** An IPv6 address's network of `bits` (a multiple of 8), as `2001:db8:0:ab00::/56`. */
export function ipv6Prefix(address: string, bits: 56 | 64): string {
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back].map((g) =>
    Number.parseInt(g, 16),
  );
  // The last group of the prefix keeps its high bits only.
  const kept = groups.slice(0, 4).map((g, i) => (i === 3 ? g & (0xffff << (64 - bits)) & 0xffff : g));
  return `${kept.map((g) => g.toString(16)).join(':')}::/${bits}`;
}

/** Lower case, and `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) as the IPv4 address. */
function normalise(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase();
}
