// The OpenAPI 3.1 document of the Plant Store API, with every status the operation really answers.

const errorContent = {
  'application/json': { schema: { $ref: '#/components/schemas/Error' } },
} as const;

function errorResponseObject(description: string) {
  return { description, content: errorContent };
}

const DESCRIPTION = 'Create a plant with `POST /plants` and a bearer token.';

const challenge = {
  description: 'Bearer realm="plant-store", plus error="invalid_token" for a rejected token.',
  required: true,
  schema: { type: 'string' },
} as const;

/**
 * The OpenAPI 3.1.0 document of the Plant Store API.
 *
 * It holds `POST /plants` with every status it answers, the `Plant`, `NewPlant` and `Error`
 * schemas, the `bearerAuth` scheme and the `404`/`405` responses. Its server is `.`, the
 * directory the document is served from: a store's `fetch` serves it at
 * `GET <basePath>/openapi.json`, so readers resolve `.` to the API behind any proxy. A store with
 * `publicUrl` serves it with that URL as its server.
 *
 * @example
 * ```ts
 * import { openApiDocument } from 'plant-store';
 *
 * openApiDocument.paths['/plants'].post.operationId; // 'createPlant'
 * ```
 */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'OpenAPI Plant Store',
    version: '1.0.0',
    description: DESCRIPTION,
    contact: { name: 'The plant-store maintainers' },
    license: { name: 'MIT', identifier: 'MIT' },
  },
  // Its own directory, which is the API's base wherever a proxy or framework puts it; an absolute
  // path would resolve to a stripping proxy's root, another app, which would get the token.
  servers: [{ url: '.' }],
  security: [{ bearerAuth: [] }],
  tags: [{ name: 'plants', description: 'The plants in the store.' }],
  paths: {
    '/plants': {
      post: {
        operationId: 'createPlant',
        tags: ['plants'],
        summary: 'Creates a new plant in the store',
        description:
          'The same id with the same name and tag again is a 200 that changes nothing (a safe retry); with different ones, a 409.',
        security: [{ bearerAuth: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } },
          },
        },
        responses: {
          '200': {
            description: 'The plant is stored.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Plant' } } },
          },
          '400': errorResponseObject('Unexpected error: no body, or not UTF-8 JSON of a NewPlant.'),
          '401': {
            description: 'No valid bearer token.',
            headers: { 'WWW-Authenticate': challenge },
            content: errorContent,
          },
          '409': errorResponseObject('Another plant has this id.'),
          '413': errorResponseObject('The body is over the size limit.'),
          '415': errorResponseObject('Not application/json (charset utf-8).'),
          '500': errorResponseObject('Internal error.'),
          '501': errorResponseObject('A transfer coding other than chunked.'),
          '503': {
            description:
              'The deadline passed, or the store is unavailable for now (then with Retry-After); a retry is safe.',
            headers: {
              'Retry-After': {
                description: 'The seconds to wait before a retry.',
                schema: { type: 'integer', minimum: 0 },
              },
            },
            content: errorContent,
          },
          '507': errorResponseObject('The store is full: no new id is taken.'),
        },
      },
    },
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer' },
    },
    schemas: {
      Plant: {
        type: 'object',
        required: ['name'],
        properties: {
          name: {
            type: 'string',
            description: 'The name of the plant, without U+0000.',
          },
          tag: {
            type: 'string',
            description: 'The type of the plant, without U+0000.',
          },
        },
      },
      NewPlant: {
        allOf: [
          { $ref: '#/components/schemas/Plant' },
          {
            type: 'object',
            required: ['id'],
            properties: {
              id: {
                type: 'integer',
                format: 'int64',
                description: 'The id, chosen by the caller; kept exactly.',
              },
            },
          },
        ],
      },
      Error: {
        type: 'object',
        required: ['error', 'message'],
        additionalProperties: false,
        properties: {
          error: { type: 'integer', format: 'int32', description: 'The HTTP status.' },
          message: { type: 'string', description: 'Text describing the error.' },
        },
      },
    },
    responses: {
      NotFound: errorResponseObject('No such path.'),
      MethodNotAllowed: {
        description: 'The method is not allowed on this path.',
        headers: {
          Allow: {
            description: 'The allowed methods.',
            required: true,
            schema: { type: 'string' },
          },
        },
        content: errorContent,
      },
    },
  },
} as const;

/** The JSON `fetch` serves: the document, `publicUrl` its server when set; `describe` adds CORS. */
export function openApiJsonFor(
  publicUrl: string | undefined,
  describe: (document: OpenApiDocument) => object = (document) => document,
): string {
  const document =
    publicUrl === undefined
      ? openApiDocument
      : { ...openApiDocument, servers: [{ url: publicUrl }] };
  return JSON.stringify(describe(document as unknown as OpenApiDocument));
}

export type OpenApiDocument = typeof openApiDocument;
