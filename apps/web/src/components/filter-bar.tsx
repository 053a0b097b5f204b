/**
 * The catalogue's search box, sort and filters. What is typed is a draft; 300 ms after the last
 * keystroke (or at once on Enter) a valid draft becomes the address, which is the one state the
 * table follows: a filtered view can be shared, and survives a reload and the back button. When
 * the address changes by other means (back, forward, a link), the boxes show it.
 */
import type { ProviderFilters } from '@signal/sdk';
import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import {
  FILTER_FIELDS,
  FILTER_KEYS,
  type FigureFilter,
  type FilterField,
  fromInput,
  hasFilters,
  searchText,
  toInput,
} from '../catalogue-filters';
import { type CatalogueView, catalogueHref, navigate, type SortBy } from '../router';
import { SORT_FIELDS, SORT_OPTIONS } from '../sort-options';

/** How long typing may pause before the list is asked again. */
export const SEARCH_DEBOUNCE_MS = 300;

type Draft = Record<'q' | FigureFilter, string>;

const draftOf = (filters: ProviderFilters): Draft => {
  const draft = { q: filters.q ?? '' } as Draft;
  for (const field of FILTER_FIELDS) draft[field.key] = toInput(field, filters[field.key]);
  return draft;
};

/** The same filters always give the same key (the address's order). */
const keyOf = (filters: ProviderFilters) => JSON.stringify(FILTER_KEYS.map((key) => filters[key] ?? null));

function parseDraft(draft: Draft): { filters: ProviderFilters; errors: Partial<Record<FigureFilter, string>> } {
  const filters: ProviderFilters = {};
  const errors: Partial<Record<FigureFilter, string>> = {};
  const q = searchText(draft.q);
  if (q !== undefined) filters.q = q;
  for (const field of FILTER_FIELDS) {
    const { value, error } = fromInput(field, draft[field.key]);
    if (error) errors[field.key] = error;
    else if (value !== undefined) filters[field.key] = value;
  }
  return { filters, errors };
}

function FilterInput({
  field,
  text,
  error,
  onChange,
}: {
  field: FilterField;
  text: string;
  error: string | undefined;
  onChange(text: string): void;
}) {
  const id = useId();
  return (
    <div className="filter-field" data-filter={field.key}>
      <label htmlFor={id} className="filter-label">
        {field.label}
      </label>
      <span className={`filter-box${error ? ' filter-box-invalid' : ''}`}>
        <span className="filter-relation" aria-hidden="true">
          {field.relation}
        </span>
        <input
          id={id}
          name={field.key}
          type="text"
          // A minus is allowed in the return only: the other keyboards can be numeric.
          inputMode={field.key === 'minRoi30dPct' ? 'text' : field.integer ? 'numeric' : 'decimal'}
          autoComplete="off"
          placeholder={field.placeholder}
          value={text}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          aria-label={`${field.label} ${field.relation === '≥' ? 'at least' : 'at most'}${field.unit ? ` (${field.unit === '%' ? 'percent' : field.unit})` : ''}`}
          onChange={(event) => onChange(event.target.value)}
        />
        {field.unit ? (
          <span className="filter-unit" aria-hidden="true">
            {field.unit}
          </span>
        ) : null}
      </span>
      {error ? (
        <span className="filter-error" id={`${id}-error`}>
          Enter {error}
        </span>
      ) : null}
    </div>
  );
}

export function FilterBar({ view }: { view: CatalogueView }) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(view.filters));
  const viewKey = keyOf(view.filters);
  // The filters last put in the address from here, or read from it: a view that differs came
  // from elsewhere (back button, a link) and replaces the draft.
  const committed = useRef(viewKey);
  // Read by the debounce timer when it fires: the draft and the view as they are then.
  const latest = useRef({ draft, view });
  latest.current.view = view;
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const { errors } = parseDraft(draft);

  const apply = (filters: ProviderFilters) => {
    clearTimeout(timer.current);
    committed.current = keyOf(filters);
    navigate(catalogueHref({ ...latest.current.view, page: 1, filters }));
  };

  /** Puts the draft in the address if it is valid and says something new. */
  const commit = () => {
    const { filters, errors: invalid } = parseDraft(latest.current.draft);
    if (Object.keys(invalid).length === 0 && keyOf(filters) !== keyOf(latest.current.view.filters)) apply(filters);
  };

  // Armed by the keystroke itself (not by an effect after the render), so the delay runs from
  // the last key pressed.
  const edit = (key: keyof Draft, text: string) => {
    const next = { ...latest.current.draft, [key]: text };
    latest.current.draft = next;
    setDraft(next);
    clearTimeout(timer.current);
    timer.current = setTimeout(commit, SEARCH_DEBOUNCE_MS);
  };

  useEffect(() => {
    if (viewKey === committed.current) return;
    committed.current = viewKey;
    clearTimeout(timer.current);
    const next = draftOf(view.filters);
    latest.current.draft = next;
    setDraft(next);
  }, [viewKey]);

  useEffect(() => () => clearTimeout(timer.current), []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    clearTimeout(timer.current);
    commit();
  };

  const clear = () => {
    const empty = draftOf({});
    latest.current.draft = empty;
    setDraft(empty);
    apply({});
  };

  const sortTo = (sortBy: SortBy) =>
    navigate(catalogueHref({ ...view, page: 1, sortBy, order: SORT_OPTIONS[sortBy].firstOrder }));
  const descending = view.order === 'desc';

  return (
    <form className="card filter-bar" aria-label="Search and filter providers" onSubmit={submit}>
      <div className="filter-top">
        <input
          className="search-box"
          type="search"
          name="q"
          placeholder="Search providers by name"
          aria-label="Search providers by name"
          autoComplete="off"
          maxLength={100}
          value={draft.q}
          onChange={(event) => edit('q', event.target.value)}
        />
        <div className="sort-control">
          <label className="sort-label">
            Sort by
            <select
              name="sortBy"
              value={view.sortBy}
              onChange={(event) => sortTo(event.target.value as SortBy)}
              data-testid="sort-select"
            >
              {SORT_FIELDS.map((sortBy) => (
                <option key={sortBy} value={sortBy}>
                  {SORT_OPTIONS[sortBy].label}
                </option>
              ))}
            </select>
          </label>
          <a
            className="button button-quiet order-toggle"
            href={catalogueHref({ ...view, page: 1, order: descending ? 'asc' : 'desc' })}
            aria-label={`Order: ${descending ? 'descending' : 'ascending'}. Reverse it`}
            data-order={view.order}
          >
            <span aria-hidden="true">{descending ? '↓' : '↑'}</span>
            <span className="order-word">{descending ? 'Descending' : 'Ascending'}</span>
          </a>
        </div>
      </div>
      <div className="filter-fields">
        {FILTER_FIELDS.map((field) => (
          <FilterInput
            key={field.key}
            field={field}
            text={draft[field.key]}
            error={errors[field.key]}
            onChange={(text) => edit(field.key, text)}
          />
        ))}
        <button
          type="button"
          className="button button-quiet filter-clear"
          onClick={clear}
          disabled={
            !hasFilters(view.filters) &&
            keyOf(parseDraft(draft).filters) === keyOf({}) &&
            Object.keys(errors).length === 0
          }
        >
          Clear filters
        </button>
        {/* Enter applies at once (implicit submission needs a submit button in a form of several boxes). */}
        <button type="submit" className="visually-hidden" tabIndex={-1}>
          Apply
        </button>
      </div>
    </form>
  );
}
