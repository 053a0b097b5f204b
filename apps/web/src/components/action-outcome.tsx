/**
 * The actions of a page that ends or changes something the user owns (sessions, wallets): one at
 * a time, each saying what it did, or why not (unless the banner already says it).
 */
import { useState } from 'react';
import { announcedByBanner, describeProblem } from '../api';

export type Outcome = { tone: 'done' | 'problem'; text: string };

export function useActions({ onDone, onSettled }: { onDone: () => void; onSettled?: () => void }) {
  /** The key of the action running, if any. */
  const [busy, setBusy] = useState<string>();
  const [outcome, setOutcome] = useState<Outcome>();

  /** Runs one action; `run` resolves to the sentence that says what it did. */
  const act = async (key: string, run: () => Promise<string>) => {
    setBusy(key);
    setOutcome(undefined);
    try {
      setOutcome({ tone: 'done', text: await run() });
      onDone();
    } catch (error) {
      const problem = describeProblem(error);
      if (!announcedByBanner(problem)) setOutcome({ tone: 'problem', text: `${problem.title}. ${problem.detail}` });
    } finally {
      setBusy(undefined);
      onSettled?.();
    }
  };
  return { busy, outcome, act };
}

/** The last action's outcome (announced to screen readers), or what the page shows while idle. */
export function OutcomeLine({ outcome, idle }: { outcome: Outcome | undefined; idle: string }) {
  return outcome ? (
    <p
      className={`outcome outcome-${outcome.tone}`}
      role={outcome.tone === 'done' ? 'status' : 'alert'}
      data-testid="outcome"
    >
      {outcome.text}
    </p>
  ) : (
    <p className="outcome muted">{idle}</p>
  );
}
