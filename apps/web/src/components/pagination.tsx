import { formatCount } from '../format';

interface PaginationProps {
  /** Where the list stands: the page envelope of the API's answer (asked by page number, so `page` is set). */
  of: { page: number | null; totalPages: number; total: number; limit: number };
  /** The link to another page of the same list. */
  href(page: number): string;
  /** What the list holds, for "Showing 21–40 of 45 providers". */
  noun: string;
}

/** Links rather than buttons: every page has an address, and back/forward walk through them. */
export function Pagination({ of: { page: asked, totalPages, total, limit }, href, noun }: PaginationProps) {
  // The app pages by number; a page asked by cursor (page null) would be shown as the first.
  const page = asked ?? 1;
  const first = Math.min(total, (page - 1) * limit + 1);
  const last = Math.min(total, page * limit);
  const step = (target: number, label: string, text: string, enabled: boolean) =>
    enabled ? (
      <a className="button button-quiet" href={href(target)} aria-label={label}>
        {text}
      </a>
    ) : (
      <button type="button" className="button button-quiet" disabled aria-label={label}>
        {text}
      </button>
    );
  return (
    <nav className="pagination" aria-label="Pages">
      <span className="pagination-summary">
        {total === 0 || first > total
          ? `${formatCount(total)} ${noun}`
          : `Showing ${formatCount(first)}–${formatCount(last)} of ${formatCount(total)} ${noun}`}
      </span>
      <span className="pagination-steps">
        {step(1, 'First page', '«', page > 1)}
        {step(page - 1, 'Previous page', '‹ Previous', page > 1)}
        <span className="pagination-page" aria-current="page">
          Page {formatCount(page)} of {formatCount(Math.max(totalPages, 1))}
        </span>
        {step(page + 1, 'Next page', 'Next ›', page < totalPages)}
        {step(totalPages, 'Last page', '»', page < totalPages)}
      </span>
    </nav>
  );
}
