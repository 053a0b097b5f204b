/** Number and date formatting, one formatter each (they are costly to build). */
const integer = new Intl.NumberFormat('en');
const percent = new Intl.NumberFormat('en', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
const date = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric' });
const dateTime = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

export const formatCount = (value: number) => integer.format(value);

/** 0.7465 → "74.7%". */
export const formatRate = (ratio: number) => `${percent.format(ratio * 100)}%`;

/** −79.76 → "−79.8%", 12 → "+12.0%": returns always carry their sign. */
/** Two significant digits below 1 %, where one decimal would show a per-signal return as 0.0. */
const smallPercent = new Intl.NumberFormat('en', { maximumSignificantDigits: 2 });

export function formatReturn(pct: number): string {
  const magnitude = Math.abs(pct);
  const text = `${(magnitude > 0 && magnitude < 1 ? smallPercent : percent).format(magnitude)}%`;
  if (pct > 0) return `+${text}`;
  return pct < 0 ? `−${text}` : text;
}

export const formatDate = (iso: string) => date.format(new Date(iso));
export const formatDateTime = (iso: string) => dateTime.format(new Date(iso));

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 days ago", "yesterday", "just now". */
export function formatAgo(iso: string, now = Date.now()): string {
  const seconds = (Date.parse(iso) - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return 'just now';
}
