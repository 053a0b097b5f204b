// @signal/core/log: the public log's Merkle tree, tiles, proofs, checkpoints and signed notes.
// Isomorphic (browsers, Node, the CLI): no node: imports. A port of Go's golang.org/x/mod/sumdb/tlog
// and sumdb/note (BSD-3-Clause, Copyright 2019 The Go Authors) to C2SP's tlog-tiles, tlog-checkpoint
// and signed-note. See docs/log.md.
export { type AppendResult, appendLeaves, type RightEdgeReader, rootFromRightEdge, tileHashes } from './append.js';
export { bytesEqual, fromBase64, toBase64, toHex } from './bytes.js';
export { LOG_CHECKPOINT_CACHE, LOG_IMMUTABLE_CACHE, LOG_KEY_CACHE } from './caching.js';
export { type Checkpoint, CheckpointError, formatCheckpoint, parseCheckpoint } from './checkpoint.js';
export { decodeEntryBundle, EntryBundleError, encodeEntryBundle, MAX_ENTRY_SIZE } from './entry-bundle.js';
export { emptyTreeHash, HASH_SIZE, leafHash, nodeHash } from './hash.js';
export {
  isValidKeyName,
  NoteError,
  type NoteErrorCode,
  type NoteSigner,
  type NoteVerifier,
  noteKeyHash,
  noteSigner,
  type OpenedNote,
  openNote,
  openNoteDetailed,
  parseVerifierKey,
  signNote,
  verifierKey,
} from './note.js';
export {
  type ConsistencyAnswer,
  checkConsistencyAnswer,
  checkInclusionAnswer,
  type InclusionAnswer,
} from './proof-answers.js';
export {
  checkConsistency,
  checkInclusion,
  type HashReader,
  proveRecord,
  proveTree,
  type SubtreeMemo,
  treeHashFrom,
} from './proofs.js';
export { openCheckpoint, signCheckpoint } from './signed-checkpoint.js';
export { createTileCache, type TileCache } from './tile-cache.js';
export { entriesPath, type ParsedTilePath, parseTilePath, tilePath } from './tile-path.js';
export {
  consistencyProof,
  inclusionProof,
  storedHashReader,
  type TileReader,
  type TreeHead,
  tileHashReader,
  treeHash,
} from './tile-read.js';
export {
  hashesAtTileLevel,
  hashFromTile,
  rightEdgeTiles,
  TILE_HEIGHT,
  TILE_WIDTH,
  type Tile,
  type TileData,
  tileForIndex,
  tileHash,
  tileParent,
} from './tiles.js';
export { MAX_TREE_SIZE, splitStoredHashIndex, storedHashCount, storedHashIndex } from './tree-math.js';
