const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 32 base62 characters carry log2(62) * 32 ≈ 190 bits, above the contract's 128. */
export const NONCE_LENGTH = 32;
export const NONCE_PATTERN = /^[A-Za-z0-9]{32}$/;

/**
 * A fresh nonce from the platform CSPRNG (Web Crypto, so it runs in Node and browsers).
 * Rejection sampling keeps every character uniform: bytes of 248 and above are redrawn,
 * since 248 = 4 * 62 is the largest multiple of the alphabet size that fits in a byte.
 */
export function generateNonce(): string {
  let out = '';
  while (out.length < NONCE_LENGTH) {
    const bytes = crypto.getRandomValues(new Uint8Array(NONCE_LENGTH * 2));
    for (const byte of bytes) {
      if (byte < 248) out += ALPHABET[byte % 62];
      if (out.length === NONCE_LENGTH) break;
    }
  }
  return out;
}
