/**
 * `@signal/sdk/publisher`: a provider's publisher for bots, scripts and publisher pages, with the
 * signers it takes: `createClient(…)` here is the SDK's client with `client.publisher(providerId,
 * signer)` added, and `createPublisher({ baseUrl, providerId, signer })` the publisher alone. What a
 * publisher does is publisher-core.ts's. A separate entry, so a reader's browser bundle
 * (`@signal/sdk`, held under 7.5 KiB gzip) carries no statement code.
 */
import { createClient as createReaderClient } from './client.js';
import type { ClientOptions, SignalClient } from './client.types.js';
import { logMethods } from './log-client.js';
import { makePublisher, type Publisher, type PublisherOptions, type PublisherSigner } from './publisher-core.js';
import { mutateByName, serviceTransport } from './transport.js';

export type * from './publisher.types.js';
// Every signer: a wallet's, and an Ed25519 key's (the module holds nothing else).
export * from './statement-signers.js';
export type {
  Dec,
  InstantInput,
  SignalChanges,
  SignalStatementOptions,
  SignalTerms,
  StatementBody,
} from './statements.js';
export type { PublisherKey, PublisherKeyRevoked, Signal, SignalStatementAnswer } from './wire.types.js';

export interface CreatePublisherOptions extends PublisherOptions {
  /** Where the API is served, e.g. `https://api.example.com`. */
  baseUrl: string;
  providerId: number;
  signer: PublisherSigner;
  /** A fetch implementation; default the global `fetch`. */
  fetch?: typeof globalThis.fetch;
}

export function createPublisher(options: CreatePublisherOptions): Publisher {
  const { baseUrl, trpc } = serviceTransport(options);
  return makePublisher(
    { baseUrl, mutate: mutateByName(trpc), checkpoint: logMethods(baseUrl, trpc, options.fetch).checkpoint },
    options.providerId,
    options.signer,
    options,
  );
}

/** The SDK's client with a publisher for any provider. */
export interface PublishingClient extends SignalClient {
  /**
   * A publisher for provider `providerId`, signing with `signer` (a wallet's `evmSigner(account)`
   * or `solanaSigner(keypair)`, or a delegated key's `ed25519StatementSigner(secretKey)`): opens,
   * updates, closes and cancels signals, delegates and revokes keys, and sends a signed statement
   * again with the same bytes when its fate is unknown.
   */
  publisher(providerId: number, signer: PublisherSigner, options?: PublisherOptions): Publisher;
}

/** `createClient` of `@signal/sdk`, with `client.publisher(providerId, signer)`. */
export function createClient(options: ClientOptions): PublishingClient {
  return Object.assign(createReaderClient(options), {
    publisher: (providerId: number, signer: PublisherSigner, more: PublisherOptions = {}) =>
      createPublisher({ ...more, baseUrl: options.baseUrl, fetch: options.fetch, providerId, signer }),
  });
}
