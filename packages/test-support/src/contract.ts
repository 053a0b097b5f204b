/**
 * Wire types as the contract (CONTRACT.md) writes them, field for field, for the type tests that
 * hold a generated or inferred type to the contract: the SDK's declarations and the types
 * openapi-typescript generates from /openapi.json. Types only: this module has no runtime part and
 * imports nothing, so a throwaway project can resolve it too.
 */

/** A provider of the catalogue (`GET /providers/{id}`, an item of `GET /providers`). */
export type ContractProvider = {
  id: number;
  name: string;
  description: string | null;
  avatarUrl: string | null;
  followerCount: number;
  createdAt: string;
  roi30dPct: number | null;
  maxDrawdownPct: number;
  winRate: number;
  /** Version 4 ("Signals"): seconds a new signal is for followers only. */
  revealDelaySeconds: number;
};
