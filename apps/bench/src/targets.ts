/** The targets, each judged against the rows of this run. */
import type { Row, Verdict } from './report.js';

const pct = (ratio: number) => `${Math.round(ratio * 100)} %`;

export function judge(rows: Map<string, Row>, api: { readyMs: number[]; peakRssMb: number | null }): Verdict[] {
  const verdicts: Verdict[] = [];
  const at = (key: string) => rows.get(key);
  const ratioAtLeast = (target: string, key: string, floor: number) => {
    const r = at(key);
    if (r?.ratio == null) return;
    verdicts.push({ target, measured: `${pct(r.ratio)} of the baseline`, met: r.ratio >= floor });
  };
  /** The row's CPU per request is at most `most` times its baseline column's. */
  const cpuAtMost = (target: string, key: string, most: number) => {
    const r = at(key);
    if (r?.service.cpuUs == null || r.baseline?.cpuUs == null) return;
    const factor = r.service.cpuUs / r.baseline.cpuUs;
    verdicts.push({
      target,
      measured: `${Math.round(r.service.cpuUs)} vs ${Math.round(r.baseline.cpuUs)} µs (${factor.toFixed(2)}×)`,
      met: factor <= most,
    });
  };

  for (const [key, what] of [
    ['list', 'list page 1'],
    ['detail', 'detail'],
    ['stats', 'stats'],
  ] as const) {
    ratioAtLeast(`${what}: ≥ 85 % of the baseline's req/s`, key, 0.85);
    const r = at(key);
    if (r?.baseline?.p99 != null && r.service.p99 != null) {
      const factor = r.service.p99 / Math.max(1, r.baseline.p99);
      verdicts.push({
        target: `${what}: p99 ≤ 1.25× the baseline's`,
        measured: `${r.service.p99} ms vs ${r.baseline.p99} ms (${factor.toFixed(2)}×)`,
        met: factor <= 1.25,
      });
    }
  }
  const scale = at('scale');
  if (scale?.baseline) {
    const factor = scale.baseline.rps / scale.service.rps;
    verdicts.push({
      target: 'page 1 on 1M within 1.25× of page 1 on 10k',
      measured: `${Math.round(scale.service.rps)} vs ${Math.round(scale.baseline.rps)} req/s (${factor.toFixed(2)}×)`,
      met: factor <= 1.25,
    });
  }
  const offset = at('offset');
  if (offset?.ratio != null) {
    verdicts.push({
      target: 'deep page: ≥ 10× the plain-OFFSET baseline',
      measured: `${offset.ratio.toFixed(1)}×`,
      met: offset.ratio >= 10,
    });
  }
  ratioAtLeast("list sorted by name: ≥ 85 % of the baseline's req/s", 'name', 0.85);
  ratioAtLeast("deep page, deferred join on both sides: ≥ 85 % of the baseline's req/s", 'deep', 0.85);
  ratioAtLeast("list page 1 over tRPC: ≥ 85 % of the service's REST req/s", 'trpc', 0.85);
  const cursor = at('cursor');
  if (cursor?.ratio != null) {
    verdicts.push({
      target: 'cursor at depth: ≥ 0.9× the req/s of page 1',
      measured: `${Math.round(cursor.service.rps)} vs ${Math.round(cursor.baseline?.rps ?? 0)} req/s (${cursor.ratio.toFixed(2)}×)`,
      met: cursor.ratio >= 0.9,
    });
  }
  // The revalidation rows' baseline column is the same request answered 200.
  cpuAtMost("304 revalidation of list page 1: CPU per request ≤ 0.5× the 200 path's", 'revalidate', 0.5);
  cpuAtMost("stats 304 by hashing the built body: CPU per request ≤ the 200 path's", 'revalidate-stats', 1);
  // The physical anchors: how close the service comes to the floors under it.
  for (const [key, what, floor] of [
    ['http-list', "list page 1: ≥ 25 % of bare node:http's req/s with the same body", 0.25],
    ['http-detail', "detail: ≥ 40 % of bare node:http's req/s with the same body", 0.4],
  ] as const) {
    ratioAtLeast(what, key, floor);
  }
  for (const [key, of, what, floor] of [
    ['pg-list', 'list', "list page 1: ≥ 50 % of PostgreSQL alone's rate on its statements", 0.5],
    ['pg-detail', 'detail', "detail: ≥ 50 % of PostgreSQL alone's rate on its statement", 0.5],
  ] as const) {
    const anchor = at(key);
    const service = at(of);
    if (!anchor || !service || !(anchor.service.rps > 0)) continue;
    const share = service.service.rps / anchor.service.rps;
    verdicts.push({ target: what, measured: `${pct(share)} of PostgreSQL alone`, met: share >= floor });
  }
  // Req/s hides the gap when the load generator and PostgreSQL saturate the cores: on every row
  // that sets the service beside the bare baseline, the CPU per request must stay close too.
  for (const [key, what] of [
    ['list', 'list page 1'],
    ['deep', 'deep page'],
    ['name', 'list sorted by name'],
    ['detail', 'detail'],
    ['stats', 'stats'],
    ['me', 'GET /me'],
    ['follow', 'follow + unfollow'],
    ['nonce', 'GET /auth/nonce'],
    ['verify-evm', 'POST /auth/verify EVM'],
    ['verify-solana', 'POST /auth/verify Solana'],
  ] as const) {
    cpuAtMost(`${what}: CPU per request ≤ 1.10× the baseline's`, key, 1.1);
  }
  ratioAtLeast('raw EVM verification: ≥ 70 % of libsecp256k1', 'raw-evm', 0.7);
  ratioAtLeast("raw Solana verification: ≥ 70 % of Node's Ed25519", 'raw-solana', 0.7);
  ratioAtLeast('POST /auth/verify EVM: ≥ 85 % of the baseline', 'verify-evm', 0.85);
  ratioAtLeast('POST /auth/verify Solana: ≥ 85 % of the baseline', 'verify-solana', 0.85);
  // A SIWE text costs a few hundred bytes more to hash than the plain one, nothing else.
  ratioAtLeast('POST /auth/verify SIWE: ≥ 90 % of the plain verify on the same service', 'verify-siwe', 0.9);
  // Issuing a nonce stores nothing, so it must cost less than the cheapest read that does.
  const nonce = at('nonce');
  const detail = at('detail');
  if (nonce && detail) {
    verdicts.push({
      target: 'GET /auth/nonce: ≥ the req/s of GET /providers/{id} (no database round trip)',
      measured: `${Math.round(nonce.service.rps)} vs ${Math.round(detail.service.rps)} req/s`,
      met: nonce.service.rps >= detail.service.rps,
    });
  }
  ratioAtLeast('GET /me: ≥ 70 % of the baseline', 'me', 0.7);
  ratioAtLeast('follow + unfollow: ≥ 70 % of the baseline', 'follow', 0.7);
  if (api.peakRssMb !== null) {
    verdicts.push({
      target: 'API resident memory under the list load < 250 MB',
      measured: `${api.peakRssMb.toFixed(0)} MB`,
      met: api.peakRssMb < 250,
    });
  }
  if (api.readyMs.length > 0) {
    const worst = Math.max(...api.readyMs);
    verdicts.push({
      target: 'API start to ready < 2 s on PostgreSQL',
      measured: `${Math.round(worst)} ms (worst of ${api.readyMs.length})`,
      met: worst < 2_000,
    });
  }
  return verdicts;
}
