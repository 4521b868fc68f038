/**
 * A body the host read before the store (a body parser or validator mounted first): a `500`
 * reported to `onError` at once, never a crash or a wait for the deadline.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { plantRequest } from '../support/web-fakes.ts';
import { defineCases, type Handler, json, within } from './context.ts';

/** The cases of a body the host read before the store. */
export const readFirstCases = defineCases('handleCreatePlant: a body the host read first', (it) => {
  // A host that ran a body parser or validator before the store (Hono's validator('json'), a
  // middleware that awaited request.json()) hands over a Request whose body is gone. That once
  // crashed the process with an unhandled rejection, or left the client waiting for the deadline.
  const hostReads: Array<[string, (request: Request) => Promise<unknown>]> = [
    ['read it as text', (request) => request.text()],
    ['parsed it as JSON', (request) => request.json()],
    ['holds a reader on it', async (request) => request.body?.getReader()],
  ];
  // A server's request declares its length (read whole), one built in process may not (a stream).
  const framings: Array<[string, Record<string, string>]> = [
    ['', {}],
    [', the length declared', { 'content-length': String(json({ id: 1, name: 'a' }).length) }],
  ];
  for (const [what, read] of hostReads) {
    for (const [framing, headers] of framings) {
      it(`answers 500 at once and reports ERR_BODY_ALREADY_READ when the host ${what}${framing}`, async (t) => {
        const { store, repository, onError } = t.testStore({ timeoutMs: 60_000 });
        const host: Handler = async (request) => {
          await read(request);
          return store.fetch(request);
        };
        const response = await within(
          5_000,
          t.send(host, plantRequest(json({ id: 1, name: 'a' }), headers)),
          'the client waited for the deadline',
        );
        assert.equal(response.status, 500);
        assert.deepEqual(response.body, {
          error: 500,
          message:
            'internal error: the request body was read before plant-store; mount plant-store before any body parser',
        });
        assert.equal(repository.create.calls.length, 0);
        assert.equal(onError.calls.length, 1);
        const error = onError.calls[0]?.[0] as { code?: string; message?: string };
        assert.equal(error.code, 'ERR_BODY_ALREADY_READ');
        assert.match(String(error.message), /body was read before plant-store/);
        assert.match(String(error.message), /mount plant-store before any body parser/);
      });
    }
  }

  it('still answers 401 without reading anything when the token is missing', async (t) => {
    const { store, onError } = t.testStore();
    const host: Handler = async (request) => {
      await request.text();
      return store.fetch(request);
    };
    const response = await t.send(
      host,
      plantRequest(json({ id: 1, name: 'a' }), { authorization: '' }),
    );
    assert.equal(response.status, 401);
    assert.equal(onError.calls.length, 0);
  });
});
