/**
 * The OpenAPI document served at /openapi.json and rendered at /docs. trpc-to-openapi generates
 * the operations from the routers (paths, parameters and schemas from core's zod 4 schemas);
 * this module adds the examples of the procedures' meta, each parameter's default (its input
 * schema's, or the one the procedure applies in code), and replaces the generic error responses
 * (tRPC's codes) with the contract's (error-docs.ts): per operation, one response per status with
 * the ErrorBody schema narrowed to the codes that operation can answer, and an example of each
 * code as the service words it. The fixed text (description, tags, the host's own endpoints) is
 * in document-text.ts. Last, components.ts names the schemas (core's wire types as `$ref`
 * components) and makes request bodies say that unknown fields are ignored.
 */
import { STATUS_CODES } from 'node:http';
import { ERROR_CODES, ErrorBodySchema, type ErrorCode } from '@signal/core';
import type { AnyProcedure } from '@trpc/server';
import type { OpenAPIV3 } from 'openapi-types';
import { generateOpenApiDocument } from 'trpc-to-openapi';
import { type ZodType, z } from 'zod';

import { CATALOGUE_SORT, FIRST_PAGE } from '../procedures/paging.js';
import { appRouter } from '../procedures/routers/index.js';
import type { Meta } from '../procedures/trpc.js';
import { acceptUnknownBodyFields, nameComponentSchemas } from './components.js';
import {
  CACHING_HEADERS,
  CONTACT,
  DESCRIPTION,
  IDEMPOTENCY_KEY_HEADER,
  LICENSE,
  SERVICE_ENDPOINTS,
  type ServiceEndpoint,
  TAGS,
} from './document-text.js';
import {
  ANY_OPERATION,
  errorCodesOf,
  errorResponses,
  forbiddenExample,
  urlTooLongExample,
  validationExample,
} from './error-docs.js';
import { LOG_FILE_PATHS } from './log-files-doc.js';

export type OpenApiDocument = OpenAPIV3.Document;

export const BEARER_SCHEME = 'bearerAuth';
/** Internal services' credential: a service key (or ADMIN_KEY) on the routes that take a scope. */
export const SERVICE_KEY_SCHEME = 'serviceKey';

/** A zod schema as an OpenAPI 3.0 schema object, as the generator converts the routers' answers. */
function schemaOf(schema: ZodType): OpenAPIV3.SchemaObject {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'output' }) as Record<
    string,
    unknown
  >;
  return json as OpenAPIV3.SchemaObject;
}

function serviceOperation(endpoint: ServiceEndpoint): OpenAPIV3.OperationObject {
  return {
    operationId: `service-${endpoint.path.replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`,
    summary: endpoint.summary,
    description: endpoint.description,
    tags: ['service'],
    responses: {
      200: {
        description: 'Successful response',
        content: { 'application/json': { schema: schemaOf(endpoint.schema), example: endpoint.example } },
      },
      ...errorResponses(
        ERROR_CODES.filter((code) => ANY_OPERATION.includes(code) || endpoint.errors.includes(code)),
        { VALIDATION_ERROR: urlTooLongExample() },
      ),
    },
  };
}

/**
 * The meta's example in the document: each request field on its parameter (or in the body's
 * example), the answer on the 200. A cursor gets none (see below).
 */
function addExamples(operation: OpenAPIV3.OperationObject, example: NonNullable<Meta['openapi']>['example']): void {
  if (!example) return;
  const request = example.request ?? {};
  for (const parameter of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
    if (parameter.name in request) parameter.example = request[parameter.name];
  }
  const body = (operation.requestBody as OpenAPIV3.RequestBodyObject | undefined)?.content?.['application/json'];
  if (body) {
    const named = new Set(((operation.parameters ?? []) as OpenAPIV3.ParameterObject[]).map((p) => p.name));
    body.example = Object.fromEntries(Object.entries(request).filter(([name]) => !named.has(name)));
  }
  const ok = (operation.responses[200] as OpenAPIV3.ResponseObject | undefined)?.content?.['application/json'];
  if (ok && example.response !== undefined) ok.example = example.response;
}

/**
 * The defaults the procedures apply in code rather than in their input schema: `page` and the
 * catalogue's sort are optional there, so that a cursor's own can be told apart (paging.ts).
 */
const CODE_DEFAULTS: Record<string, unknown> = { page: FIRST_PAGE, ...CATALOGUE_SORT };

/** The input object's field `name`, if it has one. */
const inputField = (input: ZodType | undefined, name: string) =>
  (input as { shape?: Record<string, ZodType> } | undefined)?.shape?.[name];

/** Whether the input object refuses `name` missing. */
function isRequired(input: ZodType | undefined, name: string): boolean {
  const field = inputField(input, name);
  return field !== undefined && !field.safeParse(undefined).success;
}

/** The default of an input field: its schema's (`.default(…)`), else the one the code applies. */
function parameterDefault(input: ZodType | undefined, name: string): unknown {
  const field = inputField(input, name);
  const def = (field as { _zod?: { def?: { type?: string; defaultValue?: unknown } } } | undefined)?._zod?.def;
  return def?.type === 'default' ? def.defaultValue : CODE_DEFAULTS[name];
}

/** The 200's caching headers, and the 304 a matching If-None-Match gets. */
function cachingResponses(success: OpenAPIV3.ResponsesObject): OpenAPIV3.ResponsesObject {
  const ok = success[200] as OpenAPIV3.ResponseObject | undefined;
  if (ok) ok.headers = { ...ok.headers, ...CACHING_HEADERS };
  return { 304: { description: NOT_MODIFIED, headers: CACHING_HEADERS } };
}

const NOT_MODIFIED = 'Not modified: the If-None-Match tag is still current (no body; no Authorization header only)';

/** The meta's other statuses (`alsoAnswers`): a 200 beside a 201 carries the success's body. */
function alsoAnswered(statuses: Meta['alsoAnswers'], success: OpenAPIV3.ResponseObject): OpenAPIV3.ResponsesObject {
  const responses: OpenAPIV3.ResponsesObject = {};
  for (const { status, description } of statuses ?? []) {
    responses[status] = { ...success, description: description ?? success.description };
  }
  return responses;
}

/**
 * zod 4 writes its own ISO 8601 regular expression beside `format: date-time` (400 characters
 * per timestamp field); the format says the same to every reader of the document.
 */
function dropDateTimePatterns(node: unknown): void {
  if (typeof node !== 'object' || node === null) return;
  const schema = node as Record<string, unknown>;
  if (schema.format === 'date-time' && typeof schema.pattern === 'string') delete schema.pattern;
  for (const [key, value] of Object.entries(schema)) {
    if (key !== 'example' && key !== 'examples') dropDateTimePatterns(value);
  }
}

/**
 * The document. Its server is `/`, resolved by clients against the URL they fetched it from,
 * so it is the same for every Host and "Try it" on /docs calls the origin that served the page.
 */
export function buildOpenApiDocument(): OpenApiDocument {
  const doc = generateOpenApiDocument(appRouter, {
    // 3.0: what every generator, validator and Swagger UI release reads; 3.1 adds nothing used here.
    openApiVersion: '3.0.3',
    title: 'Signal provider service',
    description: DESCRIPTION,
    version: '0.1.0',
    baseUrl: '/',
    tags: TAGS.map((tag) => tag.name),
    securitySchemes: {
      [BEARER_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'The `token` from POST /auth/verify, valid 30 days. EdDSA (or ES256) JWT, verifiable with the keys at ' +
          '/.well-known/jwks.json.',
      },
      [SERVICE_KEY_SCHEME]: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'sgk_ service key',
        description:
          'A service key for internal services, e.g. `Authorization: Bearer sgk_Qm3xV8pLr2YwT0nB5cKd9HfJ1sA7gE4uZ6vN8iOq3Xy` ' +
          "(`sgk_` and 43 base64url characters), created with POST /admin/keys, or the operator's ADMIN_KEY (every " +
          'scope). Each such operation names the scope it needs. See docs/operators.md.',
      },
    },
  }) as unknown as OpenApiDocument;
  doc.info = { ...doc.info, contact: CONTACT, license: LICENSE };
  doc.servers = [{ url: '/', description: 'This server (the origin that served this document)' }];
  doc.tags = TAGS;

  // tRPC keeps every procedure of the tree in one flat record, keyed by its dotted path.
  const procedures = appRouter._def.procedures as unknown as Record<string, AnyProcedure>;
  const idempotent: OpenAPIV3.OperationObject[] = [];
  for (const procedure of Object.values(procedures)) {
    const meta = procedure._def.meta as Meta | undefined;
    if (!meta?.openapi) continue;
    const method = meta.openapi.method.toLowerCase() as OpenAPIV3.HttpMethods;
    const operation = doc.paths[meta.openapi.path]?.[method];
    if (!operation) throw new Error(`OpenAPI: no operation for ${meta.openapi.method} ${meta.openapi.path}`);
    const input = (procedure._def as unknown as { inputs?: ZodType[] }).inputs?.[0];
    const validation = validationExample(input);
    // The generator lists every scheme on a protected operation; each takes exactly one.
    if (operation.security && !meta.scope) operation.security = [{ [BEARER_SCHEME]: [] }];
    // No credential, or either kind (an empty requirement is OpenAPI's "none needed").
    if (meta.credential === 'optional')
      operation.security = [{}, { [BEARER_SCHEME]: [] }, { [SERVICE_KEY_SCHEME]: [] }];
    if (meta.scope) {
      operation.security = [{ [SERVICE_KEY_SCHEME]: [] }];
      operation.description = `${operation.description ?? ''}\n\nTakes a service key with the scope \`${meta.scope}\` (or ADMIN_KEY); a user's token is refused with 403.`;
    }
    addExamples(operation, meta.openapi.example);
    if (meta.idempotent) idempotent.push(operation);
    // The generator's own error responses (tRPC's codes) give way to the contract's below.
    const ok = operation.responses[200];
    if (!ok) throw new Error(`OpenAPI: no 200 for ${meta.openapi.method} ${meta.openapi.path}`);
    const successStatus = meta.openapi.successStatus;
    if (successStatus) (ok as OpenAPIV3.ResponseObject).description = STATUS_CODES[successStatus] ?? 'Success';
    const success: OpenAPIV3.ResponsesObject = { [successStatus ?? 200]: ok };
    // Every procedure reads the database, so each can answer SERVICE_UNAVAILABLE.
    const own: ErrorCode[] = [...(meta.errors ?? []), 'SERVICE_UNAVAILABLE'];
    operation.responses = {
      ...success,
      // The public reads that carry an ETag and a public Cache-Control: their meta says so (procedures/cache-policy.ts).
      ...(meta.cache ? cachingResponses(success) : {}),
      ...alsoAnswered(meta.alsoAnswers, ok as OpenAPIV3.ResponseObject),
      ...errorResponses(errorCodesOf(operation, method, own, meta.scope !== undefined), {
        VALIDATION_ERROR: validation ?? urlTooLongExample(),
        // The refusal of the other kind of credential, as this operation words it.
        FORBIDDEN: forbiddenExample(meta.scope),
      }),
    };
    // `cursor` has no example on purpose: a cursor only comes from an answer of this server
    // (sealed with its key), and Swagger UI would put an example into "Try it out" beside `page`.
    for (const parameter of (operation.parameters ?? []) as OpenAPIV3.ParameterObject[]) {
      // The generator leaves `required` off a path parameter whose schema is a preprocess (REST
      // sends digits); OpenAPI requires it on every path parameter.
      if (parameter.in === 'path') parameter.required = true;
      // Likewise a query parameter behind a preprocess (index, size, from, to: a black-box audit
      // found them unmarked): required when its schema refuses it missing.
      if (parameter.in === 'query' && isRequired(input, parameter.name)) parameter.required = true;
      const schema = parameter.schema as OpenAPIV3.SchemaObject | undefined;
      // The description on the parameter, where readers look (the generator puts an optional
      // one's only in its schema, a required one's in both).
      if (schema?.description !== undefined) {
        parameter.description ??= schema.description;
        delete schema.description;
      }
      // Optional in the schema so that a cursor's own sort can be told apart, or behind a
      // preprocess the generator does not see through; the defaults without one are these.
      const fallback = parameterDefault(input, parameter.name);
      if (fallback !== undefined) parameter.schema = { ...parameter.schema, default: fallback };
    }
  }
  for (const endpoint of SERVICE_ENDPOINTS) doc.paths[endpoint.path] = { get: serviceOperation(endpoint) };
  // The log's files: text and bytes from the host's own handlers (log-files-doc.ts).
  Object.assign(doc.paths, LOG_FILE_PATHS);

  doc.components = {
    securitySchemes: doc.components?.securitySchemes ?? {},
    schemas: { ErrorBody: schemaOf(ErrorBodySchema) },
  };
  acceptUnknownBodyFields(doc);
  dropDateTimePatterns(doc.paths);
  nameComponentSchemas(doc, SERVICE_ENDPOINTS);
  // Last: the components above read the query and path parameters to tell what the body is.
  for (const operation of idempotent)
    operation.parameters = [...(operation.parameters ?? []), { ...IDEMPOTENCY_KEY_HEADER }];
  return doc;
}
