/** A signal statement's commitment: what the log holds of it until, and after, the reveal. */
import { createHash } from 'node:crypto';

/** Hex SHA-256 of the statement's UTF-8 bytes (its salt makes it unguessable before the reveal). */
export function statementCommitment(statement: string): string {
  return createHash('sha256').update(statement, 'utf8').digest('hex');
}
