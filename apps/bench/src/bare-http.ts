/**
 * The physical floor of HTTP on this machine: a bare node:http server answering fixed bodies
 * (the service's own list page 1 and a detail, read from files) with Content-Type and
 * Content-Length, nothing else. Run as a child process by the bench; `/ready` answers 200.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const env = process.env;
const list = readFileSync(env.LIST_BODY_FILE ?? '');
const detail = readFileSync(env.DETAIL_BODY_FILE ?? '');
const headers = (body: Buffer) => ({
  'Content-Type': 'application/json; charset=utf-8',
  'Content-Length': body.length,
});

const server = createServer((req, res) => {
  // A detail path is /providers/<id>; everything else (the list, /ready) gets the list body.
  const body = /^\/providers\/[0-9]/.test(req.url ?? '') ? detail : list;
  res.writeHead(200, headers(body));
  res.end(body);
});
server.keepAliveTimeout = 5_000;
server.listen(Number(env.PORT), '127.0.0.1');

const shutdown = () => server.close(() => process.exit(0));
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
