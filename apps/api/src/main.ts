import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './config/config.js';
import { stopOnSignals } from './ops/shutdown.js';
import { createServer } from './server.js';

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
