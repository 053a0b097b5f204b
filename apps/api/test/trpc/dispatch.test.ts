/**
 * The own tRPC dispatch (src/http/trpc.ts, behind the service's /trpc) against
 * tRPC's own `createHTTPHandler` (@trpc/server/adapters/standalone) on the same router and the
 * same services: every request below goes to both, and both must answer with the same status
 * and the same body. Where they may not, the case names the difference and why (KNOWN_DIFFERENCES;
 * the README's design notes, "The fast path", say the same).
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextFactory } from '../../src/procedures/context.js';
import { appRouter } from '../../src/procedures/routers/index.js';
import { evmWallet, signIn } from '../harness.js';
import { useService } from './started-service.js';

const api = useService();
let reference: Server;
let referenceUrl: string;
let token: string;

beforeAll(async () => {
  // The started service's own services: both dispatchers answer from the same database and keys.
  const createContext = contextFactory(api.services);
  reference = createHttpServer(
    createHTTPHandler({
      router: appRouter,
      basePath: '/trpc/',
      createContext: ({ req, res }) => createContext({ req, res }),
    }),
  );
  await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve));
  referenceUrl = `http://127.0.0.1:${(reference.address() as AddressInfo).port}`;
  token = (await signIn(api, evmWallet())).token;
});
afterAll(async () => {
  await new Promise((resolve) => reference?.close(resolve));
});

interface Case {
  name: string;
  method: string;
  target: string;
  body?: string;
  headers?: Record<string, string>;
  auth?: boolean;
}

const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));

const CASES: Case[] = [
  // Single calls
  { name: 'a query by GET', method: 'GET', target: `/trpc/providers.list?input=${input({})}` },
  { name: 'a query by GET without input', method: 'GET', target: '/trpc/providers.list' },
  { name: 'a protected query with a token', method: 'GET', target: '/trpc/me.get', auth: true },
  { name: 'a protected query without a token', method: 'GET', target: '/trpc/me.get' },
  {
    name: 'a protected query with garbage for a token',
    method: 'GET',
    target: '/trpc/me.get',
    headers: { authorization: 'Bearer x.y.z' },
  },
  { name: 'bad input to a query', method: 'GET', target: `/trpc/auth.nonce?input=${input({ wallet: 'garbage' })}` },
  { name: 'input of the wrong type', method: 'GET', target: `/trpc/auth.nonce?input=${input({ wallet: 42 })}` },
  {
    name: 'a mutation by POST with bad input',
    method: 'POST',
    target: '/trpc/auth.verify',
    body: JSON.stringify({ wallet: 1 }),
  },
  {
    name: 'a mutation by POST with a wrong signature',
    method: 'POST',
    target: '/trpc/auth.verify',
    body: JSON.stringify({
      wallet: '0x0000000000000000000000000000000000000001',
      nonce: 'x'.repeat(32),
      signature: '0x00',
    }),
  },
  {
    name: 'a mutation with a token',
    method: 'POST',
    target: '/trpc/auth.logout',
    body: JSON.stringify({ scope: 'bogus' }),
    auth: true,
  },
  {
    name: 'a query of an unknown provider',
    method: 'GET',
    target: `/trpc/providers.get?input=${input({ id: 999999 })}`,
  },
  // Paths and methods
  { name: 'an unknown path', method: 'GET', target: '/trpc/auth.nope' },
  { name: "a path of Object's prototype", method: 'GET', target: '/trpc/__proto__' },
  { name: 'a router, not a procedure', method: 'GET', target: '/trpc/auth' },
  { name: 'a query by POST', method: 'POST', target: '/trpc/providers.list', body: '{}' },
  { name: 'a mutation by GET', method: 'GET', target: '/trpc/auth.verify' },
  { name: 'a method other than GET and POST', method: 'PUT', target: '/trpc/providers.list', body: '{}' },
  { name: 'HEAD of a query', method: 'HEAD', target: `/trpc/providers.list?input=${input({})}` },
  {
    name: 'a POST that says it is not JSON',
    method: 'POST',
    target: '/trpc/auth.verify',
    body: '{}',
    headers: { 'content-type': 'text/plain' },
  },
  // Bodies and query strings that are not JSON
  { name: 'a POST body that is not JSON', method: 'POST', target: '/trpc/auth.verify', body: '{"wallet":' },
  { name: 'an input parameter that is not JSON', method: 'GET', target: '/trpc/auth.nonce?input=%7Bnope' },
  // Batches
  {
    name: 'a batch of two queries by GET',
    method: 'GET',
    target: `/trpc/providers.list,me.get?batch=1&input=${input({ 0: {}, 1: undefined })}`,
    auth: true,
  },
  {
    name: 'a batch with one failing call',
    method: 'GET',
    target: `/trpc/providers.list,me.get?batch=1&input=${input({ 0: {} })}`,
  },
  {
    name: 'a batch where every call fails alike',
    method: 'GET',
    target: `/trpc/auth.nonce,auth.nonce?batch=1&input=${input({ 0: { wallet: 'x' }, 1: { wallet: 'y' } })}`,
  },
  {
    name: 'a batch with an unknown path',
    method: 'GET',
    target: `/trpc/providers.list,auth.nope?batch=1&input=${input({ 0: {} })}`,
  },
  {
    name: 'a batch of mutations by POST',
    method: 'POST',
    target: '/trpc/auth.verify,auth.verify?batch=1',
    body: JSON.stringify({ 0: { wallet: 1 }, 1: {} }),
  },
  { name: 'a batch without input', method: 'GET', target: '/trpc/providers.list,providers.list?batch=1' },
  { name: 'a batch whose input is not JSON', method: 'GET', target: '/trpc/providers.list?batch=1&input=nope' },
  { name: 'a batch POST whose body is not JSON', method: 'POST', target: '/trpc/auth.verify?batch=1', body: '[' },
];

/**
 * Where the two may not agree, and why (the README's design notes, "The fast path", list the
 * same). `message`: same status, same body but the error's message; `status`: the status each
 * gives, asserted as it stands, so the entry fails when either side changes.
 */
type Difference = { kind: 'message' } | { kind: 'status'; ours: number; theirs: number };
const KNOWN_DIFFERENCES: Record<string, Difference> = {
  // tRPC's handler answers a body or an `input` parameter that is not JSON with JSON.parse's own
  // message; the service answers it in the contract's words, the same on REST and tRPC
  // (wire/body.ts): same status and code, another message.
  'a POST body that is not JSON': { kind: 'message' },
  'a batch POST whose body is not JSON': { kind: 'message' },
  'an input parameter that is not JSON': { kind: 'message' },
  'a batch whose input is not JSON': { kind: 'message' },
  // Both answer 404 NOT_FOUND; the message names the method the host does not serve on /trpc.
  'a method other than GET and POST': { kind: 'message' },
  // tRPC answers HEAD with an empty 204; the host answers every GET route's HEAD with the GET's
  // status and headers (server.ts), so a HEAD of /trpc tells what the GET would.
  'HEAD of a query': { kind: 'status', ours: 200, theirs: 204 },
  // tRPC 11 fails a body of a content type it has no reader for with a 500; the host answers it
  // as the contract's client error (wire/body.ts), on REST and tRPC alike.
  'a POST that says it is not JSON': { kind: 'status', ours: 400, theirs: 500 },
};

async function send(base: string, c: Case) {
  const headers: Record<string, string> = {};
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, c.headers);
  if (c.auth) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${c.target}`, { method: c.method, headers, body: c.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Compared as text.
  }
  return { status: res.status, body };
}

/** The error messages of an answer (one call's or a batch's), set aside for a `message` difference. */
function withoutMessages(body: unknown): unknown {
  const strip = (one: unknown) => {
    const error = (one as { error?: { message?: string } }).error;
    return error ? { ...(one as object), error: { ...error, message: '(compared apart)' } } : one;
  };
  return Array.isArray(body) ? body.map(strip) : strip(body);
}

describe('the own tRPC dispatch answers as createHTTPHandler does', () => {
  it.each(CASES)('$name', async (c) => {
    const ours = await send(api.url, c);
    const theirs = await send(referenceUrl, c);
    const difference = KNOWN_DIFFERENCES[c.name];
    if (difference?.kind === 'status') {
      expect([ours.status, theirs.status]).toEqual([difference.ours, difference.theirs]);
      return;
    }
    expect(ours.status).toBe(theirs.status);
    if (difference?.kind === 'message') {
      expect(withoutMessages(ours.body)).toEqual(withoutMessages(theirs.body));
      expect(ours.body).not.toEqual(theirs.body);
    } else {
      expect(ours.body).toEqual(theirs.body);
    }
  });
});
