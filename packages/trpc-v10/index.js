// A package of its own because @trpc/client v10 takes @trpc/server v10 as a peer: under an npm
// alias in a package that depends on @trpc/server v11, pnpm would hand it v11.
export { createTRPCProxyClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
