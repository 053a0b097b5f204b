/**
 * Where a read puts the version of the data it answered from (an ETag's source): its own module,
 * as both the provider reads and the catalogue's version use it (no import cycle between them).
 */
export interface VersionSink {
  version?: string;
}
