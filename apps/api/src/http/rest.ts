/**
 * The REST transport: every procedure with an `openapi` block in its meta (trpc-to-openapi's
 * mapping, the same one the OpenAPI document is generated from) answers at that method and
 * path. Requests are matched and their input built exactly as trpc-to-openapi's node handler does
 * (path normalised, `{param}` segments matched case-insensitively, the first value of each
 * query key, path parameters over query or body keys, no input for a void procedure), then the
 * procedure runs as tRPC's own `callTRPCProcedure` runs it (runProcedure, run-procedure.ts), the
 * call its caller and its HTTP handler make. What is left out of that handler is its per-request cost (a deep-cloned router, a
 * second URL parse, a caller proxy per request, a regex scan of every route) and its error
 * body, which the contract replaces: failures here throw, and the server answers them with
 * toWireError like every other failure.
 */
import type { AnyRouter } from '@trpc/server';
import type { OpenApiMeta } from 'trpc-to-openapi';
import { bodyLimitOf } from '../wire/body.js';
import { runProcedure } from './run-procedure.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

interface RestRoute {
  method: Method;
  /** The path template, e.g. `/providers/{id}` (the metrics' route label). */
  path: string;
  /** The procedure's dotted path in the router (its name among the router's procedures). */
  procedure: string;
  type: 'query' | 'mutation';
  /** False for a void input: the procedure gets `undefined` whatever the request carries. */
  takesInput: boolean;
  /**
   * True when the input has fields beyond the path's parameters: the route takes a body (for a
   * POST, PUT or PATCH), and a body that is not a JSON object is refused rather than ignored.
   */
  takesBody: boolean;
  /** The status of a success: 200, or the meta's `successStatus` (201 for a POST that creates). */
  successStatus: number;
  /** The largest body it takes (bodyLimitOf). */
  maxBodyBytes: number;
}

interface Match {
  route: RestRoute;
  params: Record<string, string>;
}

/**
 * trpc-to-openapi's normalisation, `/${path.replace(/^\/|\/$/g, '')}`: for a path that starts
 * with a slash, as every URL's pathname does, that is one trailing slash dropped.
 */
function normalisePath(path: string): string {
  if (!path.startsWith('/')) return `/${path.replace(/\/$/, '')}`;
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * trpc-to-openapi's matcher: `{name}` takes one segment, and the whole path ignores case. Plain
 * groups rather than named ones: no groups object per match.
 */
function pathPattern(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  const source = path.replace(/\{(.+?)\}/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  return { pattern: new RegExp(`^${source}$`, 'i'), names };
}

const VOID_INPUTS = new Set(['void', 'undefined', 'never']);

/** The input schema's kind under optional/default wrappers and pipes, as trpc-to-openapi reads it. */
function isVoidInput(schema: unknown): boolean {
  type Def = { type?: string; innerType?: unknown; in?: unknown; out?: unknown };
  let type = schema as { _zod?: { def?: Def } } | undefined;
  for (;;) {
    const def = type?._zod?.def;
    if (def?.type === 'optional' || def?.type === 'default' || def?.type === 'prefault') {
      type = def.innerType as typeof type;
    } else if (def?.type === 'pipe') {
      const out = (def.out as typeof type)?._zod?.def;
      type = (out?.type === 'transform' ? def.in : def.out) as typeof type;
    } else return VOID_INPUTS.has(def?.type ?? '');
  }
}

/**
 * True unless the input is an object whose every field is one of `names` (the path's
 * parameters): follow and unfollow take their input from the path alone, so they take no body.
 * An input that is not a plain object schema counts as taking one.
 */
function hasFieldsBeyond(schema: unknown, names: string[]): boolean {
  const def = (schema as { _zod?: { def?: { type?: string; shape?: Record<string, unknown> } } } | undefined)?._zod
    ?.def;
  if (def?.type !== 'object' || !def.shape) return true;
  return Object.keys(def.shape).some((key) => !names.includes(key));
}

export interface RestRouter {
  /** The route for a method and pathname, with its path parameters; undefined when none. */
  match(method: string, pathname: string): Match | undefined;
  /** The methods served at a pathname, for the message of a wrong-method 404. */
  methodsAt(pathname: string): Method[];
}

export function restRouter(router: AnyRouter): RestRouter {
  // Paths without parameters are found by one lookup; the rest by their patterns, in order.
  const fixed = new Map<string, RestRoute>();
  const patterned: { pattern: RegExp; names: string[]; route: RestRoute }[] = [];
  for (const [name, procedure] of Object.entries(router._def.procedures as Record<string, AnyProcedureLike>)) {
    const openapi = procedure._def.meta?.openapi;
    if (!openapi || openapi.enabled === false) continue;
    const path = normalisePath(openapi.path);
    const input = procedure._def.inputs[0];
    const route: RestRoute = {
      method: openapi.method,
      path,
      procedure: name,
      type: procedure._def.type === 'mutation' ? 'mutation' : 'query',
      takesInput: !isVoidInput(input),
      takesBody: hasFieldsBeyond(input, pathPattern(path).names),
      successStatus: (openapi as { successStatus?: number }).successStatus ?? 200,
      maxBodyBytes: bodyLimitOf(procedure),
    };
    if (path.includes('{')) patterned.push({ ...pathPattern(path), route });
    else fixed.set(`${route.method} ${path.toLowerCase()}`, route);
  }

  function match(method: string, pathname: string): Match | undefined {
    const path = normalisePath(pathname);
    const route = fixed.get(`${method} ${path.toLowerCase()}`);
    if (route) return { route, params: {} };
    for (const { pattern, names, route: candidate } of patterned) {
      if (candidate.method !== method) continue;
      const found = pattern.exec(path);
      if (!found) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) params[names[i] as string] = found[i + 1] as string;
      return { route: candidate, params };
    }
    return undefined;
  }

  const methods: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
  return {
    match,
    methodsAt: (pathname) => methods.filter((method) => match(method, pathname) !== undefined),
  };
}

interface AnyProcedureLike {
  _def: {
    meta?: OpenApiMeta;
    type: 'query' | 'mutation' | 'subscription';
    inputs: unknown[];
  };
}

/**
 * The procedure's input: body (POST, PUT, PATCH) or the first value of each query key (GET,
 * DELETE), with the path's parameters over them. The query lands on an object without a
 * prototype, so that `?constructor=1` or `?__proto__=1` are keys like any other (unknown ones,
 * which the schema drops) rather than Object.prototype's members.
 */
export function restInput(match: Match, body: unknown, target: Pick<URL, 'searchParams'>): unknown {
  if (!match.route.takesInput) return undefined;
  const { method } = match.route;
  if (method === 'GET' || method === 'DELETE') {
    const input: Record<string, unknown> = Object.create(null);
    // The query's parameters are made here, only for a route that reads them (a URL makes its
    // URLSearchParams on first access).
    for (const [key, value] of target.searchParams) if (!(key in input)) input[key] = value;
    return Object.assign(input, match.params);
  }
  // No body at all is an empty object: the input is the path's parameters alone.
  if (body === undefined) return fields(match.params);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    // Not an object (`[]`, `null`, `"x"`, `1`): it has no fields to give. A route whose input is
    // its path's parameters alone (follow, unfollow) takes no body, so it is ignored there as an
    // empty one is; a route that takes a body gives it to the schema as it is, which refuses it
    // with an issue ("expected object, received array"), after the rate limit has counted the
    // attempt (CONTRACT.md, Version 3: the performance body is a JSON object).
    return match.route.takesBody ? body : fields(match.params);
  }
  return fields(body, match.params);
}

/**
 * The sources' fields, later ones winning, on an object without a prototype: a body's own
 * "__proto__" key stays a key instead of becoming the input's prototype.
 */
function fields(...sources: object[]): Record<string, unknown> {
  return Object.assign(Object.create(null), ...sources);
}

/** Runs the matched procedure as tRPC's caller would; its failures are thrown as TRPCErrors. */
export function callRestProcedure(router: AnyRouter, match: Match, input: unknown, ctx: object): Promise<unknown> {
  return runProcedure(router, match.route.procedure, match.route.type, input, ctx);
}
