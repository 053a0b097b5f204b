import type { LinkedWallet } from '@signal/sdk';
import { useEffect, useState } from 'react';
import { type AccountColumn, AccountTable } from '../components/account-table';
import { OutcomeLine, useActions } from '../components/action-outcome';
import { SignedInPage } from '../components/signed-in-page';
import { ErrorPanel, Loading } from '../components/states';
import { formatAgo, formatDateTime } from '../format';
import { useSession } from '../session';
import { useAsync } from '../use-async';
import { onWalletsChanged } from '../wallet-discovery';
import { CHAIN_LABEL, connectWallet, installedWallets, shortWallet } from '../wallets';

/** The wallets of this user, the browser's wallets to link, and unlinking with a confirmation. */
const WALLET_COLUMNS: AccountColumn[] = [
  { label: 'Wallet' },
  { label: 'Linked', column: 'createdAt' },
  { label: 'Last sign-in', column: 'lastUsedAt' },
];

function WalletsList() {
  const { client, authed, session, refresh } = useSession();
  const { state, reload } = useAsync(() => authed((active) => active.wallets()), [client]);
  /** The wallet whose unlinking waits for a confirmation. */
  const [confirming, setConfirming] = useState<string>();
  // Extensions announce themselves late: list them as they come.
  const [, setSeen] = useState(0);
  useEffect(() => onWalletsChanged(() => setSeen((n) => n + 1)), []);
  const signedInWith = session.status === 'signed-in' ? session.wallet : undefined;

  /** The wallet being linked or unlinked, and what the last action did. */
  const { busy, outcome, act } = useActions({
    onDone: () => {
      reload();
      refresh();
    },
    onSettled: () => setConfirming(undefined),
  });

  const link = (chain: 'evm' | 'solana', id: string, name: string) =>
    act(id, async () => {
      const signer = await connectWallet(chain, id);
      const linked = await authed((active) => active.linkWallet(signer));
      return `Linked ${name} (${shortWallet(linked.wallet)}): it now signs you in to this account.`;
    });

  const unlink = (wallet: LinkedWallet) =>
    act(wallet.wallet, async () => {
      await authed((active) => active.unlinkWallet(wallet.wallet));
      return `Unlinked ${shortWallet(wallet.wallet)}; the sessions it signed in have ended.`;
    });

  const wallets = state.data;
  if (state.status === 'error' && wallets === undefined) return <ErrorPanel error={state.error} onRetry={reload} />;
  if (wallets === undefined) return <Loading label="Loading your wallets…" />;
  const installed = installedWallets();
  const candidates = (['evm', 'solana'] as const).flatMap((chain) => installed[chain].map((info) => ({ chain, info })));

  return (
    <>
      <div className="toolbar">
        <OutcomeLine
          outcome={outcome}
          idle={
            wallets.length === 1 ? 'One wallet signs you in.' : `${wallets.length} wallets sign you in to this account.`
          }
        />
      </div>
      <AccountTable
        testId="wallets"
        caption="Wallets that sign you in, oldest first"
        busy={state.status === 'loading'}
        columns={WALLET_COLUMNS}
      >
        {wallets.map((wallet) => {
          const current = wallet.wallet === signedInWith;
          return (
            <tr key={wallet.wallet} data-wallet={wallet.wallet}>
              <td>
                <span className="device-name" title={wallet.wallet}>
                  <span className="address">{shortWallet(wallet.wallet)}</span> {CHAIN_LABEL[wallet.chain]}
                  {wallet.primary ? <span className="tag tag-current">Primary</span> : null}
                  {current ? <span className="tag">Signed in here</span> : null}
                </span>
              </td>
              <td data-column="createdAt">
                <time dateTime={wallet.linkedAt} title={formatDateTime(wallet.linkedAt)}>
                  {formatAgo(wallet.linkedAt)}
                </time>
              </td>
              <td data-column="lastUsedAt">
                {wallet.lastLoginAt ? (
                  <time dateTime={wallet.lastLoginAt} title={formatDateTime(wallet.lastLoginAt)}>
                    {formatAgo(wallet.lastLoginAt)}
                  </time>
                ) : (
                  <span className="muted">Not yet</span>
                )}
              </td>
              <td className="action">
                <button
                  type="button"
                  className="button"
                  aria-label={`Unlink ${wallet.wallet}`}
                  disabled={busy !== undefined || wallets.length === 1}
                  title={wallets.length === 1 ? 'Your only wallet: link another before unlinking it' : undefined}
                  onClick={() => setConfirming(wallet.wallet)}
                >
                  {busy === wallet.wallet ? 'Unlinking…' : 'Unlink'}
                </button>
              </td>
            </tr>
          );
        })}
      </AccountTable>
      {wallets
        .filter((wallet) => wallet.wallet === confirming)
        .map((wallet) => (
          <div
            key={wallet.wallet}
            className="card confirm"
            role="alertdialog"
            aria-label="Unlink a wallet"
            data-testid="confirm"
          >
            <p>
              Unlink <span className="address">{shortWallet(wallet.wallet)}</span>? It stops signing you in, and every
              session it signed in ends, on every device.
              {wallet.wallet === signedInWith
                ? ' That includes this one: you will be signed out here.'
                : ' This device stays signed in (another wallet signed it in).'}
              {wallet.primary ? ' Your oldest remaining wallet becomes the primary one.' : ''}
            </p>
            <div className="confirm-actions">
              <button type="button" className="button button-danger" onClick={() => void unlink(wallet)}>
                Unlink and end its sessions
              </button>
              <button type="button" className="button button-secondary" onClick={() => setConfirming(undefined)}>
                Keep it
              </button>
            </div>
          </div>
        ))}
      <h2 className="section-title">Link another wallet</h2>
      <p className="muted">
        The wallet signs a message that proves you hold it; then it signs you in to this account, with the same follows.
        Wallets found in this browser:
      </p>
      <ul className="link-wallets" data-testid="link-wallets">
        {candidates.length === 0 ? <li className="muted">No wallet found in this browser.</li> : null}
        {candidates.map(({ chain, info }) => (
          <li key={info.id}>
            <span>
              {info.icon ? <img src={info.icon} alt="" width={20} height={20} /> : null} {info.name}{' '}
              <span className="muted">{CHAIN_LABEL[chain]}</span>
            </span>
            <button
              type="button"
              className="button button-secondary"
              disabled={busy !== undefined}
              onClick={() => void link(chain, info.id, info.name)}
            >
              {busy === info.id ? 'Waiting for the wallet…' : `Link ${info.name}`}
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}

export function WalletsPage() {
  return (
    <SignedInPage
      title="Wallets"
      lede="Every wallet here signs you in to the same account. Link your other wallets, EVM or Solana; unlink one and its sessions end."
      prompt="Sign in to see your wallets"
    >
      <WalletsList />
    </SignedInPage>
  );
}
