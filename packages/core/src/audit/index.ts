/**
 * `@signal/core/audit`: anyone's check of the record (CONTRACT.md, "The log", last paragraph):
 * `verifySignal` for one signal and `auditProvider` for a provider's whole history, on the log
 * read over HTTP and recomputed from its entries. No Node built-ins: the browser SDK bundles
 * it, and the `signal-audit` bin runs it. See docs/log.md, "Check it yourself".
 */
export { type AuditOptions, type AuditReport, auditProvider } from './audit.js';
export { type CheckSignalOptions, checkSignal, commitmentOf } from './check-signal.js';
export { type LoggedStatement, type ProviderHistory, replayProvider } from './history.js';
export { type AuditProgress, checkEarlierCheckpoint, type LogView, type ReadLogOptions, readLog } from './log-view.js';
export {
  AUDIT_CHECKS,
  type AuditCheck,
  type AuditedSignal,
  type AuditFailure,
  type CheckpointSummary,
  type SignalReport,
  type StatementReport,
  type StatementVerdict,
} from './report.js';
export {
  canonicalSignerKind,
  checkSignature,
  checksumEvmAddress,
  type EvmChainCheck,
  type SignatureVerdict,
} from './signatures.js';
export { providerHistory, type VerifySignalOptions, type VerifySignalReport, verifySignal } from './verify-signal.js';
