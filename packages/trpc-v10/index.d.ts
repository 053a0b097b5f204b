export { createTRPCProxyClient, httpBatchLink, httpLink, TRPCClientError } from '@trpc/client';
