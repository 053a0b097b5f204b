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

/** A figure that does not exist yet (null on the wire: no point that old, nothing published). */
export const MISSING = '—';

/** A signed percentage, or "—" when the figure does not exist yet. */
export const formatPct = (pct: number | null) => (pct === null ? MISSING : formatReturn(pct));

/** A drawdown (a magnitude on the wire: 41.9 = a 41.9 % fall) shown as the loss it is. */
export const formatDrawdown = (pct: number) => formatReturn(pct === 0 ? 0 : -pct);

/** Green for a gain, red for a loss, nothing for zero or a missing figure. */
export const toneOf = (value: number | null): 'up' | 'down' | undefined =>
  value === null || value === 0 ? undefined : value > 0 ? 'up' : 'down';

/** The class of a figure's tone. */
export const toneClass = (value: number | null) => {
  const tone = toneOf(value);
  return tone ? `tone-${tone}` : undefined;
};

export const formatDate = (iso: string) => date.format(new Date(iso));

/** A calendar day of the series (`2026-11-24`, no time zone) → "Nov 24, 2026", the same day everywhere. */
const day = new Intl.DateTimeFormat('en', { year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' });
export const formatDay = (date: string) => day.format(new Date(`${date}T00:00:00Z`));
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
