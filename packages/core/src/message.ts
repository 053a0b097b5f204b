/** The exact text a wallet signs (SPEC §5): the prefix followed directly by the nonce. */
export const AUTH_MESSAGE_PREFIX = 'Sign this message to authenticate: ';

export function buildAuthMessage(nonce: string): string {
  return `${AUTH_MESSAGE_PREFIX}${nonce}`;
}

/**
 * The plain text of a `purpose=link` nonce (CONTRACT.md, Version 4): it names the account the
 * wallet joins, so a page that relays it as a sign-in (or a sign-in message as a link) asks the
 * wallet to sign words that say so, and the two texts can never be the same.
 */
export function buildLinkMessage(nonce: string, userId: string | number): string {
  return `Sign this message to link this wallet to account ${userId}: ${nonce}`;
}

/** The SIWE/SIWS statement of a `purpose=link` nonce, in place of the sign-in statement. */
export function linkStatement(userId: string | number): string {
  return `Link this wallet to account ${userId}.`;
}
