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
  description:
    'The bearer challenge: `Bearer realm="plant-store"`, plus `error="invalid_token"` when a well-formed token was rejected.',
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
    description: 'A sample plant store interface with one operation, which creates a plant.',
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
          'Stores the plant under the id its caller chose. Sending the same id with the same name and tag again answers 200 and changes nothing, so a lost response can be retried safely; the same id with different content answers 409.',
        security: [{ bearerAuth: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } },
          },
        },
        responses: {
          '200': {
            description: 'The plant is stored (now, or already with the same content).',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Plant' } } },
          },
          '400': errorResponseObject(
            'Unexpected error: no body, invalid UTF-8 or JSON, or a body that is not a NewPlant.',
          ),
          '401': {
            description: 'The bearer token is missing, malformed or not accepted.',
            headers: { 'WWW-Authenticate': challenge },
            content: errorContent,
          },
          '409': errorResponseObject('A different plant is already stored under this id.'),
          '413': errorResponseObject('The body is larger than the limit (default 102400 bytes).'),
          '415': errorResponseObject(
            'The content type is not application/json, or its charset is not utf-8.',
          ),
          '500': errorResponseObject('Internal error: storage or token checking failed.'),
          '503': errorResponseObject(
            'The deadline passed before the plant was stored; retrying is safe.',
          ),
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
            description: 'The name of the plant. Well-formed Unicode without U+0000.',
          },
          tag: {
            type: 'string',
            description:
              'A tag that specifies the type of the plant. Well-formed Unicode without U+0000.',
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
                description:
                  'Identification number of the plant, supplied by the caller: an integer from -9223372036854775808 to 9223372036854775807, kept exactly.',
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
            description: 'The methods the path allows.',
            required: true,
            schema: { type: 'string' },
          },
        },
        content: errorContent,
      },
    },
  },
} as const;
