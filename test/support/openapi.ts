/**
 * Checks a response against the OpenAPI document plant-store serves: its status must be one
 * the document declares for the operation, and its JSON body must match the declared schema.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../lib/index.ts';

// The document's schemas, with their refs pointed at $defs so ajv can compile them as is.
const defs = JSON.parse(
  JSON.stringify(openApiDocument.components.schemas).replaceAll(
    '#/components/schemas/',
    '#/$defs/',
  ),
);
const ajv = new Ajv2020({ allErrors: true });
ajv.addFormat('int32', {
  type: 'number',
  validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31,
});
ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
ajv.addSchema({ $id: 'plant-store', $defs: defs });
// Compiled now, at module load: Workers refuse code generation (ajv's) while serving a request.
const validators = new Map(
  Object.keys(defs).map((name) => [
    `#/components/schemas/${name}`,
    ajv.getSchema(`plant-store#/$defs/${name}`),
  ]),
);

type ResponseObject = {
  content?: Record<string, { schema: { $ref: string } }>;
  headers?: Record<string, { required?: boolean }>;
};

const operation = openApiDocument.paths['/plants'].post;

/** The response object the document declares for a status of `POST /plants`, or a component. */
function declaredResponse(where: 'createPlant' | 'NotFound' | 'MethodNotAllowed', status: number) {
  const responses = openApiDocument.components.responses as Record<string, ResponseObject>;
  if (where !== 'createPlant') return responses[where];
  return (operation.responses as Record<string, ResponseObject>)[String(status)];
}

/**
 * Asserts that a response is one the OpenAPI document declares: its status is listed, its
 * content type is the declared one, its body validates against the declared schema (ajv, JSON
 * Schema 2020-12) and its required headers are present. Returns the parsed body.
 *
 * Reads the body: pass a clone if the caller still needs it.
 */
export async function assertMatchesOpenApi(
  response: Response,
  where: 'createPlant' | 'NotFound' | 'MethodNotAllowed' = 'createPlant',
): Promise<unknown> {
  const declared = declaredResponse(where, response.status);
  assert.ok(declared, `status ${response.status} is not declared for ${where}`);
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    if (header.required) assert.ok(response.headers.has(name), `header ${name} is missing`);
  }
  const text = await response.text();
  const [mediaType, media] = Object.entries(declared.content ?? {})[0] ?? [];
  assert.ok(media && mediaType, `no content declared for ${where} ${response.status}`);
  assert.equal(response.headers.get('content-type'), mediaType);
  const body: unknown = JSON.parse(text);
  const validate = validators.get(media.schema.$ref);
  assert.ok(validate, `schema ${media.schema.$ref} not found`);
  assert.ok(
    validate(body),
    `body ${text} breaks ${media.schema.$ref}: ${ajv.errorsText(validate.errors)}`,
  );
  if (media.schema.$ref === '#/components/schemas/Error') {
    assert.equal((body as { error: number }).error, response.status, 'error is not the status');
  }
  return body;
}

/**
 * Where a reader of the document sends `POST /plants`: the document's `server` resolved against
 * the URL it was fetched from (RFC 3986 section 5.2, as OpenAPI 3.1 says of a relative server),
 * then the path appended after a trailing slash is dropped, as Swagger UI does.
 */
export function operationUrl(server: string, documentUrl: string): string {
  return `${new URL(server, documentUrl).href.replace(/\/$/, '')}/plants`;
}
