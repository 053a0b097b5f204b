import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The client's address as rate limits see it. With TRUST_PROXY the left-most entry of
 * X-Forwarded-For is the client (the load balancer must set the header, not append to what
 * the client sent, or clients choose their own address); an entry that is not an IP address
 * falls back to the socket's, so garbage cannot mint fresh buckets. Otherwise the socket's
 * peer address, which a client cannot choose.
 */
export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const header = req.headers['x-forwarded-for'];
    const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim();
    if (first && isIP(unmapped(first))) return unmapped(first).toLowerCase();
  }
  return unmapped(req.socket.remoteAddress ?? 'unknown').toLowerCase();
}

/**
 * The rate-limit key of an address: IPv4 as it is; IPv6 by its /64 prefix, because one
 * subscriber usually holds a whole /64 and could otherwise rotate through 2^64 addresses.
 */
export function rateLimitKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail] = address.split('::');
  const groupsOf = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** `::ffff:1.2.3.4` (an IPv4 client on a dual-stack socket) is the IPv4 address. */
function unmapped(address: string): string {
  return address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
}
