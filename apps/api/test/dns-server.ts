/**
 * A tiny real DNS server for tests (UDP on 127.0.0.1): answers A and AAAA queries from a table
 * the test changes at will, with TTL 0 so no resolver caches an answer. The server under test
 * asks it through WEBHOOK_DNS_SERVERS, so a name can resolve to a public address at one moment
 * and to loopback the next, as DNS rebinding does, without mocking anything.
 */
import { createSocket } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

export interface TestDns {
  /** `ip:port` for WEBHOOK_DNS_SERVERS. */
  server: string;
  /** Sets the addresses `name` resolves to (A and AAAA from the list); [] for none. */
  set(name: string, addresses: string[]): void;
  /** How many queries came for `name`. */
  queries(name: string): number;
  close(): Promise<void>;
}

function ipv6Bytes(address: string): Buffer {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = [...h, ...Array<string>(tail === undefined ? 0 : 8 - h.length - t.length).fill('0'), ...t];
  const bytes = Buffer.alloc(16);
  for (const [i, group] of groups.entries()) bytes.writeUInt16BE(Number.parseInt(group || '0', 16), 2 * i);
  return bytes;
}

export async function startTestDns(): Promise<TestDns> {
  const table = new Map<string, string[]>();
  const asked = new Map<string, number>();
  const socket = createSocket('udp4');
  socket.on('message', (query, remote) => {
    // Header (12 bytes), then one question: labels, type, class.
    let offset = 12;
    const labels: string[] = [];
    while (offset < query.length && query[offset] !== 0) {
      const length = query[offset] as number;
      labels.push(query.subarray(offset + 1, offset + 1 + length).toString('ascii'));
      offset += 1 + length;
    }
    const questionEnd = offset + 5;
    const type = query.readUInt16BE(offset + 1);
    const name = labels.join('.').toLowerCase();
    asked.set(name, (asked.get(name) ?? 0) + 1);
    const known = table.get(name);
    const wanted = (known ?? []).filter((address) => (type === 1 ? isIPv4(address) : type === 28 && isIPv6(address)));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    // A response, recursion desired and available; NXDOMAIN for names it does not know.
    header.writeUInt16BE(0x8180 | (known ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(wanted.length, 6);
    const answers = wanted.map((address) => {
      const data = type === 1 ? Buffer.from(address.split('.').map(Number)) : ipv6Bytes(address);
      const record = Buffer.alloc(12);
      record.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      record.writeUInt16BE(type, 2);
      record.writeUInt16BE(1, 4); // class IN
      record.writeUInt32BE(0, 6); // TTL 0: never cached
      record.writeUInt16BE(data.length, 10);
      return Buffer.concat([record, data]);
    });
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), ...answers]), remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    set: (name, addresses) => table.set(name.toLowerCase(), addresses),
    queries: (name) => asked.get(name.toLowerCase()) ?? 0,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
