/**
 * Sign-in fixtures. POST /auth/verify uses up its nonce, so every request of a verify run
 * needs a nonce of its own: they are minted beforehand with the servers' own nonce secret
 * (derived from the signing key both share, as a server would) and signed, and the run cycles
 * through the ready-made bodies.
 */
import { buildAuthMessage } from '@signal/core';
import type { NonceCodec } from '@signal/core/nonce';
import type autocannon from 'autocannon';
import type { BenchWallet } from './wallets.js';

/** `count` JSON bodies of POST /auth/verify, each with a fresh nonce of one of the wallets. */
export function verifyBodies(nonces: NonceCodec, wallets: BenchWallet[], count: number): string[] {
  const expiresAt = Date.now() + 3_600_000;
  const bodies: string[] = [];
  for (let i = 0; i < count; i++) {
    const wallet = wallets[i % wallets.length] as BenchWallet;
    const nonce = nonces.issue({ wallet: wallet.address, expiresAt });
    bodies.push(JSON.stringify({ wallet: wallet.address, signature: wallet.sign(buildAuthMessage(nonce)), nonce }));
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
