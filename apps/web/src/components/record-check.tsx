/**
 * The mark of issue 40: "Record verified up to checkpoint N", or what failed, computed here in
 * the browser (record-verify.ts, the SDK's `verifySignal`) rather than taken from the server, and
 * the one command that checks the same from a shell (`signal-audit`, docs/log.md "Check it
 * yourself").
 */
import { useState } from 'react';
import { API_URL } from '../api';
import { formatCount } from '../format';
import type { RecordVerdict } from '../record-verify';
import type { Signal } from '../signals';
import { useAsync } from '../use-async';

/** Where the audit is explained: the repository's docs (the app serves no docs of its own). */
export const CHECK_IT_YOURSELF = 'https://github.com/signal-provider/signal/blob/main/docs/log.md#check-it-yourself';

function Verdict({ verdict }: { verdict: RecordVerdict }) {
  if (verdict.ok) {
    return (
      <p className="record-mark record-ok" data-testid="record-mark" data-checkpoint={verdict.checkpoint}>
        <span aria-hidden="true">✓</span> Record verified up to checkpoint {formatCount(verdict.checkpoint)}
        <span className="muted small">
          {' '}
          — {formatCount(verdict.statements)} {verdict.statements === 1 ? 'statement' : 'statements'} of{' '}
          {formatCount(verdict.signals)} {verdict.signals === 1 ? 'signal' : 'signals'} checked in this browser in{' '}
          {Math.max(1, Math.round(verdict.ms))} ms: signatures, signers’ rights, inclusion in the checkpoint signed by{' '}
          <code title={verdict.key}>{verdict.keyName}</code>, pinned in this browser since{' '}
          {new Date(verdict.pinnedAt).toLocaleString()}
          {verdict.unrevealed > 0
            ? `; ${formatCount(verdict.unrevealed)} not yet revealed, checked as commitments only`
            : ''}
          .
        </span>
      </p>
    );
  }
  return (
    <p className="record-mark record-failed" data-testid="record-mark" data-failed={verdict.check}>
      <span aria-hidden="true">✗</span> The record failed the check: {verdict.message}
    </p>
  );
}

/** The audit's command line for this provider, with the key this browser checked against. */
const auditCommand = (providerId: number, key: string | undefined) =>
  `npx -p @signal/sdk signal-audit --url ${API_URL} --provider ${providerId} \\\n  --key '${key ?? '<the log key, from a source you trust>'}' --state signal-audit.state`;

export function RecordCheck({ providerId, signals }: { providerId: number; signals: Signal[] }) {
  const [showCommand, setShowCommand] = useState(false);
  // Loaded with the first check: the log's checks (SHA-256, Ed25519, secp256k1) stay out of the first page.
  const { state, reload } = useAsync(
    async () => (await import('../record-verify')).verifyRecord(providerId, signals),
    [providerId, signals],
  );
  const key = state.status === 'ready' ? state.data.key : undefined;
  return (
    <div className="record-check" data-testid="record-check">
      {state.status === 'ready' ? (
        <Verdict verdict={state.data} />
      ) : state.status === 'error' ? (
        <p className="record-mark record-failed" data-testid="record-mark" data-failed="error">
          <span aria-hidden="true">✗</span> The record could not be checked:{' '}
          {state.error instanceof Error ? state.error.message : String(state.error)}{' '}
          <button type="button" className="button button-quiet" onClick={reload}>
            Try again
          </button>
        </p>
      ) : (
        <p className="record-mark muted" data-testid="record-mark" data-checking="yes">
          Checking the record in your browser…
        </p>
      )}
      <p className="small">
        Trust neither us nor the provider:{' '}
        <button type="button" className="link-button" onClick={() => setShowCommand((shown) => !shown)}>
          run the audit yourself
        </button>{' '}
        (<a href={CHECK_IT_YOURSELF}>docs/log.md, “Check it yourself”</a>).
      </p>
      {showCommand ? (
        <pre className="record-command" data-testid="audit-command">
          {auditCommand(providerId, key)}
        </pre>
      ) : null}
    </div>
  );
}
