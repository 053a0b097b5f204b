/** The header's right-hand side and the sign-in prompt: who is signed in, or how to sign in. */
import type { Chain } from '@signal/sdk';
import { useEffect, useState } from 'react';
import { formatCount } from '../format';
import { useSession } from '../session';
import { onWalletsChanged } from '../wallet-discovery';
import { CHAIN_LABEL, installedWallets, shortWallet, WALLET_HINT } from '../wallets';

const CHAINS: Chain[] = ['evm', 'solana'];

/**
 * One button per wallet family; a family with no wallet in this browser explains why it is
 * off, and a family with several (EIP-6963 / Wallet Standard) lets the user choose which.
 */
export function SignInButtons() {
  const { session, signIn } = useSession();
  const [, rerender] = useState(0);
  const [choosing, setChoosing] = useState<Chain | null>(null);
  useEffect(() => onWalletsChanged(() => rerender((n) => n + 1)), []);
  const installed = installedWallets();
  const busy = session.status === 'signing-in' || session.status === 'restoring';
  return (
    <span className="sign-in">
      {CHAINS.map((chain) => {
        const waiting = session.status === 'signing-in' && session.chain === chain;
        const wallets = installed[chain];
        return (
          <span key={chain} className="sign-in-family">
            <button
              type="button"
              className={`button ${chain === 'evm' ? 'button-primary' : 'button-secondary'}`}
              disabled={busy || wallets.length === 0}
              title={wallets.length > 0 ? undefined : WALLET_HINT[chain]}
              aria-expanded={wallets.length > 1 ? choosing === chain : undefined}
              data-chain={chain}
              onClick={() => {
                if (wallets.length > 1) setChoosing(choosing === chain ? null : chain);
                else void signIn(chain);
              }}
            >
              {waiting ? 'Check your wallet…' : `Sign in with ${CHAIN_LABEL[chain]}`}
            </button>
            {choosing === chain && wallets.length > 1 && !busy && (
              <span className="wallet-menu" role="menu" aria-label={`${CHAIN_LABEL[chain]} wallets`}>
                {wallets.map((wallet) => (
                  <button
                    key={wallet.id}
                    type="button"
                    role="menuitem"
                    className="wallet-choice"
                    data-wallet-id={wallet.id}
                    onClick={() => {
                      setChoosing(null);
                      void signIn(chain, wallet.id);
                    }}
                  >
                    {wallet.icon && <img src={wallet.icon} alt="" width={20} height={20} />}
                    {wallet.name}
                  </button>
                ))}
              </span>
            )}
          </span>
        );
      })}
    </span>
  );
}

export function SessionBar() {
  const { session, signOut } = useSession();
  // Until the API has ended the session (one request), so the click visibly does something.
  const [signingOut, setSigningOut] = useState(false);
  if (session.status !== 'signed-in') return <SignInButtons />;
  const onSignOut = async () => {
    setSigningOut(true);
    try {
      await signOut();
    } finally {
      setSigningOut(false);
    }
  };
  return (
    <span className="session" data-testid="session">
      <span className={`chain chain-${session.chain}`}>{CHAIN_LABEL[session.chain]}</span>
      <span className="session-wallet" title={session.wallet} data-wallet={session.wallet}>
        {shortWallet(session.wallet)}
      </span>
      <button type="button" className="button button-quiet" disabled={signingOut} onClick={() => void onSignOut()}>
        {signingOut ? 'Signing out…' : 'Sign out'}
      </button>
    </span>
  );
}

/** The signed-in user's following count, for the navigation; empty until known. */
export function FollowingCount() {
  const { session } = useSession();
  if (session.status !== 'signed-in' || !session.user) return null;
  return <span className="count">{formatCount(session.user.followingCount)}</span>;
}

export function NoticeBanner() {
  const { notice, dismissNotice } = useSession();
  if (!notice) return null;
  return (
    <div className={`notice notice-${notice.kind}`} role="alert" data-problem={notice.kind}>
      <div>
        <strong>{notice.title}</strong> {notice.detail}
      </div>
      <button type="button" className="notice-close" aria-label="Dismiss" onClick={dismissNotice}>
        ×
      </button>
    </div>
  );
}
