/**
 * `@signal/sdk/audit`: anyone's check of the record (CONTRACT.md, "The log", last paragraph):
 * one signal (`verifySignal`) or a provider's whole history (`auditProvider`, what the
 * `signal-audit` bin runs), on the log read whole (`readLog`). Browser-safe (no Node built-ins:
 * SHA-256, Ed25519 and secp256k1 from @noble), and a separate entry from `@signal/sdk/log`, so an
 * app that only follows checkpoints does not load secp256k1. See docs/log.md, "Check it yourself".
 */
export {
  AUDIT_CHECKS,
  type AuditCheck,
  type AuditCrypto,
  type AuditedSignal,
  type AuditFailure,
  type AuditOptions,
  type AuditProgress,
  type AuditReport,
  auditProvider,
  type CheckpointSummary,
  checkSignature,
  commitmentOf,
  type EvmChainCheck,
  type LogView,
  type ReadLogOptions,
  readLog,
  type SignalReport,
  type SignatureChecks,
  type SignatureVerdict,
  type StatementReport,
  type StatementVerdict,
  type VerifySignalOptions,
  type VerifySignalReport,
  verifySignal,
} from '@signal/core/audit';
