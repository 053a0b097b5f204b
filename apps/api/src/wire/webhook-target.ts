/**
 * Never a door inward (CONTRACT.md, "Webhooks"; docs/security.md, "Webhooks and SSRF"): a
 * webhook URL must name, and resolve to, public addresses only. In wire/ because both the
 * webhook routes (procedures/) and the delivery worker (ops/) check targets, and it needs nothing
 * of either: URL and address rules only.
 *
 * - The URL is parsed by the WHATWG parser (node's URL), which turns every IPv4 notation into
 *   dotted decimal first: `2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1` all become `127.0.0.1`,
 *   and IPv6 is compressed (`[::ffff:127.0.0.1]` → `[::ffff:7f00:1]`). The check then reads
 *   one canonical form.
 * - A name is resolved once per check (every address it has, A and AAAA); the host is refused
 *   when any of them is refused, so a name cannot hide one inward address among public ones.
 * - The caller connects to exactly the address checked (webhook-send.ts: `host` is that address,
 *   the name travels as Host and TLS servername), so a DNS answer that changes between the check
 *   and the connection (rebinding) changes nothing.
 * - Refused: every range of IANA's IPv4 and IPv6 Special-Purpose Address Registries (whether
 *   or not IANA marks it globally reachable: none is a place a webhook receiver lives), IPv4
 *   multicast, 168.63.129.16 (a cloud platform's internal endpoint: DHCP, DNS, the instance's
 *   agent), and in IPv6 everything outside global unicast 2000::/3. The forms that carry an IPv4
 *   address (mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16) are themselves registry
 *   entries, so refused whatever they carry.
 * - A refusal names the rule (`private address`, `not https`), never what a name resolved to:
 *   the message goes back to the caller, and an answer "resolves to 127.0.0.1" would map the
 *   service's own network for them (issue 42).
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

export class WebhookTargetError extends Error {
  override readonly name = 'WebhookTargetError';
}

/** The rule a refused address breaks, in every refusal's message. */
export const PRIVATE_ADDRESS = 'private address';

/**
 * IPv4 ranges refused, as [first address, prefix length, what it is]: IANA's IPv4 Special-Purpose
 * Address Registry (RFC 6890 and its updates), multicast, and one cloud endpoint.
 */
const IPV4_REFUSED: readonly [string, number, string][] = [
  ['0.0.0.0', 8, '"this network"'],
  ['10.0.0.0', 8, 'private-use'],
  ['100.64.0.0', 10, 'shared address space (carrier-grade NAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['168.63.129.16', 32, 'a cloud platform internal endpoint'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private-use'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.31.196.0', 24, 'AS112'],
  ['192.52.193.0', 24, 'AMT'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private-use'],
  ['192.175.48.0', 24, 'AS112 direct delegation'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved or broadcast'],
];

function ipv4ToNumber(address: string): number {
  return address.split('.').reduce((value, part) => value * 256 + Number(part), 0);
}

const IPV4_RANGES = IPV4_REFUSED.map(([first, bits, what]) => ({
  first: ipv4ToNumber(first),
  size: 2 ** (32 - bits),
  what,
}));

function ipv4Refusal(address: string): string | undefined {
  const value = ipv4ToNumber(address);
  return IPV4_RANGES.find((range) => value >= range.first && value < range.first + range.size)?.what;
}

/** The 128 bits of an IPv6 address (any valid notation, dotted tail included). */
function ipv6ToBigInt(address: string): bigint {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // A dotted IPv4 tail is two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4ToNumber(dotted[1] as string);
    text = `${text.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailGroups];
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group || '0', 16)), 0n);
}

/**
 * IPv6 ranges refused inside global unicast 2000::/3 (everything outside it is refused anyway):
 * IANA's IPv6 Special-Purpose Address Registry. Outside 2000::/3 the registry's ::1, ::,
 * ::ffff:0:0/96, 64:ff9b::/96, 64:ff9b:1::/48, 100::/64, 100:0:0:1::/64, 5f00::/16, fc00::/7 and
 * fe80::/10 are all refused by that rule, as multicast ff00::/8 is.
 */
const IPV6_REFUSED: readonly [string, number, string][] = [
  ['2001::', 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID, AMT, AS112 among them)'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['2620:4f:8000::', 48, 'AS112 direct delegation'],
  ['3fff::', 20, 'documentation'],
];

const IPV6_RANGES = IPV6_REFUSED.map(([prefix, bits, what]) => ({
  shift: BigInt(128 - bits),
  prefix: ipv6ToBigInt(prefix),
  what,
}));

function inV6(value: bigint, prefix: string, bits: number): boolean {
  const shift = BigInt(128 - bits);
  return value >> shift === ipv6ToBigInt(prefix) >> shift;
}

function ipv6Refusal(address: string): string | undefined {
  const value = ipv6ToBigInt(address);
  if (inV6(value, '::ffff:0:0', 96)) return 'IPv4-mapped';
  if (inV6(value, '64:ff9b::', 96) || inV6(value, '64:ff9b:1::', 48)) return 'NAT64';
  if (value === 0n) return 'unspecified';
  if (value === 1n) return 'loopback';
  if (inV6(value, 'fc00::', 7)) return 'unique-local (cloud metadata fd00:ec2::254 among them)';
  if (inV6(value, 'fe80::', 10)) return 'link-local';
  if (inV6(value, 'ff00::', 8)) return 'multicast';
  const range = IPV6_RANGES.find(({ shift, prefix }) => value >> shift === prefix >> shift);
  if (range) return range.what;
  if (!inV6(value, '2000::', 3)) return 'not global unicast (reserved, discard-only, IPv4-compatible or SRv6)';
  return undefined;
}

/** Why an IP address is refused as a webhook target, or undefined when it is public. */
export function refusedAddressReason(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return ipv4Refusal(address);
  if (family === 6) return ipv6Refusal(address);
  return 'not an IP address';
}

export interface TargetPolicy {
  /** WEBHOOK_ALLOW_HTTP: http:// URLs too (development). */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: inward addresses too (development, tests). */
  allowPrivate: boolean;
  /** Resolves a name to every address it has. */
  resolve: HostResolver;
}

/** Every address of a host name (A and AAAA); throws when it has none. */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

/**
 * The system resolver (getaddrinfo: /etc/hosts, then DNS), or, with `servers` (WEBHOOK_DNS_SERVERS),
 * DNS queries to those servers only (`ip` or `ip:port`; docs/deployment.md).
 */
export function createHostResolver(servers: readonly string[] = []): HostResolver {
  if (servers.length === 0) {
    return async (hostname) => {
      const found = await dns.lookup(hostname, { all: true, verbatim: true });
      return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
    };
  }
  const resolver = new dns.Resolver({ timeout: 2_000, tries: 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const found = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 as const })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 as const })) : []),
    ];
    if (found.length === 0) {
      const failure = v4.status === 'rejected' ? v4.reason : v6.status === 'rejected' ? v6.reason : undefined;
      throw failure instanceof Error ? failure : new Error(`${hostname} has no address`);
    }
    return found;
  };
}

/** The URL's form: absolute http(s), no credentials in it, a host; its canonical URL. */
export function parseWebhookUrl(text: string, policy: Pick<TargetPolicy, 'allowHttp'>): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookTargetError('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:')) {
    throw new WebhookTargetError(
      policy.allowHttp ? 'not http or https: must be an http or https URL' : 'not https: must be an https URL',
    );
  }
  if (url.username || url.password) throw new WebhookTargetError('must not carry a user name or password');
  if (!url.hostname) throw new WebhookTargetError('must name a host');
  return url;
}

/** The host of a parsed URL without IPv6 brackets. */
function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

export interface ResolvedTarget {
  url: URL;
  /** The address to connect to: checked, and the only one used. */
  address: string;
  family: 4 | 6;
}

/**
 * Checks a webhook URL and resolves its host once: the address to connect to. Throws
 * WebhookTargetError (with a message for a 400 or for the attempt's log) when it is refused.
 */
export async function resolveWebhookTarget(text: string, policy: TargetPolicy): Promise<ResolvedTarget> {
  const url = parseWebhookUrl(text, policy);
  const host = bareHost(url);
  const literal = isIP(host);
  let addresses: { address: string; family: 4 | 6 }[];
  if (literal) {
    addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
  } else {
    // RFC 6761: these names are loopback whatever a resolver says.
    if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) {
      throw new WebhookTargetError(`${PRIVATE_ADDRESS}: ${host} is loopback by definition`);
    }
    try {
      addresses = await policy.resolve(host);
    } catch {
      // Not the resolver's error: its code and text describe the service's own DNS.
      throw new WebhookTargetError(`host ${host} does not resolve`);
    }
    if (addresses.length === 0) throw new WebhookTargetError(`host ${host} does not resolve`);
  }
  if (!policy.allowPrivate) {
    for (const { address } of addresses) {
      const reason = refusedAddressReason(address);
      if (reason) {
        // A literal is the caller's own text, so its range may be named; for a name only the
        // rule is: what it resolved to (or which kind of range) describes the service's network.
        throw new WebhookTargetError(literal ? `${PRIVATE_ADDRESS}: ${address} is ${reason}` : PRIVATE_ADDRESS);
      }
    }
  }
  const [first] = addresses as [{ address: string; family: 4 | 6 }];
  return { url, address: first.address, family: first.family };
}
