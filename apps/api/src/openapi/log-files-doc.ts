/**
 * The log's files in the OpenAPI document: `GET /log/checkpoint`, `GET /log/key`, the hash tiles
 * and the entry bundles (CONTRACT.md, "The log"; C2SP tlog-tiles). They are not procedures but
 * the host's own handlers (pages/log-files.ts), text and bytes rather than JSON, so they are
 * written here by hand, as the host's JSON endpoints are in document-text.ts; their errors are the
 * contract's ErrorBody like every other operation's (error-docs.ts).
 *
 * A tile's index N is C2SP's path encoding, groups of three digits with all but the last prefixed
 * by `x` (`x001/x234/067`): one parameter that may span segments, which OpenAPI 3.0's path
 * templates cannot say, so its description does.
 */
import type { ErrorBody } from '@signal/core';
import {
  LOG_CHECKPOINT_CACHE as CHECKPOINT_CACHE,
  LOG_IMMUTABLE_CACHE as IMMUTABLE,
  LOG_KEY_CACHE as KEY_CACHE,
} from '@signal/core/log';
import { checkpointNote, logVerifierKey } from '@signal/core/log-examples';
import type { OpenAPIV3 } from 'openapi-types';
import { ANY_OPERATION, errorResponses, urlTooLongExample } from './error-docs.js';

const cacheControl = (value: string, why: string): Record<string, OpenAPIV3.HeaderObject> => ({
  'Cache-Control': { description: why, schema: { type: 'string', example: value } },
});

const IMMUTABLE_HEADERS = cacheControl(
  IMMUTABLE,
  `\`${IMMUTABLE}\`: the tile's bytes at this path never change (a partial tile's \`.p/{W}\` names its width), so browsers and CDNs may keep it forever`,
);

/** The NOT_FOUND of a tile past the tree, as pages/log-files.ts words it. */
const beyondTree = (path: string): ErrorBody => ({
  code: 'NOT_FOUND',
  message: `No log tile ${path}: the log holds 3 entries`,
});

const levelParameter: OpenAPIV3.ParameterObject = {
  name: 'L',
  in: 'path',
  required: true,
  description:
    'The tile level, 0..63 in decimal without leading zeros: level 0 holds leaf hashes, level L the hashes of ' +
    'subtrees of 256^L leaves',
  schema: { type: 'integer', minimum: 0, maximum: 63 },
  example: 0,
};

const indexParameter = (what: string): OpenAPIV3.ParameterObject => ({
  name: 'N',
  in: 'path',
  required: true,
  description:
    `The ${what} index in C2SP's path encoding: groups of three decimal digits, all but the last prefixed with ` +
    '`x` and separated by `/` (0 → `000`, 1234067 → `x001/x234/067`); it may span several path segments. Any ' +
    'other spelling (leading zeros of the number, a missing group, `000` in front of a non-zero index) is 404.',
  schema: { type: 'string', pattern: '^(x[0-9]{3}/)*[0-9]{3}$' },
  example: '000',
});

const widthParameter = (what: string): OpenAPIV3.ParameterObject => ({
  name: 'W',
  in: 'path',
  required: true,
  description: `The width of a partial ${what}, 1..255 in decimal without leading zeros (a full one has no \`.p/{W}\`)`,
  schema: { type: 'integer', minimum: 1, maximum: 255 },
  example: 3,
});

const octets = (description: string, headers: Record<string, OpenAPIV3.HeaderObject>): OpenAPIV3.ResponseObject => ({
  description,
  headers,
  content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
});

/** The errors of a tile or bundle path: the host's, and 404 for a path past the tree or not canonical. */
function tileErrors(example: string): OpenAPIV3.ResponsesObject {
  return errorResponses([...ANY_OPERATION, 'SERVICE_UNAVAILABLE'], {
    VALIDATION_ERROR: urlTooLongExample(),
    NOT_FOUND: beyondTree(example),
  });
}

function tileOperation(
  operationId: string,
  summary: string,
  description: string,
  parameters: OpenAPIV3.ParameterObject[],
  body: string,
  example: string,
): OpenAPIV3.PathItemObject {
  return {
    get: {
      operationId,
      summary,
      description,
      tags: ['log'],
      parameters,
      responses: { 200: octets(body, IMMUTABLE_HEADERS), ...tileErrors(example) },
    },
  };
}

const NOT_FOUND_RULES =
  '404 `NOT_FOUND` when the tree does not hold that much (a full tile past the tree, a partial one wider than ' +
  'the right edge, a bundle starting at or past the size) and for any path that is not the one canonical ' +
  'spelling of a tile (never 200, never another tile). Public: no credential is read.';

/** The paths, as `doc.paths` entries. */
export const LOG_FILE_PATHS: Record<string, OpenAPIV3.PathItemObject> = {
  '/log/checkpoint': {
    get: {
      operationId: 'log-checkpoint',
      summary: 'The signed checkpoint',
      description:
        "The log's newest checkpoint this server has seen (never an older one than it served): a C2SP " +
        'tlog-checkpoint (origin, tree size, base64 root hash) in a C2SP signed note, signed with the Ed25519 key ' +
        "of `GET /log/key` under the origin's name. Check it with Go's `sumdb/note` (`note.Open`) or the SDK. A " +
        'checkpoint covering an entry is signed within 1 s of its acceptance; any two ever served are consistent ' +
        '(`GET /log/proof/consistency`). 503 until this server has read the first one from the database.',
      tags: ['log'],
      responses: {
        200: {
          description: 'The signed note',
          headers: cacheControl(
            CHECKPOINT_CACHE,
            `\`${CHECKPOINT_CACHE}\`: it moves with every append, so it is cached a moment only (never immutable)`,
          ),
          content: { 'text/plain; charset=utf-8': { schema: { type: 'string' }, example: checkpointNote } },
        },
        ...errorResponses([...ANY_OPERATION, 'SERVICE_UNAVAILABLE'], { VALIDATION_ERROR: urlTooLongExample() }),
      },
    },
  },
  '/log/key': {
    get: {
      operationId: 'log-key',
      summary: "The log's verifier key",
      description:
        'The verifier key of the checkpoints in note format, `<origin>+<hex key hash>+<base64(0x01 ‖ Ed25519 public ' +
        "key)>`, as Go's `note.NewVerifier` reads it. Pin it from a source you trust; a monitor refuses a checkpoint " +
        'it does not verify (key rotation: docs/log.md).',
      tags: ['log'],
      responses: {
        200: {
          description: 'The verifier key',
          headers: cacheControl(KEY_CACHE, `\`${KEY_CACHE}\``),
          content: { 'text/plain; charset=utf-8': { schema: { type: 'string' }, example: logVerifierKey } },
        },
        ...errorResponses([...ANY_OPERATION], { VALIDATION_ERROR: urlTooLongExample() }),
      },
    },
  },
  '/log/tile/{L}/{N}': tileOperation(
    'log-tile',
    'A full hash tile',
    `The 256 hashes (32 bytes each, 8,192 bytes) of hash tile N at level L (C2SP tlog-tiles, tile height 8). ${NOT_FOUND_RULES}`,
    [levelParameter, indexParameter('tile')],
    'The tile: 256 concatenated SHA-256 hashes',
    'tile/0/x001/000',
  ),
  '/log/tile/{L}/{N}.p/{W}': tileOperation(
    'log-tile-partial',
    'A partial hash tile',
    'The first W hashes (W × 32 bytes) of hash tile N at level L: the right edge of the tree at a size ' +
      'that does not fill it. Immutable too: a tile only grows, its first hashes never change, and a ' +
      `width is one size's edge. ${NOT_FOUND_RULES}`,
    [levelParameter, indexParameter('tile'), widthParameter('tile')],
    'The first W hashes of the tile',
    'tile/0/000.p/5',
  ),
  '/log/tile/entries/{N}': tileOperation(
    'log-entry-bundle',
    'A full entry bundle',
    'Entries 256·N to 256·N + 255 in index order, each a big-endian uint16 length followed by its bytes ' +
      `(C2SP tlog-tiles; the entry formats: docs/log.md). ${NOT_FOUND_RULES}`,
    [indexParameter('bundle')],
    'The 256 entries, each length-prefixed',
    'tile/entries/x001/000',
  ),
  '/log/tile/entries/{N}.p/{W}': tileOperation(
    'log-entry-bundle-partial',
    'A partial entry bundle',
    `The first W entries of bundle N (entries 256·N to 256·N + W − 1), each length-prefixed. ${NOT_FOUND_RULES}`,
    [indexParameter('bundle'), widthParameter('bundle')],
    'The first W entries of the bundle, each length-prefixed',
    'tile/entries/000.p/5',
  ),
};
