// A package of its own because @trpc/client v11 takes @trpc/server v11 as a peer: under an npm
// alias in a package that depends on @trpc/server v10, pnpm would hand it v10.
export { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
