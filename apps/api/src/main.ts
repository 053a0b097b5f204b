import { existsSync } from 'node:fs';

// The module graph loads in stages. Node's ESM loader opens every file of one import graph
// concurrently (about 1,200 here: viem and kysely re-export hundreds each), so a single graph
// needs hundreds of descriptors at once and a server started under `ulimit -n 512` died with
// EMFILE before it listened. Loading the two big libraries' graphs first (through the workspace
// packages that use them) keeps the peak near 350; the rest then finds them in the module map.
//
// zod's compiler first: its global mode compiles every schema made after it on its first parse
// into one generated function, falling back to zod's runtime parser for a value that function
// does not accept, so a refused input or answer gets zod's own issues (the same 400s and 500s).
// A list page counts 15 % fewer instructions this way (apps/bench/BENCH.md, "Instructions per
// request: issue 37's gate"); core's compiled-schemas.differential.test.ts holds every wire
// schema's compiled parse to zod's runtime one. It must load before the modules that make schemas.
await import('zod/compile');
await import('@signal/core');
await import('@signal/db');
const { ConfigError, loadConfig } = await import('./config/config.js');
const { stopOnSignals } = await import('./ops/shutdown.js');
const { createServer } = await import('./server.js');

async function main() {
  // A `.env` in the working directory (see .env.example) fills in what the environment does not
  // set; the environment wins. process.loadEnvFile is Node 20.12+.
  if (existsSync('.env')) process.loadEnvFile?.('.env');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const server = createServer({ config });
  const { services } = await server.start();
  stopOnSignals(server.stop, services.log);
}

main().catch((error) => {
  // A configuration problem found at start (such as an unsafe DATA_DIR) is its message alone.
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
