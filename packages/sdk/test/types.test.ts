/**
 * Type tests, checked by `pnpm typecheck` (tsc over src and test) against the built
 * declarations, since `@signal/sdk` resolves to dist/*.d.ts: results are the router's types,
 * and bad arguments do not compile.
 */
import type { AppRouter } from '@signal/api';
import type {
  PublisherKey as CorePublisherKey,
  PublisherKeyRevoked as CorePublisherKeyRevoked,
  Signal as CoreSignal,
  SignalList as CoreSignalList,
  SignalLiveEvent as CoreSignalLiveEvent,
  SignalStatementAnswer as CoreSignalStatementAnswer,
  ProviderFilterField,
  ProviderSortField,
} from '@signal/core';
import type { StatementType as CoreStatementType } from '@signal/core/statements';
import {
  type ActiveSession,
  type ActiveSessionPage,
  createClient,
  type FollowedProvider,
  type FollowResult,
  type Performance,
  type PerformancePoint,
  type PerformanceWindow,
  type Provider,
  type ProviderFilters,
  type ProviderListQuery,
  type ProviderPage,
  type ProviderSortBy,
  type Session,
  type Signal,
  type SignalApiError,
  type SignalErrorCode,
  type SignalList,
  type SignalLiveEvent,
  type SignalStatementAnswer,
  type SignOutResult,
  type SignOutScope,
  type SortOrder,
  type UnfollowResult,
  type User,
} from '@signal/sdk';
import { evmSigner } from '@signal/sdk/evm';
import {
  createClient as createPublishingClient,
  type PublisherKey,
  type PublisherKeyRevoked,
  type StatementType,
} from '@signal/sdk/publisher';
import { solanaSigner } from '@signal/sdk/solana';
import type { ContractProvider } from '@signal/test-support/contract';
import { Keypair } from '@solana/web3.js';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import { createWalletClient, custom, type EIP1193RequestFn } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { mainnet } from 'viem/chains';
import { describe, expectTypeOf, it } from 'vitest';

type Outputs = inferRouterOutputs<AppRouter>;
type Inputs = inferRouterInputs<AppRouter>;

const client = createClient({ baseUrl: 'http://127.0.0.1:1' });

describe('results are typed', () => {
  it('providers.list returns a page of typed providers', () => {
    expectTypeOf(client.providers.list).returns.resolves.toEqualTypeOf<ProviderPage>();
    expectTypeOf<ProviderPage['items']>().toEqualTypeOf<Provider[]>();
    expectTypeOf<Provider>().toEqualTypeOf<ContractProvider>();
    expectTypeOf<ProviderPage>().toHaveProperty('totalPages').toEqualTypeOf<number>();
  });

  it('every method returns what the router infers (the flattened declarations cannot drift)', () => {
    expectTypeOf(client.providers.list).returns.resolves.toEqualTypeOf<Outputs['providers']['list']>();
    expectTypeOf(client.providers.get).returns.resolves.toEqualTypeOf<Outputs['providers']['get']>();
    expectTypeOf(client.providers.stats).returns.resolves.toEqualTypeOf<Outputs['providers']['stats']>();
    expectTypeOf(client.providers.follow).returns.resolves.toEqualTypeOf<Outputs['providers']['follow']>();
    expectTypeOf(client.providers.unfollow).returns.resolves.toEqualTypeOf<Outputs['providers']['unfollow']>();
    expectTypeOf(client.me.get).returns.resolves.toEqualTypeOf<Outputs['me']['get']>();
    expectTypeOf(client.me.following).returns.resolves.toEqualTypeOf<Outputs['me']['following']>();
    expectTypeOf(client.auth.nonce).returns.resolves.toEqualTypeOf<Outputs['auth']['nonce']>();
    expectTypeOf(client.signIn).returns.resolves.toEqualTypeOf<Outputs['auth']['verify']>();
    expectTypeOf(client.providers.list).parameter(0).toEqualTypeOf<Inputs['providers']['list'] | undefined>();
    expectTypeOf(client.me.following).parameter(0).toEqualTypeOf<Inputs['me']['following'] | undefined>();
    expectTypeOf<FollowedProvider>().toEqualTypeOf<Outputs['me']['following']['items'][number]>();
    expectTypeOf<Session['user']>().toEqualTypeOf<User>();
    expectTypeOf(client.sessions.list).returns.resolves.toEqualTypeOf<Outputs['sessions']['list']>();
    expectTypeOf(client.sessions.list).parameter(0).toEqualTypeOf<Inputs['sessions']['list'] | undefined>();
    expectTypeOf(client.sessions.revoke).returns.resolves.toEqualTypeOf<Outputs['sessions']['revoke']>();
    expectTypeOf(client.sessions.revoke).parameter(0).toEqualTypeOf<Inputs['sessions']['revoke']['id']>();
    expectTypeOf<ActiveSessionPage>().toEqualTypeOf<Outputs['sessions']['list']>();
    expectTypeOf<SignOutScope | undefined>().toEqualTypeOf<Extract<Inputs['auth']['logout'], object>['scope']>();
  });

  it("the list's sorts and filters are the ones of core's schema, typed as the API parses them", () => {
    expectTypeOf<ProviderSortBy>().toEqualTypeOf<ProviderSortField>();
    expectTypeOf<'roi30d' | 'maxDrawdown' | 'winRate' | 'tradingDays'>().toExtend<ProviderSortBy>();
    expectTypeOf<SortOrder>().toEqualTypeOf<'asc' | 'desc'>();
    expectTypeOf<keyof ProviderFilters>().toEqualTypeOf<ProviderFilterField>();
    expectTypeOf<ProviderFilters>().toEqualTypeOf<{
      q?: string;
      minRoi30dPct?: number;
      maxDrawdownPct?: number;
      minWinRate?: number;
      minTradingDays?: number;
      minFollowers?: number;
    }>();
    // A query is a sort, a page or cursor, and filters; all of it optional.
    expectTypeOf<ProviderSortBy | undefined>().toEqualTypeOf<ProviderListQuery['sortBy']>();
    expectTypeOf<ProviderFilters>().toExtend<ProviderListQuery>();
  });

  it('performance(id, window) answers the chart of the window, typed from core', () => {
    expectTypeOf(client.providers.performance).returns.resolves.toEqualTypeOf<Performance>();
    expectTypeOf(client.providers.performance).returns.resolves.toEqualTypeOf<Outputs['providers']['performance']>();
    expectTypeOf(client.providers.performance).parameter(1).toEqualTypeOf<PerformanceWindow | undefined>();
    expectTypeOf<PerformanceWindow>().toEqualTypeOf<'7d' | '30d' | '90d' | '1y' | 'all'>();
    expectTypeOf<PerformancePoint>().toEqualTypeOf<{ date: string; roiPct: number; drawdownPct: number }>();
    expectTypeOf<Performance['asOf']>().toEqualTypeOf<string | null>();
  });

  it('follow answers following: true and unfollow following: false, as literals', () => {
    expectTypeOf(client.providers.follow).returns.resolves.toEqualTypeOf<FollowResult>();
    expectTypeOf(client.providers.unfollow).returns.resolves.toEqualTypeOf<UnfollowResult>();
    expectTypeOf<FollowResult['following']>().toEqualTypeOf<true>();
    expectTypeOf<UnfollowResult['following']>().toEqualTypeOf<false>();
  });

  it('sessions: the sign-in result names its session; the list item is ActiveSession', () => {
    // `Session` stays the sign-in result (token and user), now with the session's id.
    expectTypeOf<Session>().toHaveProperty('token').toEqualTypeOf<string>();
    expectTypeOf<Session>().toHaveProperty('sessionId').toEqualTypeOf<string>();
    expectTypeOf<ActiveSession>().toEqualTypeOf<{
      id: string;
      createdAt: string;
      lastUsedAt: string;
      expiresAt: string;
      userAgent: string | null;
      ip: string | null;
      current: boolean;
    }>();
    expectTypeOf<ActiveSessionPage['items']>().toEqualTypeOf<ActiveSession[]>();
    expectTypeOf(client.sessions.all).returns.toEqualTypeOf<AsyncIterableIterator<ActiveSession>>();
    expectTypeOf(client.signOut).returns.resolves.toEqualTypeOf<SignOutResult>();
    expectTypeOf(client.signOut).parameter(0).toEqualTypeOf<{ scope?: SignOutScope } | undefined>();
    expectTypeOf<SignOutScope>().toEqualTypeOf<'current' | 'others' | 'all'>();
    expectTypeOf<SignOutResult>().toEqualTypeOf<{
      revoked: number;
      serverConfirmed: boolean;
      error?: SignalApiError;
    }>();
  });

  it("signals: the types are those of core's one zod schema per wire type, flattened", () => {
    expectTypeOf<Signal>().toEqualTypeOf<CoreSignal>();
    expectTypeOf<SignalList>().toEqualTypeOf<CoreSignalList>();
    expectTypeOf<SignalLiveEvent>().toEqualTypeOf<CoreSignalLiveEvent>();
    expectTypeOf<SignalStatementAnswer>().toEqualTypeOf<CoreSignalStatementAnswer>();
    expectTypeOf<PublisherKey>().toEqualTypeOf<CorePublisherKey>();
    expectTypeOf<PublisherKeyRevoked>().toEqualTypeOf<CorePublisherKeyRevoked>();
    expectTypeOf<StatementType>().toEqualTypeOf<CoreStatementType>();
    expectTypeOf(client.signals.get).returns.resolves.toEqualTypeOf<Signal>();
    expectTypeOf(client.signals.list).returns.resolves.toEqualTypeOf<SignalList>();
    expectTypeOf(client.signals.mine).returns.resolves.toEqualTypeOf<SignalList>();
    const publisher = createPublishingClient({ baseUrl: 'http://127.0.0.1:1' }).publisher(1, {
      signerId: async () => 'ed25519:x',
      sign: async () => 'x',
    });
    expectTypeOf(publisher.open).returns.resolves.toEqualTypeOf<SignalStatementAnswer>();
    expectTypeOf(publisher.cancel).returns.resolves.toEqualTypeOf<SignalStatementAnswer>();
    expectTypeOf(publisher.delegateKey).returns.resolves.toEqualTypeOf<PublisherKey>();
    expectTypeOf(publisher.revokeKey).returns.resolves.toEqualTypeOf<PublisherKeyRevoked>();
    // And the router's: what the signal and key routes answer.
    expectTypeOf<Signal>().toEqualTypeOf<Outputs['signals']['get']>();
    expectTypeOf<SignalList>().toEqualTypeOf<Outputs['signals']['list']>();
    expectTypeOf<SignalList>().toEqualTypeOf<Outputs['signals']['mine']>();
    expectTypeOf<SignalStatementAnswer>().toEqualTypeOf<Outputs['signals']['open']>();
    expectTypeOf<SignalStatementAnswer>().toEqualTypeOf<Outputs['signals']['update']>();
    expectTypeOf<PublisherKey>().toEqualTypeOf<Outputs['publisherKeys']['delegate']>();
    expectTypeOf<PublisherKeyRevoked>().toEqualTypeOf<Outputs['publisherKeys']['revoke']>();
  });

  it('errors carry the contract code union plus NETWORK_ERROR', () => {
    expectTypeOf<SignalApiError['code']>().toEqualTypeOf<SignalErrorCode>();
    expectTypeOf<'NETWORK_ERROR'>().toExtend<SignalErrorCode>();
    expectTypeOf<'TOKEN_EXPIRED' | 'PROVIDER_NOT_FOUND' | 'VALIDATION_ERROR'>().toExtend<SignalErrorCode>();
    expectTypeOf<'SESSION_REVOKED' | 'SESSION_NOT_FOUND'>().toExtend<SignalErrorCode>();
    expectTypeOf<'NOT_A_CODE'>().not.toExtend<SignalErrorCode>();
    expectTypeOf<SignalApiError['status']>().toEqualTypeOf<number>();
    expectTypeOf<SignalApiError['issues']>().toEqualTypeOf<{ path: (string | number)[]; message: string }[]>();
  });
});

describe('bad arguments do not compile', () => {
  it('rejects wrong ids, fields and values', () => {
    // Never called: the assertions are the compile errors.
    const calls = () => {
      // @ts-expect-error a provider id is a number
      client.providers.get('5');
      // @ts-expect-error unknown sort field
      client.providers.list({ sortBy: 'popularity' });
      // @ts-expect-error limit is a number
      client.providers.list({ limit: '10' });
      // @ts-expect-error order is asc or desc
      client.providers.list({ order: 'up' });
      // @ts-expect-error no such sort: the figure is roi30d
      client.providers.list({ sortBy: 'roi30dPct' });
      // @ts-expect-error filters are numbers, not the query string's text
      client.providers.list({ minWinRate: '0.5' });
      // @ts-expect-error no such filter
      client.providers.list({ minRoi7dPct: 1 });
      // @ts-expect-error no such chart window
      client.providers.performance(1, '2y');
      // @ts-expect-error me.get takes no argument
      client.me.get(1);
      // @ts-expect-error verify needs the nonce
      client.auth.verify({ wallet: '0x', signature: '0x' });
      // @ts-expect-error a session id is a string
      client.sessions.revoke(1);
      // @ts-expect-error no such sign-out scope
      client.signOut({ scope: 'everywhere' });
      // @ts-expect-error baseUrl is required
      createClient({});
      // @ts-expect-error a token store needs get, set and clear
      createClient({ baseUrl: 'x', tokenStore: { get: () => null } });
    };
    expectTypeOf(calls).toBeFunction();
  });

  it('a code comparison against a code that does not exist is an error', () => {
    const check = (error: SignalApiError) =>
      // @ts-expect-error no such code in the contract
      error.code === 'EXPIRED';
    expectTypeOf(check).toBeFunction();
  });
});

describe('signers accept what users hold', () => {
  it('viem accounts and wallet clients, with or without account and chain', () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const request = (async () => null) as unknown as EIP1193RequestFn;
    evmSigner(account);
    evmSigner(createWalletClient({ account, transport: custom({ request }) }));
    evmSigner(createWalletClient({ account: account.address, chain: mainnet, transport: custom({ request }) }));
    evmSigner(createWalletClient({ transport: custom({ request }) }));
    // @ts-expect-error an address alone cannot sign
    evmSigner(account.address);
  });

  it('Solana keypairs and wallet shapes', () => {
    const keypair = Keypair.generate();
    solanaSigner(keypair);
    solanaSigner({ publicKey: keypair.publicKey, signMessage: async (message: Uint8Array) => message });
    solanaSigner({
      publicKey: keypair.publicKey,
      signMessage: async (message: Uint8Array, _display?: 'utf8' | 'hex') => ({
        signature: message,
        publicKey: keypair.publicKey,
      }),
    });
    // wallet-adapter's useWallet(): publicKey may be null and signMessage undefined before connecting.
    solanaSigner({ publicKey: null, signMessage: undefined });
    // @ts-expect-error signMessage must return bytes or { signature }
    solanaSigner({ publicKey: keypair.publicKey, signMessage: async () => 'signature' });
  });
});
