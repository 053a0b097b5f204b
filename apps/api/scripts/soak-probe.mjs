// Loaded into the server by the soak only (NODE_OPTIONS="--expose-gc --import=…"), never in
// production: on SIGUSR2, a full garbage collection, then the memory figures on stderr. The
// soak compares memory after a full collection at both ends of the run, so it measures what
// the process retains rather than where the collector happens to be in its cycle.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.stderr.write(`${JSON.stringify({ soakProbe: { rss, heapUsed, heapTotal, external } })}\n`);
});
