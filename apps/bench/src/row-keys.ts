/**
 * Every key `--only` takes, by the file whose rows it picks: the one list BENCH.md's options
 * show (keys-doc.ts writes it there; CI fails when it is stale), so a row added to a file's
 * keys is documented without touching the docs by hand.
 */
import { AUDIT_KEYS } from './audit-rows.js';
import { CACHED_KEYS } from './cached-rows.js';
import { DEPLOYMENT_KEYS } from './deployment.js';
import { FEED_KEY } from './feed.js';
import { INSTRUCTION_KEYS, KEY_INSTRUCTION_KEYS } from './instructions.js';
import { LIVE_PUBLISH_KEYS } from './live-publish-rows.js';
import { LIVE_KEYS } from './live-rows.js';
import { LOG_READ_KEYS } from './log-read-rows.js';
import { LOG_KEYS } from './log-rows.js';
import { ME_SIGNAL_KEYS } from './me-signal-rows.js';
import { MIX_SIGNAL_KEYS } from './mix-signal-rows.js';
import { OPERATOR_ROW_KEYS } from './operator-rows.js';
import { SCENARIO_KEYS } from './scenarios.js';
import { SIGNAL_KEYS } from './signal-rows.js';
import { STATEMENT_KEYS } from './statement-rows.js';
import { VERIFY_BROWSER_KEYS } from './verify-browser-rows.js';
import { WEBHOOK_KEYS } from './webhooks.js';

export interface KeyGroup {
  /** What the rows are, as BENCH.md names them. */
  title: string;
  /** The file under apps/bench/src that defines them. */
  file: string;
  keys: readonly string[];
}

export const ROW_KEY_GROUPS: readonly KeyGroup[] = [
  // `raw`: the sign-in ceiling rows raw-evm and raw-solana (main.ts runs them, wallets.ts builds them).
  { title: 'the catalogue, sign-in and anchors', file: 'scenarios.ts', keys: ['raw', ...SCENARIO_KEYS] },
  { title: "the operator's and catalogue rows", file: 'operator-rows.ts', keys: OPERATOR_ROW_KEYS },
  { title: 'the answer cache', file: 'cached-rows.ts', keys: CACHED_KEYS },
  { title: 'deployment options', file: 'deployment.ts', keys: DEPLOYMENT_KEYS },
  { title: 'webhooks', file: 'webhooks.ts', keys: WEBHOOK_KEYS },
  { title: 'the event feed', file: 'feed.ts', keys: [FEED_KEY] },
  { title: 'the public log', file: 'log-rows.ts', keys: LOG_KEYS },
  { title: "the public log's reads", file: 'log-read-rows.ts', keys: LOG_READ_KEYS },
  { title: 'the audit (`signal-audit`)', file: 'audit-rows.ts', keys: AUDIT_KEYS },
  { title: 'signed statements', file: 'statement-rows.ts', keys: STATEMENT_KEYS },
  { title: 'signals', file: 'signal-rows.ts', keys: SIGNAL_KEYS },
  { title: 'the follower feed', file: 'me-signal-rows.ts', keys: ME_SIGNAL_KEYS },
  { title: '`verifySignal` in the browser', file: 'verify-browser-rows.ts', keys: VERIFY_BROWSER_KEYS },
  { title: 'live signals', file: 'live-rows.ts', keys: LIVE_KEYS },
  { title: 'statements under live streams', file: 'live-publish-rows.ts', keys: LIVE_PUBLISH_KEYS },
  { title: 'the mix with signals', file: 'mix-signal-rows.ts', keys: MIX_SIGNAL_KEYS },
  {
    title: 'with `--instructions`',
    file: 'instructions.ts',
    keys: [...INSTRUCTION_KEYS, ...KEY_INSTRUCTION_KEYS],
  },
];
