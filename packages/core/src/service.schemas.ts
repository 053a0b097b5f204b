/** Wire schemas of the error body and the service's own endpoints (health, readiness, JWKS). */
import { z } from 'zod';
import { ERROR_CODES } from './errors.js';

export const ErrorCodeSchema = z.enum(ERROR_CODES as [string, ...string[]]).describe('Stable machine code');

/** One invalid field of a VALIDATION_ERROR (the wire form of core's ErrorIssue). */
export const ErrorIssueSchema = z.object({
  path: z.array(z.union([z.string(), z.number()])).describe('Where the problem is, e.g. ["limit"]'),
  message: z.string(),
});

export const ErrorBodySchema = z.object({
  code: ErrorCodeSchema,
  message: z.string().min(1).describe('Human-readable explanation'),
  issues: z.array(ErrorIssueSchema).optional().describe('VALIDATION_ERROR only: one entry per invalid field'),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const HealthResponseSchema = z.object({ status: z.literal('ok') });
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

export const ReadyResponseSchema = z.object({ status: z.literal('ready') });
export type ReadyResponse = z.infer<typeof ReadyResponseSchema>;

/** RFC 7517 key set of the token verification keys: public members only. */
export const JwksSchema = z.object({
  keys: z.array(
    z
      .object({
        kty: z.enum(['OKP', 'EC']).describe('Key type: OKP (Ed25519) or EC (P-256)'),
        crv: z.enum(['Ed25519', 'P-256']),
        x: z.string(),
        y: z.string().optional().describe('EC keys only'),
        kid: z.string().describe('RFC 7638 thumbprint; matches the `kid` header of the tokens it verifies'),
        alg: z.enum(['EdDSA', 'ES256']),
        use: z.literal('sig'),
      })
      .loose(),
  ),
});
export type Jwks = z.infer<typeof JwksSchema>;
