/**
 * One signal as a trader reads it: side and instrument, status, the terms after every update
 * (entry, stop, targets, size, what is still open), when it was published and when it goes
 * public. Before the reveal, a reader who may not see the terms gets a countdown and the
 * commitment the log holds (the SHA-256 of the signed statement: once revealed, anyone can hash
 * the statement and compare). The statements are listed with their log indexes.
 */
import { type ReactNode, useEffect, useState } from 'react';
import { formatDateTime } from '../format';
import { beforeReveal, type Signal, type SignalContent, STATEMENT_LABEL, STATUS_LABEL } from '../signals';

/** The clock, ticking every `ms` while the component is mounted (countdowns). */
export function useNow(ms = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/** 3h 05m 09s, 2d 4h, 45s: the time left, to the second below a day. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (days > 0) return `${days}d ${hours}h ${pad(minutes)}m`;
  if (hours > 0) return `${hours}h ${pad(minutes)}m ${pad(seconds)}s`;
  if (minutes > 0) return `${minutes}m ${pad(seconds)}s`;
  return `${seconds}s`;
}

/** A price or share as sent (exact decimals), with thousands separated for reading. */
export function formatDec(dec: string): string {
  const [whole = '0', fraction] = dec.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}

function Terms({ content }: { content: SignalContent }) {
  const entry = content.entry.type === 'market' ? 'market' : `limit ${formatDec(content.entry.price)}`;
  return (
    <dl className="signal-terms" data-testid="signal-terms">
      <div>
        <dt>Entry</dt>
        <dd>{entry}</dd>
      </div>
      <div>
        <dt>Stop</dt>
        <dd>{content.stop === null ? 'none' : formatDec(content.stop)}</dd>
      </div>
      <div>
        <dt>Targets</dt>
        <dd>{content.targets.length > 0 ? content.targets.map(formatDec).join(' · ') : 'none'}</dd>
      </div>
      <div>
        <dt>Size</dt>
        <dd>{content.sizePct}% of equity</dd>
      </div>
      <div>
        <dt>Still open</dt>
        <dd data-testid="open-pct">{content.openPct}%</dd>
      </div>
      {content.expiresAt ? (
        <div>
          <dt>Expires</dt>
          <dd>{formatDateTime(content.expiresAt)}</dd>
        </div>
      ) : null}
    </dl>
  );
}

export function SignalCard({
  signal,
  now,
  fresh,
  children,
}: {
  signal: Signal;
  now: number;
  /** Just arrived on the live stream: highlighted for a moment. */
  fresh?: boolean;
  /** Below the card's statements: the publisher's actions. */
  children?: ReactNode;
}) {
  const hidden = beforeReveal(signal, now);
  const { content } = signal;
  const open = signal.statements[0];
  return (
    <li
      className={`signal-card${fresh ? ' signal-fresh' : ''}`}
      data-testid="signal"
      data-signal-id={signal.id}
      data-status={signal.status}
      data-revealed={hidden ? 'no' : 'yes'}
    >
      <div className="signal-head">
        {content ? (
          <>
            <span className={`side side-${content.side}`}>{content.side === 'long' ? 'Long' : 'Short'}</span>
            <strong className="signal-instrument">{content.instrument}</strong>
          </>
        ) : (
          <>
            <span className="side side-hidden">Hidden</span>
            <strong className="signal-instrument">Followers only</strong>
          </>
        )}
        <span className={`status status-${signal.status}`}>{STATUS_LABEL[signal.status]}</span>
        <span className="signal-when muted small">Published {formatDateTime(signal.publishedAt)}</span>
      </div>
      {content ? <Terms content={content} /> : null}
      {content?.note ? <p className="signal-note">“{content.note}”</p> : null}
      <p className="signal-reveal small" data-testid="reveal">
        {hidden ? (
          <>
            <span className="countdown" data-testid="countdown">
              Public in {formatCountdown(Date.parse(signal.revealAt) - now)}
            </span>{' '}
            <span className="muted">
              (at {formatDateTime(signal.revealAt)}
              {content ? '; you see it now as a follower' : '; followers see it now'})
            </span>
          </>
        ) : (
          <span className="muted">Public since {formatDateTime(signal.revealAt)}</span>
        )}
      </p>
      {hidden && !content && open ? (
        <p className="signal-commitment small">
          Commitment in the log:{' '}
          <code title={open.commitment} data-testid="commitment">
            {open.commitment}
          </code>
          <span className="muted">
            {' '}
            — the SHA-256 of the signed statement, logged at entry {open.logIndex}. After the reveal, hash the statement
            and compare.
          </span>
        </p>
      ) : null}
      <ol className="signal-statements small muted" aria-label="Statements">
        {signal.statements.map((statement) => (
          <li key={statement.logIndex} data-log-index={statement.logIndex}>
            {STATEMENT_LABEL[statement.type]} {formatDateTime(statement.receivedAt)} · log entry {statement.logIndex}
            {statement.signer ? (
              <span title={statement.signer}> · signed by {shortSigner(statement.signer)}</span>
            ) : null}
          </li>
        ))}
      </ol>
      {children}
    </li>
  );
}

/** `0x5290…9EE7`, `ed25519:7Np4…Xz9q`. */
export function shortSigner(signer: string): string {
  if (signer.startsWith('ed25519:')) return `bot key ${signer.slice(8, 12)}…${signer.slice(-4)}`;
  return signer.length > 12 ? `${signer.slice(0, 6)}…${signer.slice(-4)}` : signer;
}
