/**
 * The request histogram of /metrics (`http_request_duration_seconds`), kept by this module
 * rather than by prom-client's Histogram (why: the comment on requestHistogram); ops/metrics.ts
 * registers it with the rest of the service's metrics.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import { requestState } from '../wire/request-state.js';

/** The route label of a request no route served (404s, CORS preflights, malformed targets). */
const NO_ROUTE = '(none)';
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const DURATION = 'http_request_duration_seconds';

/** Seconds; from a cached answer (well under a millisecond) to the 10 s statement timeout. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One series of the request histogram: a method, route and status, and what was observed. */
interface Series {
  /** The method as the request gave it (node's parser hands out its own interned strings). */
  readonly seen: string;
  /** Its label: one of METHODS, or `other`. */
  readonly labels: { method: string; route: string; status: string };
  readonly status: number;
  /** Observations per bucket, not cumulative: the last slot is above the highest bound (+Inf). */
  readonly counts: Float64Array;
  sum: number;
}

/**
 * `http_request_duration_seconds`, kept by this module rather than by prom-client's Histogram,
 * which on every observation (even through a label child) copies the labels into a new object,
 * checks them, hashes them into a string key by sorting their names, and looks a bucket up by
 * a number turned into a property name: more than the rest of the metrics' per-request work
 * together (apps/bench/LAB-NOTES.md, "Metrics cost"). Here an observation is a look-up of the route's few
 * series (the route label is a template string of the route table, its hash kept by V8), a
 * compare of method and status, a bucket search and three additions; the series are turned
 * into prom-client's exposition only at a scrape. The per-request listener is one function for
 * all requests (no closure, no `once` wrapper), and the start time rides in the request state
 * the host makes anyway.
 */
export function requestHistogram(registry: Registry) {
  const byRoute = new Map<string, Series[]>();
  const bounds = LATENCY_BUCKETS;

  const seriesOf = (route: string, seen: string, status: number): Series => {
    let list = byRoute.get(route);
    if (list === undefined) {
      list = [];
      byRoute.set(route, list);
    }
    for (let i = 0; i < list.length; i++) {
      const series = list[i] as Series;
      if (series.status === status && series.seen === seen) return series;
    }
    // Another method that is `other` too shares that series (one series per label set).
    const method = METHODS.has(seen) ? seen : 'other';
    const same = list.find((series) => series.status === status && series.labels.method === method);
    if (same) return same;
    const series: Series = {
      seen,
      labels: { method, route, status: String(status) },
      status,
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
    };
    list.push(series);
    return series;
  };

  function finished(this: ServerResponse) {
    const { req } = this;
    const state = requestState(req);
    const seconds = (performance.now() - (state.started as number)) / 1000;
    const series = seriesOf(state.route ?? NO_ROUTE, req.method ?? '', this.statusCode);
    let bucket = 0;
    while (bucket < bounds.length && seconds > (bounds[bucket] as number)) bucket++;
    (series.counts[bucket] as number) += 1;
    series.sum += seconds;
  }

  const help =
    'Time from the request to its last byte written, by method, route template and status; _count is the number of requests';
  // The shape prom-client's Registry renders (what its Histogram's getForPromString returns):
  // the series' labels shared by its buckets, `le` per bucket, cumulative counts.
  const values = () => {
    const out: {
      labels: Record<string, string | number>;
      sharedLabels: Series['labels'];
      value: number;
      metricName: string;
    }[] = [];
    for (const list of byRoute.values()) {
      for (const series of list) {
        let total = 0;
        for (let i = 0; i < bounds.length; i++) {
          total += series.counts[i] as number;
          out.push({
            labels: { le: bounds[i] as number },
            sharedLabels: series.labels,
            value: total,
            metricName: `${DURATION}_bucket`,
          });
        }
        total += series.counts[bounds.length] as number;
        out.push({
          labels: { le: '+Inf' },
          sharedLabels: series.labels,
          value: total,
          metricName: `${DURATION}_bucket`,
        });
        out.push({ labels: {}, sharedLabels: series.labels, value: series.sum, metricName: `${DURATION}_sum` });
        out.push({ labels: {}, sharedLabels: series.labels, value: total, metricName: `${DURATION}_count` });
      }
    }
    return out;
  };
  const metric = {
    name: DURATION,
    help,
    type: 'histogram',
    aggregator: 'sum',
    async getForPromString() {
      return { name: DURATION, help, type: 'histogram', values: values(), aggregator: 'sum' };
    },
    // The JSON form (getMetricsAsJSON) has each value's labels whole, as prom-client's get() does.
    async get() {
      const rendered = values().map(({ labels, sharedLabels, ...rest }) => ({
        ...rest,
        labels: { ...sharedLabels, ...labels },
      }));
      return { name: DURATION, help, type: 'histogram', values: rendered, aggregator: 'sum' };
    },
    reset() {
      byRoute.clear();
    },
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);

  return {
    /** Starts timing a request; its route is what setRoute said by the time it finishes. */
    observe(req: IncomingMessage, res: ServerResponse) {
      requestState(req).started = performance.now();
      res.on('finish', finished);
    },
  };
}
