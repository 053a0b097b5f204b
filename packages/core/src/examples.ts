/**
 * Example requests and responses shown in the OpenAPI document (and so on /docs). Typed with
 * core's wire types so a renamed field fails the build; the OpenAPI test also parses each one
 * with its procedure's zod schema, so formats (timestamps, ranges) cannot drift either.
 *
 * The wallet is the well-known first development account of Hardhat/Anvil (private key
 * 0xac09…ff80), and `verifyRequest.signature` is its real personal_sign signature of the
 * example nonce's (SIWE) message: a reader can check it with any EVM library.
 */
import type {
  CreatedServiceKey,
  CreateServiceKeyBody,
  Event,
  EventPage,
  FollowedProviderPage,
  FollowerPage,
  FollowResult,
  Jwks,
  LinkedWallet,
  LinkedWalletList,
  LinkWalletBody,
  NonceResponse,
  Performance,
  PerformancePublishInput,
  Provider,
  ProviderCreateBody,
  ProviderPage,
  ProviderStats,
  ProviderWrite,
  ServiceKey,
  ServiceKeyPage,
  Session,
  SessionPage,
  TokenResponse,
  UnfollowResult,
  User,
  VerifyBody,
} from './index.js';

const wallet = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const nonce = '05wPgEYmAO1CGzihbjcVZ6YiP9GmwmweYgrHc07iPyV5mCa7A0eRqufSz3';

/** A SIWE sign-in for the site app.example.com (SIGN_IN_DOMAIN) on chain 1. */
export const nonceRequest = { wallet, format: 'siwe', chainId: 1, purpose: 'signin' } as const;

export const nonceResponse = {
  nonce,
  message:
    'app.example.com wants you to sign in with your Ethereum account:\n' +
    `${wallet}\n\n` +
    'Sign in to Signal. This request will not trigger a blockchain transaction or cost any fees.\n\n' +
    'URI: https://app.example.com\nVersion: 1\nChain ID: 1\n' +
    `Nonce: ${nonce}\n` +
    'Issued At: 2026-11-23T10:00:00.000Z\nExpiration Time: 2026-11-23T10:05:00.000Z',
  wallet,
  chain: 'evm',
  format: 'siwe',
  expiresAt: '2026-11-23T10:05:00.000Z',
} satisfies NonceResponse;

export const verifyRequest = {
  wallet,
  nonce,
  signature:
    '0xd7e69edfe6f45ca0436f9a536f31bb2d9782f427f37a53a9a29f9154e27c516054115c21054ba29c9772ff2544a433b0972cde514018369a680b2bbb4d0c9aa61b',
} satisfies VerifyBody;

/** A Solana wallet the example user links as its second one. */
const solanaWallet = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

export const primaryWallet = {
  wallet,
  chain: 'evm',
  linkedAt: '2026-11-23T10:00:00.000Z',
  primary: true,
  lastLoginAt: '2026-11-23T10:00:00.000Z',
} satisfies LinkedWallet;

/** The answer to a new link: not primary, never signed in with yet. */
export const linkedWallet = {
  wallet: solanaWallet,
  chain: 'solana',
  linkedAt: '2026-11-24T09:30:00.000Z',
  primary: false,
  lastLoginAt: null,
} satisfies LinkedWallet;

export const linkWalletRequest = {
  wallet: solanaWallet,
  nonce: '05wPgEYmAO1CGzihbjcVZ6YiP9GmwmweYgrHc07iPyV5mCa7A0eRqufSz4',
  signature: '3yZe7d4E1vBqKXU9aGkRr6Fh2WmXpN8sTc5LJoQwYbVn4HfDg1sCzAeP7uRiMkT9xjvLq2NbWdGo6yHtZa8KcEpF',
} satisfies LinkWalletBody;

export const walletList = { items: [primaryWallet, linkedWallet] } satisfies LinkedWalletList;

export const user = {
  id: 1,
  wallet,
  chain: 'evm',
  createdAt: '2026-11-23T10:00:00.000Z',
  lastLoginAt: '2026-11-23T10:00:00.000Z',
  followingCount: 2,
  wallets: [primaryWallet],
} satisfies User;

export const tokenResponse = {
  // A real token with the claims this service issues, signed by the example key of `jwks` below.
  token:
    'eyJhbGciOiJFZERTQSIsImtpZCI6IlhaeFdhZUZDR2oxYWxfcEJKUG40SU1Sb3RObDZNNnpoVVJWcE5jb0J3dEkiLCJ0eXAiOiJKV1QifQ.eyJ3Y' +
    'WxsZXQiOiIweGYzOUZkNmU1MWFhZDg4RjZGNGNlNmFCODgyNzI3OWNmZkZiOTIyNjYiLCJjaGFpbiI6ImV2bSIsInNpZCI6IjNmNmMxYTllLThiM' +
    'mQtNGM1Ny05ZTBhLTdkNDFiNWMyZThmMyIsInN1YiI6IjEiLCJpc3MiOiJzaWduYWwtYXV0aCIsImF1ZCI6InNpZ25hbC1hcGkiLCJpYXQiOjE3O' +
    'TU0MjgwMDAsImV4cCI6MTc5ODAyMDAwMCwianRpIjoiOTM0ZDdiNjctMzliOC00N2I1LWE0ZGYtZjE0MDJlMmJjZTE1In0.' +
    '0An65cEkfeHip_x8mJ-6MemVrT_xRBrTfjLfQAx0CzbywZ4QzsyGFnJlbt96oqsi7eEge3RbsMctN_rwWSUsBQ',
  tokenType: 'Bearer',
  expiresAt: '2026-12-23T10:00:00.000Z',
  user: { ...user, followingCount: 0 },
  isNewUser: true,
  sessionId: '3f6c1a9e-8b2d-4c57-9e0a-7d41b5c2e8f3',
} satisfies TokenResponse;

export const session = {
  id: '3f6c1a9e-8b2d-4c57-9e0a-7d41b5c2e8f3',
  createdAt: '2026-11-23T10:00:00.000Z',
  lastUsedAt: '2026-11-23T10:42:00.000Z',
  expiresAt: '2026-12-23T10:00:00.000Z',
  userAgent:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  ip: '203.0.113.7',
  current: true,
} satisfies Session;

export const sessionPage = {
  items: [
    session,
    {
      id: 'c81d4e2a-5f60-4b7e-9a13-2e4f6b8d0c15',
      createdAt: '2026-11-20T08:15:00.000Z',
      lastUsedAt: '2026-11-22T19:03:00.000Z',
      expiresAt: '2026-12-20T08:15:00.000Z',
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148',
      ip: '198.51.100.23',
      current: false,
    },
  ],
  page: 1,
  limit: 20,
  total: 2,
  totalPages: 1,
  nextCursor: null,
} satisfies SessionPage;

export const provider = {
  id: 5,
  name: 'Swift Edge Quant',
  description: 'Mean-reversion signals on ETH and BTC perpetuals, 1-hour timeframe.',
  avatarUrl: '/avatars/c3ccf305ec0f393f.svg',
  followerCount: 7,
  createdAt: '2026-08-20T22:27:03.902Z',
  roi30dPct: -6.82,
  maxDrawdownPct: 47.12,
  winRate: 0.7465,
  revealDelaySeconds: 3600,
} satisfies Provider;

export const providerPage = {
  items: [
    {
      id: 33,
      name: 'Hyper Wolf Research',
      description: 'Trend-following signals on SOL ecosystem tokens, 4-hour timeframe.',
      avatarUrl: '/avatars/9f2b61c0a4d3e785.svg',
      followerCount: 421,
      createdAt: '2025-07-16T06:11:53.203Z',
      roi30dPct: 12.4,
      maxDrawdownPct: 18.9,
      winRate: 0.5812,
      revealDelaySeconds: 0,
    },
    provider,
  ],
  page: 1,
  limit: 2,
  total: 100,
  totalPages: 50,
  // Sealed with another server's key: opaque to clients, and refused by this one.
  nextCursor: 'WyJwcm92aWRlcnMiLCJmb2xsb3dlckNvdW50IiwiZGVzYyIsNyw1XQ.Qx8Pz3kVbN1tR6wYcE2uHg',
} satisfies ProviderPage;

export const providerStats = {
  providerId: 5,
  followerCount: 7,
  followersGained7d: 0,
  followersGained30d: 2,
  totalSignals: 2099,
  winRate: 0.7465,
  avgReturnPct: -0.0254,
  totalReturnPct: -41.35,
  maxDrawdownPct: 47.12,
  lastSignalAt: '2026-11-21T21:58:35.971Z',
  updatedAt: '2026-11-23T04:34:11.110Z',
  roi7dPct: 1.37,
  roi30dPct: -6.82,
  roi90dPct: -12.05,
  roiAllPct: -41.35,
  tradingDays: 88,
  asOf: '2026-11-22',
} satisfies ProviderStats;

export const followResult = { providerId: 5, following: true, followerCount: 8 } satisfies FollowResult;
export const unfollowResult = { providerId: 5, following: false, followerCount: 7 } satisfies UnfollowResult;

export const followingPage = {
  items: [{ ...provider, followerCount: 8, followedAt: '2026-11-23T10:01:00.000Z' }],
  page: 1,
  limit: 20,
  total: 1,
  totalPages: 1,
  nextCursor: null,
} satisfies FollowedProviderPage;

/** An Ed25519 verification key as /.well-known/jwks.json publishes it; it verifies `tokenResponse.token`. */
export const jwks = {
  keys: [
    {
      kty: 'OKP',
      crv: 'Ed25519',
      x: 'nPHVfOZoUjTqJhSfCRDH9gOYowLm0biUbGqczB77dEY',
      kid: 'XZxWaeFCGj1al_pBJPn4IMRotNl6M6zhURVpNcoBwtI',
      alg: 'EdDSA',
      use: 'sig',
    },
  ],
} satisfies Jwks;

export const createServiceKeyRequest = {
  name: 'signal pipeline (production)',
  scopes: ['stats:write', 'followers:read'],
  expiresAt: null,
} satisfies CreateServiceKeyBody;

export const serviceKey = {
  id: 'key_3kTq9Zr0bWm1Xc7D',
  name: 'signal pipeline (production)',
  scopes: ['stats:write', 'followers:read'],
  createdAt: '2026-11-23T10:00:00.000Z',
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  start: 'sgk_Qm3xV8pL',
  createdBy: 'admin',
} satisfies ServiceKey;

/** A made-up secret in the key format (the `sgk_` prefix and 43 base64url characters). */
export const createdServiceKey = {
  ...serviceKey,
  key: 'sgk_Qm3xV8pLr2YwT0nB5cKd9HfJ1sA7gE4uZ6vN8iOq3Xy',
} satisfies CreatedServiceKey;

export const serviceKeyPage = {
  items: [
    { ...serviceKey, lastUsedAt: '2026-11-23T10:41:30.000Z' },
    {
      id: 'key_Vb2Nc8Lq4Tz0Pw6R',
      name: 'fan-out (old)',
      scopes: ['followers:read'],
      createdAt: '2026-10-01T09:00:00.000Z',
      expiresAt: null,
      lastUsedAt: '2026-11-23T09:59:58.000Z',
      revokedAt: '2026-11-23T10:05:00.000Z',
      start: 'sgk_t7Hd2WqE',
      createdBy: 'key_3kTq9Zr0bWm1Xc7D',
    },
  ],
  page: 1,
  limit: 20,
  total: 2,
  totalPages: 1,
  nextCursor: null,
} satisfies ServiceKeyPage;

export const followerPage = {
  items: [
    { userId: 41, wallet, chain: 'evm', followedAt: '2026-11-02T08:30:00.000Z' },
    {
      userId: 57,
      wallet: '7EcDhSYGxXyscszYEp35KHN8vvw3svAuLKTzXwCFLtV',
      chain: 'solana',
      followedAt: '2026-11-20T17:12:00.000Z',
    },
  ],
  nextCursor: null,
  total: 2,
} satisfies FollowerPage;

export const event = {
  id: 'evt_0b6f9c2e4d1a4f7e9c3b5a8d2e6f1c04',
  type: 'follow.created',
  occurredAt: '2026-11-23T10:42:00.000Z',
  data: { userId: 42, providerId: 5, followerCount: 1289 },
} satisfies Event;

export const eventPage = {
  items: [
    event,
    {
      id: 'evt_7a3d5e1f9b2c4a6e8d0f1b3c5e7a9d2f',
      type: 'session.revoked',
      occurredAt: '2026-11-23T10:42:01.000Z',
      data: { userId: 42, sessionId: '3f6c1a9e-8b2d-4c57-9e0a-7d41b5c2e8f3' },
    },
  ],
  nextCursor: 'WyJldmVudHMiLCJwb3NpdGlvbiIsImFzYyIsIjE4MzQ1IiwwXQ.Vq3m8x0k2Lr7Tn5Yb1Wc4A',
} satisfies EventPage;

export const createProviderRequest = {
  name: 'Swift Edge Quant',
  description: 'Mean-reversion signals on ETH and BTC perpetuals, 1-hour timeframe.',
  avatarUrl: 'https://cdn.example.com/avatars/swift-edge.png',
  revealDelaySeconds: 3600,
} satisfies ProviderCreateBody;

export const providerWrite = {
  id: 101,
  name: 'Swift Edge Quant',
  description: 'Mean-reversion signals on ETH and BTC perpetuals, 1-hour timeframe.',
  avatarUrl: 'https://cdn.example.com/avatars/swift-edge.png',
  followerCount: 0,
  createdAt: '2026-11-23T10:00:00.000Z',
  roi30dPct: null,
  maxDrawdownPct: 0,
  winRate: 0,
  revealDelaySeconds: 3600,
  archived: false,
} satisfies ProviderWrite;

export const publishPerformanceRequest = {
  id: 5,
  points: [
    { date: '2026-11-21', nav: 1.0412 },
    { date: '2026-11-22', nav: 1.0387 },
  ],
  signals: { total: 2099, winning: 1567, avgReturnPct: -0.0254, lastSignalAt: '2026-11-21T21:58:35.971Z' },
} satisfies PerformancePublishInput;

export const performance = {
  providerId: 5,
  window: '7d',
  asOf: '2026-11-22',
  points: [
    { date: '2026-11-15', roiPct: 0, drawdownPct: 0 },
    { date: '2026-11-18', roiPct: 2.113, drawdownPct: 0 },
    { date: '2026-11-21', roiPct: 1.61, drawdownPct: 0.492 },
    { date: '2026-11-22', roiPct: 1.37, drawdownPct: 0.727 },
  ],
} satisfies Performance;
