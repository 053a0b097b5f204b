/**
 * The table of a signed-in user's own things (Sessions, Wallets), in its card: its columns, then
 * one of actions; below the table, `footer` (the pages of a long list).
 */
import type { ReactNode } from 'react';

export interface AccountColumn {
  label: string;
  /** `data-column`, which the narrow layout hides by (styles.css); its cells carry the same. */
  column?: string;
}

interface AccountTableProps {
  testId: string;
  /** Read by screen readers only: what the rows are and their order. */
  caption: string;
  busy: boolean;
  /** Every column but the last, the row's action button. */
  columns: AccountColumn[];
  /** The rows. */
  children: ReactNode;
  footer?: ReactNode;
}

export function AccountTable({ testId, caption, busy, columns, children, footer }: AccountTableProps) {
  return (
    <div className="card table-card">
      <table className="sessions" data-testid={testId} aria-busy={busy}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map(({ label, column }) => (
              <th key={label} scope="col" data-column={column}>
                {label}
              </th>
            ))}
            <th scope="col">
              <span className="visually-hidden">Action</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      {footer}
    </div>
  );
}
