import { generateOpenApiDocument } from 'trpc-openapi';
import { appRouter } from './routers/index.js';

export type OpenApiDocument = ReturnType<typeof generateOpenApiDocument>;

export function buildOpenApiDocument(baseUrl: string): OpenApiDocument {
  return generateOpenApiDocument(appRouter, {
    title: 'Signal provider service',
    description:
      'Wallet-authenticated API for a catalogue of trading-signal providers. Sign in with an EVM or Solana ' +
      'wallet signature, then browse, inspect and follow providers. Every error body is ' +
      '`{ code, message, issues? }` with a stable machine code.',
    version: '0.1.0',
    baseUrl,
    tags: ['auth', 'me', 'providers'],
  });
}
