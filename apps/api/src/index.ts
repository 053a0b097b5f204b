export { type Config, ConfigError, loadConfig } from './config.js';
export { createServer, type RunningServer, type ServerOptions } from './http/server.js';
export { type AppRouter, appRouter } from './routers/index.js';
