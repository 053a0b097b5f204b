/**
 * Sign-in fixtures. POST /auth/verify uses up its nonce, so every request of a verify run
 * needs a nonce of its own: they are minted beforehand with the servers' own nonce secret
 * (derived from the signing key both share, as a server would) and signed, and the run cycles
 * through the ready-made bodies.
 */
import { buildAuthMessage, buildSignInMessage, DEFAULT_SIGN_IN_STATEMENT, defaultSignInUri } from '@signal/core';
import type { NonceCodec } from '@signal/core/nonce';
import type autocannon from 'autocannon';
import type { BenchWallet } from './wallets.js';

/** The site the SIWE bodies name, as a service with SIGN_IN_DOMAIN unset issues for this Host. */
const SIWE_DOMAIN = 'bench.example';

/**
 * `count` JSON bodies of POST /auth/verify, each with a fresh nonce of one of the wallets, for
 * the plain message or (`siwe`) an EIP-4361 message with the service's default statement.
 */
export function verifyBodies(
  nonces: NonceCodec,
  wallets: BenchWallet[],
  count: number,
  format: 'plain' | 'siwe' = 'plain',
): string[] {
  const issuedAt = Date.now();
  const expiresAt = issuedAt + 3_600_000;
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const wallet = wallets[i % wallets.length] as BenchWallet;
    if (format === 'plain') {
      const nonce = nonces.issue({ wallet: wallet.address, expiresAt });
      bodies.push(JSON.stringify({ wallet: wallet.address, signature: wallet.sign(buildAuthMessage(nonce)), nonce }));
      continue;
    }
    const fields = { format, chainId: '1', domain: SIWE_DOMAIN, issuedAt };
    const nonce = nonces.issue({ wallet: wallet.address, expiresAt, ...fields });
    const message = buildSignInMessage(format, {
      domain: SIWE_DOMAIN,
      address: wallet.address,
      statement: DEFAULT_SIGN_IN_STATEMENT,
      uri: defaultSignInUri(SIWE_DOMAIN),
      chainId: '1',
      nonce,
      issuedAt: new Date(issuedAt),
      expiresAt: new Date(expiresAt),
    });
    bodies.push(JSON.stringify({ wallet: wallet.address, signature: wallet.sign(message), nonce }));
  }
  return bodies;
}

/**
 * A request list that posts each body once. Should the bodies run out (a run faster than its
 * pool was sized for), it asks autocannon to stop, which autocannon does at its next one-second
 * tick; until then the last body is sent again and its refusals show as failed responses in the
 * row's note, so a short pool cannot pass unnoticed.
 */
export function verifyRequests(bodies: string[], stop: () => void): autocannon.Request[] {
  let next = 0;
  return [
    {
      method: 'POST',
      path: '/auth/verify',
      headers: { 'content-type': 'application/json' },
      setupRequest(request) {
        if (next === bodies.length - 1) stop();
        return { ...request, body: bodies[Math.min(next++, bodies.length - 1)] };
      },
    },
  ];
}

export interface SignedIn {
  token: string;
  userId: number;
}

/** A real sign-in through the service's REST endpoints: the token a client would hold. */
export async function signIn(url: string, wallet: BenchWallet): Promise<SignedIn> {
  const issued = await fetch(`${url}/auth/nonce?wallet=${encodeURIComponent(wallet.address)}`);
  if (issued.status !== 200) throw new Error(`GET /auth/nonce answered ${issued.status}: ${await issued.text()}`);
  const { nonce, message } = (await issued.json()) as { nonce: string; message: string };
  const verified = await fetch(`${url}/auth/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wallet: wallet.address, signature: wallet.sign(message), nonce }),
  });
  if (verified.status !== 200)
    throw new Error(`POST /auth/verify answered ${verified.status}: ${await verified.text()}`);
  const { token, user } = (await verified.json()) as { token: string; user: { id: number } };
  return { token, userId: user.id };
}
