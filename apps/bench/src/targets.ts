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
  ratioAtLeast('raw EVM verification: ≥ 70 % of libsecp256k1', 'raw-evm', 0.7);
  ratioAtLeast("raw Solana verification: ≥ 70 % of Node's Ed25519", 'raw-solana', 0.7);
  ratioAtLeast('POST /auth/verify EVM: ≥ 85 % of the baseline', 'verify-evm', 0.85);
  ratioAtLeast('POST /auth/verify Solana: ≥ 85 % of the baseline', 'verify-solana', 0.85);
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
