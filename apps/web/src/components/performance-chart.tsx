/**
 * A provider's return curve, with its drawdown in a pane below on the same time axis, drawn by
 * TradingView's lightweight-charts (canvas). Loaded only on a provider page (React.lazy in
 * performance-panel.tsx), so the catalogue does not download it.
 *
 * The return is a baseline series around 0 % (green above, red below); the drawdown is the
 * running fall from the peak, drawn under 0 % as the loss it is. A crosshair follows the pointer
 * across both panes, and the legend above says the day and both values under it (the last day
 * when the pointer is elsewhere).
 */
import type { Performance, PerformancePoint } from '@signal/sdk';
import {
  BaselineSeries,
  ColorType,
  CrosshairMode,
  createChart,
  type IChartApi,
  type ISeriesApi,
  LineStyle,
  type MouseEventParams,
  type Time,
} from 'lightweight-charts';
import { useEffect, useRef, useState } from 'react';
import { formatDay, formatDrawdown, formatReturn, toneClass } from '../format';

// The stylesheet's colours (a canvas cannot read CSS variables by name).
const UP = '#0f8a5f';
const DOWN = '#c23a3a';
const TEXT = '#5d6475';
const GRID = '#f1f3f8';
const LINE = '#e3e6ee';

/** Axis labels: "+12%", "−4.5%", "0%". */
function axisPercent(value: number): string {
  const magnitude = Math.abs(value);
  const digits = magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2;
  const text = `${Number(magnitude.toFixed(digits))}%`;
  return value > 0.0000001 ? `+${text}` : value < -0.0000001 ? `−${text}` : '0%';
}

/** The crosshair's day, as the legend writes it: "Nov 6, 2026". */
function crosshairDay(time: Time): string {
  if (typeof time === 'string') return formatDay(time);
  if (typeof time === 'number') return formatDay(new Date(time * 1000).toISOString().slice(0, 10));
  const pad = (n: number) => String(n).padStart(2, '0');
  return formatDay(`${time.year}-${pad(time.month)}-${pad(time.day)}`);
}

const percentFormat = { type: 'custom' as const, formatter: axisPercent, minMove: 0.01 };

interface Drawn {
  chart: IChartApi;
  roi: ISeriesApi<'Baseline'>;
  drawdown: ISeriesApi<'Baseline'>;
}

export default function PerformanceChart({ performance }: { performance: Performance }) {
  const host = useRef<HTMLDivElement>(null);
  const drawn = useRef<Drawn>(undefined);
  const points = useRef<PerformancePoint[]>(performance.points);
  const [hovered, setHovered] = useState<PerformancePoint | null>(null);

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const chart = createChart(element, {
      autoSize: true,
      layout: {
        background: { type: ColorType.Solid, color: '#ffffff' },
        textColor: TEXT,
        fontSize: 12,
        fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
        panes: { separatorColor: LINE, separatorHoverColor: LINE, enableResize: false },
        // The on-chart logo brings an inline <style>, which the page's Content-Security-Policy
        // refuses; the licence's attribution notice and link are under the chart instead.
        attributionLogo: false,
      },
      grid: { vertLines: { color: GRID }, horzLines: { color: GRID } },
      rightPriceScale: { borderVisible: false, scaleMargins: { top: 0.1, bottom: 0.08 } },
      timeScale: { borderColor: LINE, fixLeftEdge: true, fixRightEdge: true, lockVisibleTimeRangeOnResize: true },
      crosshair: {
        mode: CrosshairMode.Magnet,
        vertLine: { color: '#9aa1b2', style: LineStyle.Dashed, labelBackgroundColor: '#171a23' },
        horzLine: { color: '#9aa1b2', style: LineStyle.Dashed, labelBackgroundColor: '#171a23' },
      },
      // The window tabs choose what is shown; dragging or wheeling the chart would also take
      // the page's own scrolling on a phone.
      handleScroll: false,
      handleScale: false,
      localization: { locale: 'en-US', priceFormatter: axisPercent, timeFormatter: crosshairDay },
    });
    const roi = chart.addSeries(BaselineSeries, {
      baseValue: { type: 'price', price: 0 },
      topLineColor: UP,
      topFillColor1: 'rgba(15, 138, 95, 0.28)',
      topFillColor2: 'rgba(15, 138, 95, 0.04)',
      bottomLineColor: DOWN,
      bottomFillColor1: 'rgba(194, 58, 58, 0.04)',
      bottomFillColor2: 'rgba(194, 58, 58, 0.28)',
      lineWidth: 2,
      priceFormat: percentFormat,
      priceLineVisible: false,
    });
    const drawdown = chart.addSeries(
      BaselineSeries,
      {
        baseValue: { type: 'price', price: 0 },
        topLineColor: DOWN,
        topFillColor1: 'rgba(0, 0, 0, 0)',
        topFillColor2: 'rgba(0, 0, 0, 0)',
        bottomLineColor: DOWN,
        bottomFillColor1: 'rgba(194, 58, 58, 0.10)',
        bottomFillColor2: 'rgba(194, 58, 58, 0.30)',
        lineWidth: 1,
        priceFormat: percentFormat,
        priceLineVisible: false,
      },
      1,
    );
    // The return gets most of the height; the drawdown reads as a strip under it.
    chart.panes()[0]?.setStretchFactor(2.4);
    chart.panes()[1]?.setStretchFactor(1);
    // Room above 0 % in the drawdown pane, so its top label clears the separator.
    chart.priceScale('right', 1).applyOptions({ scaleMargins: { top: 0.14, bottom: 0.06 } });

    // Both series hold one value per point, so the logical index is the point's index.
    const onMove = (param: MouseEventParams<Time>) => {
      const index = param.point && param.logical !== undefined ? Math.round(param.logical) : -1;
      setHovered(points.current[index] ?? null);
    };
    chart.subscribeCrosshairMove(onMove);
    drawn.current = { chart, roi, drawdown };
    return () => {
      chart.unsubscribeCrosshairMove(onMove);
      chart.remove();
      drawn.current = undefined;
    };
  }, []);

  useEffect(() => {
    points.current = performance.points;
    setHovered(null);
    const current = drawn.current;
    if (!current) return;
    current.roi.setData(performance.points.map((point) => ({ time: point.date as Time, value: point.roiPct })));
    current.drawdown.setData(
      performance.points.map((point) => ({ time: point.date as Time, value: -point.drawdownPct })),
    );
    current.chart.timeScale().fitContent();
  }, [performance]);

  const shown = hovered ?? performance.points.at(-1);
  return (
    <div className="performance-chart">
      {shown ? (
        <div
          className="chart-legend"
          data-testid="chart-legend"
          data-hovered={hovered ? 'true' : 'false'}
          data-date={shown.date}
          data-roi={shown.roiPct}
          data-drawdown={shown.drawdownPct}
          aria-live="off"
        >
          <span className="legend-date">{formatDay(shown.date)}</span>
          <span className="legend-item">
            <span className="legend-swatch tone-up" aria-hidden="true" />
            Return <strong className={toneClass(shown.roiPct)}>{formatReturn(shown.roiPct)}</strong>
          </span>
          <span className="legend-item">
            <span className="legend-swatch tone-down" aria-hidden="true" />
            Drawdown <strong className={toneClass(-shown.drawdownPct)}>{formatDrawdown(shown.drawdownPct)}</strong>
          </span>
        </div>
      ) : null}
      <div
        ref={host}
        className="chart-host"
        data-testid="performance-chart"
        data-window={performance.window}
        data-points={performance.points.length}
        data-first-date={performance.points[0]?.date}
        data-last-date={performance.points.at(-1)?.date}
        role="img"
        aria-label={describe(performance)}
      />
      <p className="chart-credit">
        Chart: TradingView Lightweight Charts™, © TradingView, Inc.,{' '}
        <a href="https://www.tradingview.com/" target="_blank" rel="noreferrer">
          tradingview.com
        </a>
      </p>
    </div>
  );
}

/** The chart in words, for screen readers. */
function describe({ points }: Performance): string {
  const first = points[0];
  const last = points.at(-1);
  if (!first || !last) return 'No performance published';
  const deepest = Math.max(...points.map((point) => point.drawdownPct));
  return `Return from ${formatDay(first.date)} to ${formatDay(last.date)}: ${formatReturn(last.roiPct)}; deepest drawdown ${formatDrawdown(deepest)}`;
}
