export { isSignalApiError, SignalApiError, type SignalErrorCode } from './api-error.js';
export type { CatalogueWriteMethods, WriteOptions } from './catalogue-writes.js';
export { createClient } from './client.js';
export type {
  ClientOptions,
  MessageFormat,
  SignalClient,
  SignalListQuery,
  SignalLiveHandler,
  SignalLiveOptions,
  SignOutResult,
} from './client.types.js';
export type { EventStreamOptions } from './event-stream.js';
export type { LogMethods } from './log-client.js';
// The publisher's types (its code is `@signal/sdk/publisher`'s).
export type * from './publisher.types.js';
export { createServiceClient, type ServiceClientOptions, type SignalServiceClient } from './service-client.js';
export type { Signer } from './signer.types.js';
export {
  type KeyValueStorage,
  type LocalStorageTokenStoreOptions,
  localStorageTokenStore,
  memoryTokenStore,
  type StoredToken,
  type TokenStore,
} from './token.store.js';
// Every wire type: Provider, ProviderPage, User, Session, ActiveSession, ContractCode, …
export type * from './wire.types.js';
