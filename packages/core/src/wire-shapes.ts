/**
 * The version of the answer shapes of the cacheable reads, the first part of each of their ETags
 * (apps/api/src/http/caching.ts): a release that changes one of those shapes bumps it by hand, so
 * that no answer cached in the old shape revalidates as current. The test
 * apps/api/test/rest/wire-shapes.test.ts holds a digest of those answers' JSON Schemas per version
 * and fails when a schema changes without a bump.
 */
export const WIRE_SHAPES_VERSION = 1;
