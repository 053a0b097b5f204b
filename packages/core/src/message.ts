/** The exact text a wallet signs (SPEC §5): the prefix followed directly by the nonce. */
export const AUTH_MESSAGE_PREFIX = 'Sign this message to authenticate: ';

export function buildAuthMessage(nonce: string): string {
  return `${AUTH_MESSAGE_PREFIX}${nonce}`;
}
