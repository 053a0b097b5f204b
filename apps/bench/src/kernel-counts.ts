/**
 * Kernel-side counts of a server process (Linux /proc) for the deployment rows: what one
 * request costs in wake-ups, system calls and CPU time split between user space and the kernel.
 */
import { readFile } from 'node:fs/promises';

/**
 * Kernel-side counts of a process so far: voluntary context switches (each a sleep in
 * epoll_wait that something woke: fewer answers per wake-up means more of them per request)
 * and read/write system calls (/proc/<pid>/io). Null fields when /proc does not have them.
 */
export interface KernelCounts {
  wakeups: number | null;
  reads: number | null;
  writes: number | null;
  /** CPU time in user space and in the kernel, ms (USER_HZ 100). */
  userMs: number | null;
  systemMs: number | null;
}

export async function kernelCounts(pid: number): Promise<KernelCounts> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const io = await readFile(`/proc/${pid}/io`, 'utf8').catch(() => '');
  const field = (text: string, name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(text);
    return match ? Number(match[1]) : null;
  };
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const times = stat ? stat.slice(stat.lastIndexOf(')') + 2).split(' ') : [];
  const ticks = (index: number) => (times[index] === undefined ? null : Number(times[index]) * 10);
  return {
    wakeups: field(status, 'voluntary_ctxt_switches'),
    reads: field(io, 'syscr'),
    writes: field(io, 'syscw'),
    userMs: ticks(11),
    systemMs: ticks(12),
  };
}

/** `a wake-ups, b reads, c writes` per request between two counts (warm-up requests included). */
export function perRequest(before: KernelCounts, after: KernelCounts, served: number): string | undefined {
  if (served <= 0) return undefined;
  const each = (key: keyof KernelCounts) => {
    const a = after[key];
    const b = before[key];
    return a === null || b === null ? '?' : ((a - b) / served).toFixed(2);
  };
  const micro = (key: keyof KernelCounts) => {
    const a = after[key];
    const b = before[key];
    return a === null || b === null ? '?' : Math.round(((a - b) * 1000) / served);
  };
  return `${each('wakeups')} wake-ups, ${each('reads')} reads, ${each('writes')} writes, user ${micro('userMs')} µs + system ${micro('systemMs')} µs`;
}
