export { type Config, ConfigError, loadConfig } from './config/config.js';
export { type AppRouter, appRouter } from './procedures/routers/index.js';
export { createServer, type RunningServer, type ServerOptions } from './server.js';
