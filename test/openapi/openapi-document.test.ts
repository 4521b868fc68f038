import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createCors } from '../../lib/cors.ts';
import { createPlantStore, createStaticTokenVerifier, openApiDocument } from '../../lib/index.ts';
import { openApiJsonFor } from '../../lib/openapi/openapi-document.ts';

describe('openApiDocument', () => {
  it('passes an independent OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(openApiDocument)));
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
  });

  it('carries the title, version and license of the specification', () => {
    assert.equal(openApiDocument.openapi, '3.1.0');
    assert.equal(openApiDocument.info.title, 'OpenAPI Plant Store');
    assert.equal(openApiDocument.info.version, '1.0.0');
    assert.equal(openApiDocument.info.license.name, 'MIT');
    // The SPDX identifier (#23): without it or a url, Redocly warns and some validators refuse.
    assert.equal(openApiDocument.info.license.identifier, 'MIT');
  });

  it('declares bearerAuth and applies it to every operation', () => {
    assert.deepEqual(openApiDocument.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
    });
    assert.deepEqual(openApiDocument.security, [{ bearerAuth: [] }]);
    for (const path of Object.values(openApiDocument.paths)) {
      for (const operation of Object.values(path)) {
        assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
      }
    }
  });

  it('declares Plant, NewPlant (Plant plus a required int64 id) and Error (int32 error)', () => {
    const { Plant, NewPlant, Error: ErrorSchema } = openApiDocument.components.schemas;
    assert.deepEqual(Plant.required, ['name']);
    assert.deepEqual(Object.keys(Plant.properties), ['name', 'tag']);
    assert.equal(NewPlant.allOf[0].$ref, '#/components/schemas/Plant');
    assert.deepEqual(NewPlant.allOf[1].required, ['id']);
    assert.equal(NewPlant.allOf[1].properties.id.type, 'integer');
    assert.equal(NewPlant.allOf[1].properties.id.format, 'int64');
    assert.deepEqual(ErrorSchema.required, ['error', 'message']);
    assert.equal(ErrorSchema.properties.error.format, 'int32');
    assert.equal(ErrorSchema.properties.message.type, 'string');
  });

  it('lists every status POST /plants answers, each error an Error body', () => {
    const { post } = openApiDocument.paths['/plants'];
    assert.equal(post.requestBody.required, true);
    assert.equal(
      post.requestBody.content['application/json'].schema.$ref,
      '#/components/schemas/NewPlant',
    );
    assert.deepEqual(Object.keys(post.responses).sort(), [
      '200',
      '400',
      '401',
      '409',
      '413',
      '415',
      '500',
      '501',
      '503',
      '507',
    ]);
    assert.equal(
      post.responses['200'].content['application/json'].schema.$ref,
      '#/components/schemas/Plant',
    );
    for (const [status, response] of Object.entries(post.responses)) {
      if (status === '200') continue;
      assert.equal(
        response.content['application/json'].schema.$ref,
        '#/components/schemas/Error',
        status,
      );
    }
    assert.equal(post.responses['401'].headers['WWW-Authenticate'].required, true);
  });

  it('offers 404 and 405 as reusable Error responses', () => {
    const { NotFound, MethodNotAllowed } = openApiDocument.components.responses;
    assert.equal(NotFound.content['application/json'].schema.$ref, '#/components/schemas/Error');
    assert.equal(
      MethodNotAllowed.content['application/json'].schema.$ref,
      '#/components/schemas/Error',
    );
    assert.equal(MethodNotAllowed.headers.Allow.required, true);
  });

  it('names the server "." when no public URL is given', () => {
    assert.deepEqual(openApiDocument.servers, [{ url: '.' }]);
    assert.equal(openApiJsonFor(undefined), JSON.stringify(openApiDocument));
  });

  it("names the public URL as the served document's one server, the rest unchanged", async () => {
    const served = JSON.parse(openApiJsonFor('https://api.example.com/v1'));
    assert.deepEqual(served.servers, [{ url: 'https://api.example.com/v1' }]);
    assert.deepEqual(
      { ...served, servers: undefined },
      { ...JSON.parse(JSON.stringify(openApiDocument)), servers: undefined },
    );
    const result = await new Validator().validate(served);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  it('declares the CORS headers a browser reads in the document a store with CORS serves, and only then', async () => {
    const served = async (cors?: ReturnType<typeof createCors>) => {
      const store = createPlantStore({ verifier: createStaticTokenVerifier(['t']), cors });
      return (await store.fetch(new Request('http://x/openapi.json'))).json();
    };
    const withCors = await served(createCors({ origins: ['https://app.example'] }));
    const responses = withCors.paths['/plants'].post.responses;
    for (const status of ['200', '401']) {
      assert.deepEqual(
        Object.keys(responses[status].headers).filter((name) => name !== 'WWW-Authenticate'),
        ['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers', 'Vary'],
        status,
      );
    }
    assert.match(withCors.info.description, /\*\*Browsers\.\*\*/);
    const result = await new Validator().validate(withCors);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
    const without = await served();
    assert.equal(without.paths['/plants'].post.responses['200'].headers, undefined);
    assert.doesNotMatch(without.info.description, /Browsers/);
  });
});
