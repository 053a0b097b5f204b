/**
 * A small horizontal bar chart drawn as SVG by hand: one row per figure, bars from a zero line
 * that sits wherever the values need it (at the left edge for counts, inside for returns that
 * can be negative). Values are printed next to their bars, so the chart never has to be read off
 * an axis.
 */
export interface Bar {
  label: string;
  value: number;
  /** The value as the figures above print it. */
  text: string;
  tone: 'accent' | 'muted' | 'up' | 'down';
}

const WIDTH = 480;
const LABEL = 140;
const VALUE_ROOM = 76;
const ROW = 30;
const BAR = 16;

export function BarChart({ title, bars }: { title: string; bars: Bar[] }) {
  const low = Math.min(0, ...bars.map((bar) => bar.value));
  const high = Math.max(0, ...bars.map((bar) => bar.value));
  const span = high - low || 1;
  // Room for the value text on whichever side a bar can grow towards.
  const left = LABEL + (low < 0 ? VALUE_ROOM : 0);
  const plot = WIDTH - left - VALUE_ROOM;
  const x = (value: number) => left + ((value - low) / span) * plot;
  const zero = x(0);
  const height = bars.length * ROW + 8;
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-label={`${title}: ${bars.map((b) => `${b.label} ${b.text}`).join(', ')}`}
      >
        {bars.map((bar, index) => {
          const y = 4 + index * ROW;
          const end = x(bar.value);
          const start = Math.min(zero, end);
          const width = Math.max(Math.abs(end - zero), bar.value === 0 ? 0 : 1.5);
          const negative = bar.value < 0;
          return (
            <g key={bar.label}>
              <text className="chart-label" x={0} y={y + ROW / 2} dominantBaseline="middle">
                {bar.label}
              </text>
              <rect className="chart-track" x={left} y={y + (ROW - BAR) / 2} width={plot} height={BAR} rx={3} />
              <rect
                className={`chart-bar chart-${bar.tone}`}
                x={start}
                y={y + (ROW - BAR) / 2}
                width={width}
                height={BAR}
                rx={3}
              />
              <text
                className="chart-value"
                x={negative ? start - 6 : start + width + 6}
                y={y + ROW / 2}
                dominantBaseline="middle"
                textAnchor={negative ? 'end' : 'start'}
              >
                {bar.text}
              </text>
            </g>
          );
        })}
        {low < 0 ? <line className="chart-zero" x1={zero} x2={zero} y1={0} y2={height} /> : null}
      </svg>
    </figure>
  );
}
