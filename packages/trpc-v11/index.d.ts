export { createTRPCClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
