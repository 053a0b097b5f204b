/**
 * Named schemas for the OpenAPI document, so that code generators give clients `Provider`,
 * `User` or `ProviderPage` instead of one anonymous type per operation. A pass over the finished
 * document, whichever generator made it: each of core's wire schemas (`ProviderSchema` → the
 * component `Provider`) is found where it appears, by walking a procedure's zod output (and
 * body) beside its JSON schema, property by property and item by item; its JSON schema moves to
 * `components.schemas`, and every structurally equal copy in the document becomes a `$ref`.
 *
 * Names are core's, so the document, the routers and the SDK speak of the same types. A schema
 * that appears only under a wrapper (`.optional()`, `.describe()` make new zod schemas) stays
 * inline where it is, as there it is not the same schema.
 */
import { isDeepStrictEqual } from 'node:util';
import * as core from '@signal/core';
import type { AnyProcedure } from '@trpc/server';
import type { OpenAPIV3 } from 'openapi-types';
import type { ZodTypeAny } from 'zod';
import { appRouter } from '../procedures/routers/index.js';
import type { Meta } from '../procedures/trpc.js';

type Schema = OpenAPIV3.SchemaObject | OpenAPIV3.ReferenceObject;
type Node = Record<string, unknown> | unknown[];

const REF_PREFIX = '#/components/schemas/';
const SUFFIX = 'Schema';

/** An operation's answer (or body) beside the zod schema it was generated from. */
export interface SchemaSource {
  path: string;
  method?: OpenAPIV3.HttpMethods;
  schema: ZodTypeAny;
}

function isZodSchema(value: unknown): value is ZodTypeAny {
  return typeof value === 'object' && value !== null && typeof (value as ZodTypeAny).safeParse === 'function';
}

/** Core's exported wire schemas by the name of their type (`ProviderSchema` → `Provider`). */
function coreSchemaNames(): Map<ZodTypeAny, string> {
  const names = new Map<ZodTypeAny, string>();
  for (const [exported, value] of Object.entries(core)) {
    if (exported.endsWith(SUFFIX) && isZodSchema(value) && !names.has(value)) {
      names.set(value, exported.slice(0, -SUFFIX.length));
    }
  }
  return names;
}

function jsonContent(holder: OpenAPIV3.ResponseObject | OpenAPIV3.RequestBodyObject | undefined): Schema | undefined {
  return holder?.content?.['application/json']?.schema;
}

/** Every procedure's answer, and its body where the whole input is the body, with their zod schemas. */
function procedureSources(doc: OpenAPIV3.Document): { json: Schema | undefined; schema: ZodTypeAny }[] {
  const sources: { json: Schema | undefined; schema: ZodTypeAny }[] = [];
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;
  for (const procedure of Object.values(procedures)) {
    const def = procedure._def as { meta?: Meta; inputs?: unknown[]; output?: unknown };
    const openapi = def.meta?.openapi;
    if (!openapi) continue;
    const operation = doc.paths[openapi.path]?.[openapi.method.toLowerCase() as OpenAPIV3.HttpMethods];
    if (!operation) continue;
    if (isZodSchema(def.output)) {
      const success = operation.responses[openapi.successStatus ?? 200] as OpenAPIV3.ResponseObject;
      sources.push({ json: jsonContent(success), schema: def.output });
    }
    // With path or query parameters the body is what is left of the input, not the input's schema.
    const input = def.inputs?.[0];
    if (isZodSchema(input) && (operation.parameters?.length ?? 0) === 0 && operation.requestBody) {
      sources.push({ json: jsonContent(operation.requestBody as OpenAPIV3.RequestBodyObject), schema: input });
    }
  }
  return sources;
}

/** The schema inside `.optional()`, else undefined. */
function optionalInner(schema: ZodTypeAny): ZodTypeAny | undefined {
  const def = (schema as { _zod?: { def?: { type?: string; innerType?: unknown } } })._zod?.def;
  const optional = def?.type === 'optional';
  return optional && isZodSchema(def?.innerType) ? def.innerType : undefined;
}

/**
 * Records every named zod schema met while walking `schema` beside its JSON schema. Objects
 * map to `properties`, arrays to `items`, and an optional property's JSON schema is its inner
 * schema's (the property is only left out of `required`), so the walk goes on inside; anything
 * else (nullable, defaults, unions) ends it.
 */
function locate(
  schema: ZodTypeAny,
  json: Schema | undefined,
  names: Map<ZodTypeAny, string>,
  found: Map<string, OpenAPIV3.SchemaObject>,
): void {
  if (!json || '$ref' in json) return;
  const name = names.get(schema);
  if (name && !found.has(name)) found.set(name, structuredClone(json));
  const inner = optionalInner(schema);
  // Not named itself: `.optional().describe()` may have given the JSON a description of its own.
  if (inner) schema = inner;
  const { shape, element } = schema as { shape?: unknown; element?: unknown };
  if (shape && typeof shape === 'object') {
    for (const [key, field] of Object.entries(shape)) {
      if (isZodSchema(field)) locate(field, json.properties?.[key], names, found);
    }
  } else if (isZodSchema(element) && json.type === 'array') {
    locate(element, json.items, names, found);
  }
}

/**
 * Replaces, below `node`, every object structurally equal to `schema` by `{ $ref }`. Examples
 * and defaults are data, not schemas: left alone.
 */
function replaceCopies(node: Node, schema: OpenAPIV3.SchemaObject, ref: string): void {
  const entries: [string | number, unknown][] = Array.isArray(node) ? [...node.entries()] : Object.entries(node);
  for (const [key, value] of entries) {
    if (key === 'example' || key === 'examples' || key === 'default') continue;
    if (typeof value !== 'object' || value === null) continue;
    if (isDeepStrictEqual(value, schema)) (node as Record<string | number, unknown>)[key] = { $ref: ref };
    else replaceCopies(value as Node, schema, ref);
  }
}

/**
 * Moves each of core's wire schemas that the document holds into `components.schemas` under
 * its name, and points every copy of it at the component. `services` are the host's own GET
 * endpoints (not procedures), with the schemas of their answers. Components already there
 * (ErrorBody) are named the same way when core has their schema.
 */
export function nameComponentSchemas(doc: OpenAPIV3.Document, services: readonly SchemaSource[] = []): void {
  const names = coreSchemaNames();
  const byName = new Map([...names].map(([schema, name]) => [name, schema]));
  const schemas: Record<string, Schema> = { ...doc.components?.schemas };
  const sources = [
    ...procedureSources(doc),
    ...services.map(({ path, method = 'get' as OpenAPIV3.HttpMethods, schema }) => ({
      json: jsonContent(doc.paths[path]?.[method]?.responses[200] as OpenAPIV3.ResponseObject | undefined),
      schema,
    })),
    ...Object.entries(schemas).flatMap(([name, json]) => {
      const schema = byName.get(name);
      return schema ? [{ json, schema }] : [];
    }),
  ];
  const found = new Map<string, OpenAPIV3.SchemaObject>();
  for (const { json, schema } of sources) locate(schema, json, names, found);

  // Smallest first: a schema holding another is larger, so by its turn its copies (and its
  // own found copy) already refer to the smaller one, and still compare equal.
  const pending = [...found].sort(([, a], [, b]) => JSON.stringify(a).length - JSON.stringify(b).length);
  while (pending.length > 0) {
    const [name, schema] = pending.shift() as [string, OpenAPIV3.SchemaObject];
    const ref = `${REF_PREFIX}${name}`;
    replaceCopies(doc.paths as Node, schema, ref);
    // Inside the components, never a component itself: it would become a reference to itself.
    for (const value of [...Object.values(schemas), ...pending.map(([, later]) => later)]) {
      replaceCopies(value as Node, schema, ref);
    }
    schemas[name] = schema;
  }
  doc.components = {
    ...doc.components,
    schemas: Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/**
 * The server reads JSON bodies with zod's default object parse, which drops fields it does not
 * know (docs/api.md: "Unknown JSON fields are ignored"). Generators write such objects as
 * `additionalProperties: false`, which would tell clients and validators that an extra field
 * is refused: request bodies say what the server does instead.
 */
export function acceptUnknownBodyFields(doc: OpenAPIV3.Document): void {
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item ?? {})) {
      const body = (operation as OpenAPIV3.OperationObject).requestBody as OpenAPIV3.RequestBodyObject | undefined;
      for (const media of Object.values(body?.content ?? {})) {
        if (media.schema) allowAdditional(media.schema);
      }
      if (body) body.description ??= 'A JSON object; fields not listed here are ignored.';
    }
  }
}

function allowAdditional(schema: Schema): void {
  if ('$ref' in schema) return;
  if (schema.additionalProperties === false) delete schema.additionalProperties;
  for (const property of Object.values(schema.properties ?? {})) allowAdditional(property);
  if (schema.type === 'array') allowAdditional(schema.items);
  for (const part of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) allowAdditional(part);
}
