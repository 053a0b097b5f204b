/**
 * The catalogue's filters as the app shows them: one entry per filter of `GET /providers`
 * (the SDK's ProviderFilters, from the API's one schema), with how it reads in the address and
 * in the filter bar. The address carries the API's own values (`minWinRate=0.55`), so a shared
 * link means what the API means; the bar shows percentages where a trader thinks in them.
 */
import type { ProviderFilters } from '@signal/sdk';

/** The numeric filters; `q` (the search box) is apart. */
export type FigureFilter = Exclude<keyof ProviderFilters, 'q'>;

export interface FilterField {
  key: FigureFilter;
  /** The label in the filter bar. */
  label: string;
  /** Before the box: "≥" or "≤". */
  relation: '≥' | '≤';
  /** After the box. */
  unit: '%' | 'days' | '';
  /** What the API accepts (in its units). */
  min?: number;
  max?: number;
  integer?: boolean;
  /** The API's value shown in the box (a ratio shown as a percentage). */
  scale: number;
  placeholder: string;
}

export const FILTER_FIELDS: readonly FilterField[] = [
  { key: 'minRoi30dPct', label: 'ROI 30d', relation: '≥', unit: '%', scale: 1, placeholder: 'any' },
  { key: 'maxDrawdownPct', label: 'Max drawdown', relation: '≤', unit: '%', min: 0, scale: 1, placeholder: 'any' },
  { key: 'minWinRate', label: 'Win rate', relation: '≥', unit: '%', min: 0, max: 1, scale: 100, placeholder: 'any' },
  {
    key: 'minTradingDays',
    label: 'Track record',
    relation: '≥',
    unit: 'days',
    min: 0,
    integer: true,
    scale: 1,
    placeholder: 'any',
  },
  {
    key: 'minFollowers',
    label: 'Followers',
    relation: '≥',
    unit: '',
    min: 0,
    integer: true,
    scale: 1,
    placeholder: 'any',
  },
];

// Every filter of the API has a field above: adding one to the schema fails the typecheck here.
type Missing = Exclude<FigureFilter, (typeof FILTER_FIELDS)[number]['key']>;
const everyFilterHasAField: [Missing] extends [never] ? true : Missing = true;
void everyFilterHasAField;

/** The API's names, in the order the address writes them. */
export const FILTER_KEYS: readonly (keyof ProviderFilters)[] = ['q', ...FILTER_FIELDS.map((field) => field.key)];

/** The API's spellings: a plain decimal (no exponent, no `+`), digits for integers. */
const PLAIN_DECIMAL = /^-?[0-9]{1,15}(\.[0-9]{1,15})?$/;
const DIGITS = /^[0-9]{1,15}$/;

/** Removes the floating-point noise of a scaling (0.55 × 100 = 55.00000000000001). */
const tidy = (value: number) => Number(value.toPrecision(12));

/** A value of the API's, read from text in its units (the address); undefined when it would be refused. */
export function parseApiValue(field: FilterField, text: string): number | undefined {
  if (!(field.integer ? DIGITS : PLAIN_DECIMAL).test(text)) return undefined;
  const value = Number(text);
  if (field.min !== undefined && value < field.min) return undefined;
  if (field.max !== undefined && value > field.max) return undefined;
  return value;
}

/** What the box shows for an API value. */
export const toInput = (field: FilterField, value: number | undefined) =>
  value === undefined ? '' : String(tidy(value * field.scale));

/**
 * The API value typed in a box: undefined for an empty box, an error message for text the API
 * would refuse (said in the box's own units).
 */
export function fromInput(field: FilterField, text: string): { value?: number; error?: string } {
  const trimmed = text.trim().replace(/^−/, '-').replace(/,/g, '.');
  if (trimmed === '') return {};
  const pattern = field.integer ? DIGITS : PLAIN_DECIMAL;
  if (!pattern.test(trimmed)) return { error: field.integer ? 'a whole number' : 'a number such as 12.5' };
  const value = tidy(Number(trimmed) / field.scale);
  const shown = (bound: number) => `${tidy(bound * field.scale)}${field.unit === '%' ? ' %' : ''}`;
  if (field.min !== undefined && value < field.min) return { error: `at least ${shown(field.min)}` };
  if (field.max !== undefined && value > field.max) return { error: `at most ${shown(field.max)}` };
  return { value };
}

/** The search text the API is asked for: surrounding spaces dropped, none at all means no search. */
export function searchText(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed.slice(0, 100);
}

export const hasFilters = (filters: ProviderFilters) => FILTER_KEYS.some((key) => filters[key] !== undefined);

export const sameFilters = (a: ProviderFilters, b: ProviderFilters) => FILTER_KEYS.every((key) => a[key] === b[key]);
