/**
 * `createErrorHandler` in a real Express app over a real socket, for whichever Express the process
 * resolves (`create-router.test.ts` runs these in Express 5, `test/frameworks/express4.test.ts`
 * in Express 4): under `/:tenant`, a tenant Express cannot decode fails before the router runs,
 * and the handler makes it the Error body; the host's own errors pass it unchanged. No test
 * runner here.
 *
 * @module
 */

import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { createErrorHandler, createRouter } from '../../lib/express.ts';
import { mountStore, TOKEN } from '../support/mount-helpers.ts';
import { withDeadline } from '../support/node-helpers.ts';

const BAD_PATH = { error: 400, message: 'the request path is not valid percent-encoded UTF-8' };

/** A case: its test title, and its run. */
export interface UndecodableMountCase {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/** Serves `app` on a free port for the length of `use`. */
async function serving(app: Express, use: (url: string) => Promise<void>): Promise<void> {
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  try {
    await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

/** An app as a host has it: Express's own error logging on, as outside its `test` env. */
function hostApp(): Express {
  const app = express();
  app.set('env', 'production');
  return app;
}

/** The store under `/:tenant` below its `/v1`, its reference page on, and the handler after it. */
function mountUnderTenant(app: Express): void {
  const plants = createRouter(mountStore({ basePath: '/v1' }).store, { docs: true });
  app.use('/:tenant', plants);
  app.use(createErrorHandler(plants));
}

const create = {
  method: 'POST',
  headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  body: '{"id": 9007199254740993, "name": "Monstera"}',
};

export const UNDECODABLE_MOUNT_CASES: readonly UndecodableMountCase[] = [
  {
    name: 'answers the Error body, and writes nothing to stderr, when Express cannot decode the tenant',
    run: async () => {
      const app = hostApp();
      mountUnderTenant(app);
      const written: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        written.push(String(chunk));
        return write(chunk, ...rest);
      }) as typeof process.stderr.write;
      try {
        await serving(app, async (url) => {
          for (const [path, init] of [
            ['/%E0%A4%A/v1/plants', create],
            ['/%ZZ/v1/plants', create],
            ['/%ZZ/v1/openapi.json', {}],
            ['/%C3%28/v1/docs/init.js', {}],
          ] as const) {
            const response = await withDeadline(fetch(`${url}${path}`, init), path);
            assert.equal(response.status, 400, path);
            assert.equal(response.headers.get('content-type'), 'application/json', path);
            assert.deepEqual(await response.json(), BAD_PATH, path);
          }
          // The connection that carried an unread body still serves a create.
          const created = await fetch(`${url}/acme/v1/plants`, create);
          assert.equal(created.status, 200);
        });
      } finally {
        process.stderr.write = write;
      }
      assert.deepEqual(written, []);
    },
  },
  {
    name: "passes an error on to the host's handlers unchanged when it is no undecodable store path: the host's own, one that throws when read, an undecodable path of the host's",
    run: async () => {
      const app = hostApp();
      const thrown = new Error('the host failed');
      app.get('/boom', () => {
        throw thrown;
      });
      // An error no one can look at: its prototype and every property throw.
      const hostile = new Proxy(new URIError('hostile'), {
        getPrototypeOf: () => {
          throw new Error('no prototype');
        },
        get: () => {
          throw new Error('no property');
        },
      });
      app.get('/:tenant/v1/plants', (_req, _res, next) => next(hostile));
      mountUnderTenant(app);
      const seen: unknown[] = [];
      app.use(
        (
          error: unknown,
          _req: express.Request,
          res: express.Response,
          _next: express.NextFunction,
        ) => {
          seen.push(error);
          res.status(418).json({ host: error === hostile ? 'hostile' : (error as Error).message });
        },
      );
      await serving(app, async (url) => {
        const boom = await fetch(`${url}/boom`);
        assert.equal(boom.status, 418);
        assert.deepEqual(await boom.json(), { host: 'the host failed' });
        assert.equal(seen[0], thrown);
        const profile = await fetch(`${url}/%ZZ/profile`);
        assert.equal(profile.status, 418);
        assert.deepEqual(await profile.json(), { host: "Failed to decode param '%ZZ'" });
        assert.ok(seen[1] instanceof URIError);
        assert.equal((seen[1] as URIError & { status?: number }).status, 400);
        // The store's path one segment further is not the store's either.
        const deeper = await fetch(`${url}/%ZZ/v1/plants/more`);
        assert.equal(deeper.status, 418);
        const hostileAnswer = await fetch(`${url}/acme/v1/plants`);
        assert.equal(hostileAnswer.status, 418);
        assert.equal(seen[3], hostile);
        assert.equal(seen.length, 4);
      });
    },
  },
  {
    name: 'throws a TypeError when the router is not one createRouter made',
    run: async () => {
      assert.throws(() => createErrorHandler(express.Router()), {
        name: 'TypeError',
        message: 'createErrorHandler needs the router createRouter made',
      });
    },
  },
];
