/**
 * The OpenAPI 3.1 document of the Plant Store API as plant-store serves it: the
 * specification's schemas and its one operation, with every status the operation really
 * answers. `fetch` serves it at `GET /openapi.json`.
 *
 * @module
 */

const errorContent = {
  'application/json': { schema: { $ref: '#/components/schemas/Error' } },
} as const;

/** An Error response with a description. */
function errorResponseObject(description: string) {
  return { description, content: errorContent };
}

const challenge = {
  description: 'Bearer realm="plant-store", plus error="invalid_token" for a rejected token.',
  required: true,
  schema: { type: 'string' },
} as const;

/**
 * The OpenAPI 3.1.0 document: title "OpenAPI Plant Store", version 1.0.0, license MIT, security
 * scheme `bearerAuth`, schemas `Plant`, `NewPlant` and `Error`, the operation `POST /plants`,
 * and the reusable `404`/`405` responses the router answers with.
 *
 * @example
 * ```ts
 * import { openApiDocument } from 'plant-store';
 * openApiDocument.paths['/plants'].post.operationId; // 'createPlant'
 * ```
 */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'OpenAPI Plant Store',
    version: '1.0.0',
    license: { name: 'MIT' },
  },
  servers: [
    {
      url: '{base_url}',
      variables: { base_url: { default: 'http://127.0.0.1:3000' } },
    },
  ],
  security: [{ bearerAuth: [] }],
  paths: {
    '/plants': {
      post: {
        operationId: 'createPlant',
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
          '413': errorResponseObject('The body is over the limit (default 102400 bytes).'),
          '415': errorResponseObject('Not application/json (charset utf-8).'),
          '500': errorResponseObject('Internal error.'),
          '503': errorResponseObject('The deadline passed; a retry is safe.'),
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
