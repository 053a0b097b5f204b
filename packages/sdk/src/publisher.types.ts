/**
 * The publisher's public types, in one list: `@signal/sdk` (the reader's entry, which names them
 * for `client.publisher(…)` and carries no statement code) and `@signal/sdk/publisher` both
 * re-export this module, so the two entries cannot drift apart. Types only: no bundle bytes.
 */
export type {
  Publisher,
  PublisherOptions,
  PublisherPreparations,
  PublisherSigner,
  SignedStatement,
  StatementAnswers,
  StatementType,
} from './publisher-core.js';
