export { type Config, ConfigError, loadConfig } from './config.js';
export { type AppRouter, appRouter } from './routers/index.js';
export { createServer, type RunningServer, type ServerOptions } from './server.js';
