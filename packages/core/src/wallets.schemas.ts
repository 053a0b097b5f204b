/** Wire schemas of the linked-wallet routes (`/me/wallets`); the item itself is in schemas.ts. */
import { z } from 'zod';
import { LinkedWalletSchema, VerifyBodySchema } from './schemas.js';

/** The body of POST /me/wallets: as POST /auth/verify's, with a nonce issued with `purpose=link`. */
export const LinkWalletBodySchema = VerifyBodySchema.extend({
  nonce: z.string().describe('A nonce from GET /auth/nonce?purpose=link, issued to the signed-in user'),
});
export type LinkWalletBody = z.infer<typeof LinkWalletBodySchema>;

export const LinkedWalletListSchema = z.object({ items: z.array(LinkedWalletSchema) });
export type LinkedWalletList = z.infer<typeof LinkedWalletListSchema>;

export const WalletParamsSchema = z.object({
  wallet: z.string().describe('A wallet linked to the signed-in user (any spelling of its address)'),
});

export const UnlinkedWalletSchema = z.object({
  wallet: z.string().describe('Canonical address of the wallet that was unlinked'),
  unlinked: z.literal(true),
});
export type UnlinkedWallet = z.infer<typeof UnlinkedWalletSchema>;
