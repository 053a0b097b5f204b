/**
 * `#/providers/5/publish`: a provider's publisher wallet opens, updates, closes and cancels
 * signals from the browser. The wallet is one the browser announces (EIP-6963 for EVM, the
 * Wallet Standard for Solana: wallet-discovery.ts, as for sign-in); each action is one
 * statement it signs (publishing.ts). No sign-in: the signature is the credential.
 */
import type { SignalTerms } from '@signal/sdk/publisher';
import { useEffect, useState } from 'react';
import { SignalCard, useNow } from '../components/signal-card';
import { ChangeSignalForm, OpenSignalForm } from '../components/signal-form';
import { Empty, ErrorPanel, Loading } from '../components/states';
import { formatCount } from '../format';
import {
  type Change,
  changeSignal,
  describePublishProblem,
  openSignal,
  type PublisherWallet,
  receiptLine,
} from '../publishing';
import { providerHref } from '../router';
import { useSession } from '../session';
import { listPublishers, type Signal } from '../signals';
import { useAsync } from '../use-async';
import { onWalletsChanged } from '../wallet-discovery';
import { CHAIN_LABEL, installedWallets, shortWallet, signerOf } from '../wallets';

type Outcome = { tone: 'done' | 'problem'; text: string };

/** 900 → "15 minutes", 86,400 → "1 day", 5,400 → "90 minutes". */
function formatDelay(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, unit] = units.find(([size]) => seconds % size === 0) ?? [1, 'second'];
  const n = seconds / size;
  return `${formatCount(n)} ${unit}${n === 1 ? '' : 's'}`;
}

const sameWallet = (a: string, b: string) => (a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b);

function WalletPicker({ onConnect, busy }: { onConnect: (wallet: PublisherWallet) => void; busy: boolean }) {
  const [, setSeen] = useState(0);
  useEffect(() => onWalletsChanged(() => setSeen((n) => n + 1)), []);
  const [problem, setProblem] = useState<string>();
  const installed = installedWallets();
  const wallets = (['evm', 'solana'] as const).flatMap((chain) => installed[chain].map((info) => ({ chain, info })));
  if (wallets.length === 0) {
    return <Empty title="No wallet in this browser">Install an EVM or Solana wallet to publish.</Empty>;
  }
  return (
    <div className="card wallet-picker" data-testid="wallet-picker">
      <h2>Connect a publisher wallet</h2>
      <ul className="wallet-choices">
        {wallets.map(({ chain, info }) => (
          <li key={info.id}>
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={async () => {
                setProblem(undefined);
                try {
                  const signer = await signerOf(info);
                  onConnect({ name: info.name, address: await signer.getAddress(), signer });
                } catch (error) {
                  setProblem(describePublishProblem(error));
                }
              }}
            >
              {info.icon ? <img src={info.icon} alt="" width={18} height={18} /> : null} Connect {info.name} (
              {CHAIN_LABEL[chain]})
            </button>
          </li>
        ))}
      </ul>
      {problem ? <p className="outcome outcome-problem">{problem}</p> : null}
    </div>
  );
}

export function PublishPage({ id }: { id: number }) {
  const { client } = useSession();
  const provider = useAsync(() => Promise.all([client.providers.get(id), listPublishers(id)]), [client, id]);
  const signals = useAsync(() => client.signals.list(id, { status: 'open', limit: 100 }), [client, id]);
  const [wallet, setWallet] = useState<PublisherWallet>();
  const [busy, setBusy] = useState<string>();
  const [outcome, setOutcome] = useState<Outcome>();
  /** Signals as this page's own statements answered them: with their terms, before the reveal too. */
  const [answered, setAnswered] = useState<Record<string, Signal>>({});
  const now = useNow();

  if (provider.state.data === undefined) {
    return provider.state.status === 'error' ? (
      <ErrorPanel error={provider.state.error} onRetry={provider.reload} />
    ) : (
      <Loading label="Loading provider…" />
    );
  }
  const [details, publishers] = provider.state.data;
  const current = publishers.filter((publisher) => publisher.removedAt === null);
  const allowed = wallet && current.some((publisher) => sameWallet(publisher.wallet, wallet.address));

  const act = async (key: string, run: () => Promise<string>) => {
    setBusy(key);
    setOutcome(undefined);
    try {
      setOutcome({ tone: 'done', text: await run() });
      signals.reload();
    } catch (error) {
      setOutcome({ tone: 'problem', text: describePublishProblem(error) });
    } finally {
      setBusy(undefined);
    }
  };
  const remember = (signal: Signal) => setAnswered((known) => ({ ...known, [signal.id]: signal }));
  const open = (terms: SignalTerms) =>
    act('open', async () => {
      if (!wallet) throw new Error('Connect a wallet first');
      const answer = await openSignal(wallet, id, terms);
      remember(answer.signal);
      return `Opened ${terms.side} ${terms.instrument} (signal ${answer.signal.id}): ${receiptLine(answer)}.`;
    });
  const change = (signal: string, what: Change) =>
    act(signal, async () => {
      if (!wallet) throw new Error('Connect a wallet first');
      const answer = await changeSignal(wallet, id, signal, what);
      remember(answer.signal);
      const verb =
        what.type === 'update' ? 'Updated' : what.type === 'close' ? `Closed ${what.closePct}% of` : 'Cancelled';
      return `${verb} signal ${signal}: ${receiptLine(answer)}.`;
    });

  const listed = (signals.state.data?.items ?? []).map((signal) => {
    const ours = answered[signal.id];
    return signal.content === null && ours && ours.statements.length >= signal.statements.length ? ours : signal;
  });
  const openOnes = listed.filter((signal) => signal.status === 'open');

  return (
    <section data-testid="publish" data-provider-id={id}>
      <a className="back" href={providerHref(id)}>
        ← {details.name}
      </a>
      <header className="page-header">
        <h1>Publish as {details.name}</h1>
        <p className="lede">
          Each action is a statement your wallet signs (canonical JSON; personal_sign for EVM wallets, signMessage for
          Solana). The API checks that the wallet is a publisher of this provider, commits the statement to the public
          log and answers once a signed checkpoint holds it. Followers see the signal at once, everyone else{' '}
          {details.revealDelaySeconds > 0
            ? `${formatDelay(details.revealDelaySeconds)} later (this provider’s reveal delay)`
            : 'at once too (this provider has no reveal delay)'}
          .
        </p>
        <p className="small muted" data-testid="publishers">
          Publisher wallets:{' '}
          {current.length > 0
            ? current.map((publisher) => (
                <code key={publisher.wallet} title={publisher.wallet}>
                  {shortWallet(publisher.wallet)}{' '}
                </code>
              ))
            : 'none yet: an operator adds them (POST /providers/{id}/publishers).'}
        </p>
      </header>
      {wallet ? (
        <p className={`card connected ${allowed ? 'connected-ok' : 'connected-no'}`} data-testid="connected">
          Signing with {wallet.name} <code title={wallet.address}>{shortWallet(wallet.address)}</code>:{' '}
          {allowed
            ? 'a publisher wallet of this provider.'
            : 'not a publisher wallet of this provider; the API will refuse its statements (403).'}{' '}
          <button type="button" className="link-button" onClick={() => setWallet(undefined)}>
            Use another wallet
          </button>
        </p>
      ) : (
        <WalletPicker onConnect={setWallet} busy={busy !== undefined} />
      )}
      {outcome ? (
        <p
          className={`outcome outcome-${outcome.tone}`}
          role={outcome.tone === 'done' ? 'status' : 'alert'}
          data-testid="outcome"
        >
          {outcome.text}
        </p>
      ) : null}
      {wallet ? <OpenSignalForm busy={busy === 'open'} onOpen={open} /> : null}
      <h2>Open signals</h2>
      {signals.state.data === undefined ? (
        signals.state.status === 'error' ? (
          <ErrorPanel error={signals.state.error} onRetry={signals.reload} />
        ) : (
          <Loading label="Loading signals…" />
        )
      ) : openOnes.length === 0 ? (
        <Empty title="No open signals">Open one above.</Empty>
      ) : (
        <ol className="signal-list" data-testid="open-signals">
          {openOnes.map((signal) => (
            <SignalCard key={signal.id} signal={signal} now={now}>
              {wallet ? (
                <ChangeSignalForm busy={busy === signal.id} onChange={(what) => change(signal.id, what)} />
              ) : null}
            </SignalCard>
          ))}
        </ol>
      )}
    </section>
  );
}
