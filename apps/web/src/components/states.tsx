/** The loading, empty and error states every screen uses, so they look and read the same. */
import type { ReactNode } from 'react';
import { describeProblem } from '../api';

export function Loading({ label }: { label: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty" data-testid="empty">
      <p className="state-title">{title}</p>
      {children ? <div className="state-detail">{children}</div> : null}
    </div>
  );
}

/**
 * A page number past the last page (an old link, a list that shrank meanwhile): the way back to
 * the first page, after what the screen adds (`children`).
 */
export function PastTheEnd({ page, firstPage, children }: { page: number; firstPage: string; children?: ReactNode }) {
  return (
    <Empty title={`Page ${page} is past the end`}>
      {children}
      <a href={firstPage}>Go to the first page</a>
    </Empty>
  );
}

export function ErrorPanel({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const problem = describeProblem(error);
  return (
    <div className={`state state-error state-${problem.kind}`} role="alert" data-problem={problem.kind}>
      <p className="state-title">{problem.title}</p>
      <p className="state-detail">{problem.detail}</p>
      {onRetry ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
