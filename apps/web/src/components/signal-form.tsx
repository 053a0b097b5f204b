/**
 * The publisher's forms: open a signal (instrument, side, entry, stop, targets, size, expiry,
 * note) and change an open one (new stop, targets or note; close a share; cancel). Values are
 * sent as typed, as exact decimals; the API says what it refuses, and the page shows it.
 */
import type { SignalTerms } from '@signal/sdk/publisher';
import { type FormEvent, useState } from 'react';
import type { Change } from '../publishing';

const splitTargets = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter(Boolean);

export function OpenSignalForm({ busy, onOpen }: { busy: boolean; onOpen: (terms: SignalTerms) => void }) {
  const [instrument, setInstrument] = useState('BTC-USD');
  const [side, setSide] = useState<'long' | 'short'>('long');
  const [limit, setLimit] = useState('');
  const [stop, setStop] = useState('');
  const [targets, setTargets] = useState('');
  const [size, setSize] = useState('5');
  const [expiresIn, setExpiresIn] = useState('');
  const [note, setNote] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const hours = Number(expiresIn);
    onOpen({
      instrument: instrument.trim().toUpperCase(),
      side,
      entry: limit.trim() ? { type: 'limit', price: limit.trim() } : { type: 'market' },
      stop: stop.trim() || null,
      targets: splitTargets(targets),
      sizePct: size.trim(),
      expiresAt: expiresIn.trim() && hours > 0 ? new Date(Date.now() + hours * 3_600_000) : null,
      ...(note.trim() ? { note: note.trim() } : {}),
    });
  };
  return (
    <form className="card signal-form" onSubmit={submit} data-testid="open-form" aria-label="Open a signal">
      <h2>Open a signal</h2>
      <div className="form-grid">
        <label>
          Instrument
          <input name="instrument" value={instrument} onChange={(e) => setInstrument(e.target.value)} required />
        </label>
        <label>
          Side
          <select name="side" value={side} onChange={(e) => setSide(e.target.value as 'long' | 'short')}>
            <option value="long">Long</option>
            <option value="short">Short</option>
          </select>
        </label>
        <label>
          Limit price <span className="muted">(empty: market)</span>
          <input name="limit" value={limit} inputMode="decimal" onChange={(e) => setLimit(e.target.value)} />
        </label>
        <label>
          Stop <span className="muted">(empty: none)</span>
          <input name="stop" value={stop} inputMode="decimal" onChange={(e) => setStop(e.target.value)} />
        </label>
        <label>
          Targets <span className="muted">(comma separated)</span>
          <input name="targets" value={targets} onChange={(e) => setTargets(e.target.value)} />
        </label>
        <label>
          Size, % of equity
          <input name="size" value={size} inputMode="decimal" onChange={(e) => setSize(e.target.value)} required />
        </label>
        <label>
          Expires in hours <span className="muted">(empty: never)</span>
          <input name="expires" value={expiresIn} inputMode="decimal" onChange={(e) => setExpiresIn(e.target.value)} />
        </label>
        <label className="form-wide">
          Note <span className="muted">(optional, public after the reveal)</span>
          <input name="note" value={note} maxLength={500} onChange={(e) => setNote(e.target.value)} />
        </label>
      </div>
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? 'Waiting for the wallet…' : 'Sign and open'}
      </button>
    </form>
  );
}

/** Update, close or cancel one open signal. */
export function ChangeSignalForm({ busy, onChange }: { busy: boolean; onChange: (change: Change) => void }) {
  const [stop, setStop] = useState('');
  const [targets, setTargets] = useState('');
  const [closePct, setClosePct] = useState('50');
  const update = (event: FormEvent) => {
    event.preventDefault();
    onChange({
      type: 'update',
      changes: {
        ...(stop.trim() ? { stop: stop.trim() } : {}),
        ...(targets.trim() ? { targets: splitTargets(targets) } : {}),
      },
    });
  };
  return (
    <div className="signal-actions" data-testid="signal-actions">
      <form onSubmit={update} aria-label="Update">
        <input name="stop" placeholder="New stop" value={stop} onChange={(e) => setStop(e.target.value)} />
        <input name="targets" placeholder="New targets" value={targets} onChange={(e) => setTargets(e.target.value)} />
        <button type="submit" className="button" disabled={busy || (!stop.trim() && !targets.trim())}>
          Update
        </button>
      </form>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onChange({ type: 'close', closePct: closePct.trim() });
        }}
        aria-label="Close"
      >
        <input name="closePct" value={closePct} inputMode="decimal" onChange={(e) => setClosePct(e.target.value)} />
        <button type="submit" className="button" disabled={busy}>
          Close %
        </button>
      </form>
      <button
        type="button"
        className="button button-quiet"
        disabled={busy}
        onClick={() => onChange({ type: 'cancel' })}
      >
        Cancel signal
      </button>
    </div>
  );
}
