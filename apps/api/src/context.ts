import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TokenService } from '@signal/core/token';
import type { DatabaseHandle } from '@signal/db';
import type { Logger } from 'pino';
import type { Config } from './config.js';

/** What every procedure can reach: built once per server. */
export interface Services {
  config: Config;
  database: DatabaseHandle;
  tokens: TokenService;
  /** The clock; injected by tests to reach expiry without waiting. */
  now: () => Date;
  log: Logger;
}

export interface Context {
  services: Services;
  req: IncomingMessage;
  res: ServerResponse;
  log: Logger;
}

export function contextFactory(services: Services) {
  return ({ req, res }: { req: IncomingMessage; res: ServerResponse }): Context => ({
    services,
    req,
    res,
    log: (req as { log?: Logger }).log ?? services.log,
  });
}
