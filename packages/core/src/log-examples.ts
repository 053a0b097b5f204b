/**
 * The documented examples of the log's JSON routes and the publisher routes (shown in the OpenAPI
 * document, and held to their schemas by the answer checks' differential test). The proofs are of
 * a real tree: the three entries `a`, `b`, `c`.
 */
import type { ConsistencyProof, InclusionProof, Publisher, PublisherList, PublisherRemoved } from './log.schemas.js';
import type { PublisherKey, PublisherKeyList, PublisherKeyRevoked } from './publisher-key.schemas.js';

const wallet = '0x52908400098527886E0F7030069857D2E4169EE7';

export const publisher = {
  providerId: 5,
  wallet,
  chain: 'evm',
  addedAt: '2026-11-23T10:00:00.000Z',
  removedAt: null,
} satisfies Publisher;

export const addPublisherRequest = { id: 5, wallet: wallet.toLowerCase() };

export const publisherRemoved = { providerId: 5, wallet, removed: true } satisfies PublisherRemoved;

export const publisherList = {
  items: [{ ...publisher, addedAt: '2026-11-20T08:00:00.000Z', removedAt: '2026-11-22T09:30:00.000Z' }, publisher],
} satisfies PublisherList;

export const inclusionProof = {
  index: 1,
  size: 3,
  leafHash: 'V+s1YV1H807HFMrN9f10YIpejhAnJOgLJLKHwMJ7ajE=',
  proof: ['Aippeebat6pa5MPl5F9+l3ESp+Y1k4INvsHsc4ok+Tw=', 'WX/LMSgtNGVMIA00GPylcFxkjr8ybsc9jd7xGEH4dtg='],
} satisfies InclusionProof;

export const consistencyProof = {
  from: 2,
  to: 3,
  proof: ['WX/LMSgtNGVMIA00GPylcFxkjr8ybsc9jd7xGEH4dtg='],
} satisfies ConsistencyProof;

/**
 * A signed checkpoint of that tree (size 3) and its verifier key, as `GET /log/checkpoint` and
 * `GET /log/key` serve them: signed under the origin `signals.example.com/signals` with the
 * Ed25519 seed 0x01 0x02 … 0x20 (an example key, never a server's).
 */
export const logVerifierKey = 'signals.example.com/signals+44f5b615+AXm1Vi6P5lT5QHixEuipi6eQH4U65pW+1+DjkQutBJZk';
export const checkpointNote =
  'signals.example.com/signals\n3\nNmQuc8JUCrEh46a/lUWwokmCzYMOsT080Z3jzmwCHsE=\n\n' +
  '— signals.example.com/signals RPW2FfzgkVorzP9In5k/mFw2dKBtA0A0ovfl5f5EXOEJ1i04zEkObMIoZ1Pxz2Pbr60/RoYAjBoNKoYnpuWiZDuJ3QY=\n';

const botKey = 'ed25519:4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS';

export const publisherKey = {
  key: botKey,
  providerId: 5,
  wallet,
  issuedAt: '2026-11-23T10:05:00.000Z',
  expiresAt: '2027-02-21T10:05:00.000Z',
  revokedAt: null,
  logIndex: 42,
} satisfies PublisherKey;

export const publisherKeyList = {
  items: [{ ...publisherKey, revokedAt: '2026-11-25T16:00:00.000Z' }],
} satisfies PublisherKeyList;

export const publisherKeyRevoked = { key: botKey, revoked: true, logIndex: 57 } satisfies PublisherKeyRevoked;

/** A `key.delegate` statement as signed (the signature is a placeholder of the right shape). */
export const delegateKeyRequest = {
  id: 5,
  statement:
    `{"expiresAt":"2027-02-21T10:05:00.000Z","issuedAt":"2026-11-23T10:05:00.000Z","key":"${botKey}",` +
    '"log":"localhost/signals","provider":5,"type":"key.delegate","v":1}',
  signer: wallet,
  signature: `0x${'5'.repeat(130)}`,
};
