import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  createPlantClient,
  type ErrorBody,
  type NewPlant,
  type Plant,
  PlantClientError,
} from '../../lib/client.ts';
import { createPlantStore, createStaticTokenVerifier, openApiDocument } from '../../lib/index.ts';
import { errorAnswer, scriptedFetch } from '../support/client-helpers.ts';

// The type-level half: `tsc --noEmit` (npm test's first step) fails when the client's types and
// the document disagree. `Same<A, B>` is `true` only when A and B are the same type.
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];
type Schemas = (typeof openApiDocument)['components']['schemas'];
type NewPlantOwn = Schemas['NewPlant']['allOf'][1];
type Statuses = keyof (typeof openApiDocument)['paths']['/plants']['post']['responses'];

const typeChecks: Record<string, true> = {
  plantFields: true satisfies Same<keyof Plant, keyof Schemas['Plant']['properties']>,
  plantRequired: true satisfies Same<RequiredKeys<Plant>, Schemas['Plant']['required'][number]>,
  newPlantFields: true satisfies Same<
    keyof NewPlant,
    keyof Schemas['Plant']['properties'] | keyof NewPlantOwn['properties']
  >,
  newPlantRequired: true satisfies Same<
    RequiredKeys<NewPlant>,
    Schemas['Plant']['required'][number] | NewPlantOwn['required'][number]
  >,
  errorFields: true satisfies Same<keyof ErrorBody, keyof Schemas['Error']['properties']>,
  errorRequired: true satisfies Same<RequiredKeys<ErrorBody>, Schemas['Error']['required'][number]>,
  // The one success the client resolves with is the only one the document declares.
  success: true satisfies Same<Extract<Statuses, `2${string}`>, '200'>,
};

/** The document `fetch` serves, as a client generator reads it. */
async function servedDocument() {
  const store = createPlantStore({ verifier: createStaticTokenVerifier(['t']) });
  const response = await store.fetch(new Request('http://localhost/openapi.json'));
  return (await response.json()) as typeof openApiDocument;
}

describe("plant-store/client's types", () => {
  it('match the served document: Plant, NewPlant and Error fields and which are required', async () => {
    assert.ok(Object.values(typeChecks).every(Boolean));
    // The type checks above read the document in the source; the served one is the same.
    const served = await servedDocument();
    assert.deepEqual(served.components.schemas, openApiDocument.components.schemas);
    assert.deepEqual(served.components.schemas.Plant.required, ['name']);
    assert.deepEqual(served.components.schemas.Error.required, ['error', 'message']);
  });

  it('resolve every declared success and reject every declared error status with its Error body', async () => {
    const served = await servedDocument();
    for (const status of Object.keys(served.paths['/plants'].post.responses).map(Number)) {
      const answer = status === 200 ? Response.json({ name: 'Fern' }) : errorAnswer(status, {});
      const { fetch } = scriptedFetch(answer);
      const client = createPlantClient({
        baseUrl: 'http://127.0.0.1:1',
        token: 't',
        fetch,
        retry: false,
      });
      const outcome = await client.createPlant({ id: 1n, name: 'Fern' }).catch((e: unknown) => e);
      if (status === 200) {
        assert.deepEqual(outcome, { name: 'Fern' });
        continue;
      }
      assert.ok(outcome instanceof PlantClientError, `${status}: ${String(outcome)}`);
      assert.deepEqual(
        {
          code: outcome.code,
          status: outcome.status,
          error: outcome.error,
          message: outcome.message,
        },
        { code: 'ERR_STATUS', status, error: status, message: `status ${status}` },
      );
    }
  });

  it('reject a body outside the served Error schema as an unexpected response', async () => {
    const served = await servedDocument();
    assert.equal(served.components.schemas.Error.additionalProperties, false);
    for (const body of [{ error: 400 }, { message: 'no status' }, { error: '400', message: 'x' }]) {
      const { fetch } = scriptedFetch(Response.json(body, { status: 400 }));
      const client = createPlantClient({ baseUrl: 'http://127.0.0.1:1', token: 't', fetch });
      await assert.rejects(client.createPlant({ id: 1n, name: 'Fern' }), {
        name: 'PlantClientError',
        code: 'ERR_UNEXPECTED_RESPONSE',
      });
    }
  });
});
