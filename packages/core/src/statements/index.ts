/**
 * `@signal/core/statements`: the signed statements of Version 4 (signals and delegated keys)
 * without a database: canonical JSON, the schemas, the checks in the contract's order, exact
 * decimals, signatures by signer kind, the log entries, and who may sign when. The server's
 * routes and the auditor are built on it. `@signal/core/statements/canonical-json` is the one
 * part without Node built-ins, for the browser SDK.
 */
export * from './authorization.js';
export * from './canonical-json.js';
export * from './checks.js';
export * from './commitment.js';
export * from './decimal.js';
export * from './fields.js';
export * from './log-entry.js';
export * from './signal-projection.js';
export * from './signature.js';
export * from './statement.schemas.js';
