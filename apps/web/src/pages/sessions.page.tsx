import { type ActiveSession, isSignalApiError } from '@signal/sdk';
import type { ReactNode } from 'react';
import { type AccountColumn, AccountTable } from '../components/account-table';
import { OutcomeLine, useActions } from '../components/action-outcome';
import { Pagination } from '../components/pagination';
import { SignedInPage } from '../components/signed-in-page';
import { ErrorPanel, Loading, PastTheEnd } from '../components/states';
import { formatAgo, formatDateTime } from '../format';
import { sessionsHref } from '../router';
import { useSession } from '../session';
import { useAsync } from '../use-async';
import { type DeviceKind, describeDevice } from '../user-agent';

const PAGE_SIZE = 20;

/**
 * Outlines drawn by hand, 20×20, in the text colour: each device is a body (its screen or case)
 * and the strokes that tell it apart (a stand, a home button, a prompt, a question mark).
 */
const ICONS: Record<DeviceKind, { body: ReactNode; strokes: string }> = {
  desktop: { body: <rect x="2.5" y="3.5" width="15" height="10" rx="1.5" />, strokes: 'M7 17h6M10 13.5V17' },
  phone: { body: <rect x="5.5" y="2" width="9" height="16" rx="2" />, strokes: 'M9 15h2' },
  tablet: { body: <rect x="3.5" y="2.5" width="13" height="15" rx="2" />, strokes: 'M9 15h2' },
  program: { body: <rect x="2.5" y="3.5" width="15" height="13" rx="1.5" />, strokes: 'M6 8l2.5 2L6 12M10.5 12.5H14' },
  unknown: {
    body: <circle cx="10" cy="10" r="7.5" />,
    strokes: 'M8 8a2 2 0 1 1 2.8 1.8c-.5.3-.8.7-.8 1.2v.5M10 14v.01',
  },
};

function DeviceIcon({ kind }: { kind: DeviceKind }) {
  const { body, strokes } = ICONS[kind];
  return (
    <svg className={`device-icon device-${kind}`} width="20" height="20" viewBox="0 0 20 20" aria-hidden="true">
      {body}
      <path d={strokes} />
    </svg>
  );
}

/** "3 hours ago" with the exact time on hover and for machines. */
function When({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatAgo(iso)}
    </time>
  );
}

const SESSION_COLUMNS: AccountColumn[] = [
  { label: 'Device' },
  { label: 'Address', column: 'ip' },
  { label: 'Signed in', column: 'createdAt' },
  { label: 'Last active', column: 'lastUsedAt' },
];

function SessionsList({ page }: { page: number }) {
  const { client, authed, signOut } = useSession();
  const { state, reload, update } = useAsync(
    () => authed((active) => active.sessions.list({ page, limit: PAGE_SIZE })),
    [client, page],
  );
  /** The session being ended ('others' for "Sign out everywhere else"), and what the last did. */
  const { busy: ending, outcome, act } = useActions({ onDone: reload });

  const endOne = (session: ActiveSession, device: string) =>
    act(session.id, async () => {
      try {
        await authed((active) => active.sessions.revoke(session.id));
      } catch (error) {
        // Expired or ended meanwhile: it is gone either way.
        if (!isSignalApiError(error) || error.code !== 'SESSION_NOT_FOUND') throw error;
      }
      // Off the list at once; the reload brings the counts.
      update((data) => ({ ...data, items: data.items.filter((item) => item.id !== session.id) }));
      return `Signed out ${device}.`;
    });

  /** This device: the same as the header's "Sign out" (the page then asks to sign in). */
  const endThis = (id: string) =>
    act(id, async () => {
      await signOut();
      return 'Signed out.';
    });

  const endOthers = () =>
    act('others', async () => {
      const { revoked } = await authed((active) => active.signOut({ scope: 'others' }));
      update((data) => ({ ...data, items: data.items.filter((item) => item.current) }));
      if (revoked === 0) return 'No other session was signed in.';
      return revoked === 1 ? 'Signed out 1 other session.' : `Signed out ${revoked} other sessions.`;
    });

  const data = state.data;
  if (state.status === 'error' && data === undefined) return <ErrorPanel error={state.error} onRetry={reload} />;
  if (data === undefined) return <Loading label="Loading your sessions…" />;
  if (data.items.length === 0 && data.total > 0) {
    return <PastTheEnd page={page} firstPage={sessionsHref()} />;
  }
  return (
    <>
      <div className="toolbar">
        <OutcomeLine
          outcome={outcome}
          idle={data.total === 1 ? 'Only this device is signed in.' : `${data.total} sessions are signed in.`}
        />
        <button
          type="button"
          className="button button-secondary"
          disabled={ending !== undefined || data.total <= 1}
          onClick={() => void endOthers()}
        >
          {ending === 'others' ? 'Signing out…' : 'Sign out everywhere else'}
        </button>
      </div>
      {state.status === 'error' ? <ErrorPanel error={state.error} onRetry={reload} /> : null}
      <AccountTable
        testId="sessions"
        caption="Where your wallet is signed in, newest sign-in first"
        busy={state.status === 'loading'}
        columns={SESSION_COLUMNS}
        footer={data.totalPages > 1 ? <Pagination of={data} noun="sessions" href={sessionsHref} /> : null}
      >
        {data.items.map((session) => {
          const device = describeDevice(session.userAgent);
          const address = session.ip ?? 'Unknown address';
          return (
            <tr
              key={session.id}
              data-session-id={session.id}
              data-current={session.current || undefined}
              className={session.current ? 'current' : undefined}
            >
              <td>
                <span className="device-cell">
                  <DeviceIcon kind={device.kind} />
                  <span>
                    <span className="device-name" title={session.userAgent ?? 'No user agent'}>
                      {device.name}
                      {session.current ? <span className="tag tag-current">This device</span> : null}
                    </span>
                    {/* The address and start on narrow screens, where their columns are hidden. */}
                    <span className="device-meta">
                      <span className="address">{address}</span>
                      <span>
                        Signed in <When iso={session.createdAt} />
                      </span>
                    </span>
                  </span>
                </span>
              </td>
              <td data-column="ip">
                <span className="address">{address}</span>
              </td>
              <td data-column="createdAt">
                <When iso={session.createdAt} />
                <span className="when-exact">{formatDateTime(session.createdAt)}</span>
              </td>
              <td data-column="lastUsedAt">
                {session.current ? <span className="active-now">Active now</span> : <When iso={session.lastUsedAt} />}
              </td>
              <td className="action">
                <button
                  type="button"
                  className="button"
                  aria-label={
                    session.current
                      ? 'Sign out this device'
                      : `Sign out ${device.name} at ${address}, signed in ${formatAgo(session.createdAt)}`
                  }
                  disabled={ending !== undefined}
                  onClick={() => void (session.current ? endThis(session.id) : endOne(session, device.name))}
                >
                  {ending === session.id ? 'Signing out…' : 'Sign out'}
                </button>
              </td>
            </tr>
          );
        })}
      </AccountTable>
    </>
  );
}

export function SessionsPage({ page }: { page: number }) {
  return (
    <SignedInPage
      title="Sessions"
      lede="Each sign-in with your wallet is a session. Sign out any you don't recognise: its token stops working at once."
      prompt="Sign in to see where you are signed in"
    >
      <SessionsList page={page} />
    </SignedInPage>
  );
}
