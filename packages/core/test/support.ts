import { randomBytes } from 'node:crypto';
import { createNonceCodec } from '../src/nonce.js';

const codec = createNonceCodec(randomBytes(32));

/** A nonce as the service issues them (under a throwaway secret), for messages to sign. */
export const freshNonce = () => codec.issue({ wallet: 'test', expiresAt: Date.now() + 300_000 });
