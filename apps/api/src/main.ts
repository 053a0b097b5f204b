import { existsSync } from 'node:fs';

// The module graph loads in stages. Node's ESM loader opens every file of one import graph
// concurrently (about 1,200 here: viem and kysely re-export hundreds each), so a single graph
// needs hundreds of descriptors at once and a server started under `ulimit -n 512` died with
// EMFILE before it listened. Loading the two big libraries' graphs first (through the workspace
// packages that use them) keeps the peak near 350; the rest then finds them in the module map.
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
