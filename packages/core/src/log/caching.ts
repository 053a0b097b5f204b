// The Cache-Control of the log's files (CONTRACT.md, "Precise readings (Version 4)"): the server
// sends these and its OpenAPI document names them, so both read them from here.

/** A tile or entry bundle at a path never changes (a partial one's path names its width). */
export const LOG_IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** A checkpoint at most this old from a cache: the contract allows 10 s; new ones come within 1 s. */
export const LOG_CHECKPOINT_CACHE = 'public, max-age=2';
/** The verifier key changes only with a key rotation (docs/log.md). */
export const LOG_KEY_CACHE = 'public, max-age=300';
