/**
 * The Fastify plugin: a plant store's routes in an encapsulated scope of the host's app, with a
 * content-type parser of its own that reads nothing, so the store gets the raw body whatever
 * parsers the host registered; every answer goes out through Fastify's reply.
 *
 * @module
 */

import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { withDocs } from '../docs.ts';
import {
  answerFetch,
  answerPlain,
  HostedRequest,
  type HostSend,
} from '../node/answer-through-host.ts';
import {
  DEFAULT_DRAIN_TIMEOUT,
  DEFAULT_MAX_DRAIN_BYTES,
  type ListenerConfig,
} from '../node/listener-config.ts';
import type { FetchHandler } from '../node/types.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import type { Reply } from '../operation/plain-request.ts';
import { fetchUnder, routesOf } from '../store/store-routes.ts';
import type { PlantStore } from '../types.ts';

/** Options of the Fastify plugin, beside Fastify's own `prefix`. */
export interface PlantStorePluginOptions {
  /** The store to serve, from `createPlantStore`. */
  readonly store: PlantStore;
  /**
   * Whether to serve the interactive API reference at `<prefix>/docs` too.
   * @default false
   */
  readonly docs?: boolean | undefined;
  /** Fastify's: the path the routes are under, such as `/api`; the document names it too. */
  readonly prefix?: string | undefined;
}

/** The plugin's names, and those Fastify's `register` takes beside them. */
const KNOWN_OPTIONS = ['store', 'docs', 'prefix', 'logLevel', 'logSerializers'];

/**
 * A Fastify plugin serving a plant store: `POST <prefix>/plants`, `GET <prefix>/openapi.json`
 * (its server names the prefix) and, with `docs: true`, the reference at `<prefix>/docs`.
 *
 * The routes answer as `store.fetch` does, status, headers and body, sent through Fastify's
 * reply: the host's hooks (`onSend`, `onResponse`, `@fastify/cors`, `@fastify/helmet`,
 * `@fastify/compress`) run on them as on its own routes. Fastify's `request.id` is the id the
 * store reports, `request.log` hears its faults when it has no `onError`, the Fastify request is
 * `context.host` for its collaborators, and a `bodyLimit` (the app's or the route's) below the
 * store's `maxBodyBytes` is a `413` with the Error body. The plugin's scope is encapsulated and
 * replaces the host's body parsers with one that reads nothing: the store reads the raw body
 * itself (size limit, strict UTF-8, exact int64 ids). Paths under the prefix that are not the
 * store's are the host's (its `404`).
 *
 * @param scope The plugin's encapsulated Fastify instance.
 * @param options The store, `docs`, and Fastify's `prefix`.
 * @param done Fastify's callback.
 * @throws {TypeError} When `store` is missing, the prefix is no URL path, or an option's name
 *   is unknown.
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { createPlantStore, createStaticTokenVerifier } from 'plant-store';
 * import plantStore from 'plant-store/fastify';
 *
 * const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
 * const app = Fastify();
 * app.register(plantStore, { store, prefix: '/api', docs: true });
 * await app.listen({ port: 3000 });
 * ```
 */
export const plantStore: FastifyPluginCallback<PlantStorePluginOptions> = (
  scope,
  options,
  done,
) => {
  let mount: Mount;
  try {
    checkOptionNames('plant-store/fastify', options, KNOWN_OPTIONS);
    mount = mountOf(options.store, scope.prefix, options.docs === true);
  } catch (error) {
    if (error instanceof TypeError && !error.message.startsWith('plant-store/fastify')) {
      error.message = `plant-store/fastify: ${error.message}`;
    }
    // Thrown here it would escape Fastify's boot; handed to `done`, `ready()` rejects with it.
    done(error as Error);
    return;
  }
  const config: ListenerConfig = {
    onError: (error) => scope.log.error({ err: error }, 'plant-store: the handler failed'),
    maxDrainBytes: DEFAULT_MAX_DRAIN_BYTES,
    drainTimeout: DEFAULT_DRAIN_TIMEOUT,
  };
  // Only in this scope: every content type is taken and nothing is read.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null));

  const { base, routes, handlerFor } = mount;
  const viaFetch = (request: FastifyRequest, reply: FastifyReply): void => {
    const req = request.raw;
    const res = reply.raw;
    const handler = handlerFor(req.url) as FetchHandler;
    const hosted = new HostedRequest(req, res, request, undefined, request.id, undefined);
    answerFetch(handler, hosted, req, res, config, sendThrough(reply));
  };

  if (routes === undefined) {
    scope.all(`${base}/plants`, viaFetch);
  } else {
    const route = `${mount.template}${base}/plants`;
    let bodyLimit: number | undefined;
    scope.all(`${base}/plants`, (request, reply) => {
      const req = request.raw;
      const res = reply.raw;
      // The route's limit, or the app's: fixed once the route is registered.
      bodyLimit ??= request.routeOptions.bodyLimit;
      const hosted = new HostedRequest(req, res, request, route, request.id, bodyLimit);
      answerPlain(routes, hosted, req, res, config, sendThrough(reply));
    });
  }
  scope.all(`${base}/openapi.json`, viaFetch);
  if (mount.docs) {
    scope.all(`${base}/docs`, viaFetch);
    scope.all(`${base}/docs/*`, viaFetch);
  }
  done();
};

/** Where a store is mounted in a Fastify scope. */
interface Mount {
  /** The store's base path, below the prefix. */
  readonly base: string;
  /** The prefix as Fastify's routes spell it, parameters included (`/:tenant`), for telemetry. */
  readonly template: string;
  /** The store's plain route, unless the store is a host's own wrapper of one. */
  readonly routes: ReturnType<typeof routesOf>;
  readonly docs: boolean;
  /** The store's handler for a request's target, `undefined` when its prefix cannot be served. */
  readonly handlerFor: (target: string | undefined) => FetchHandler | undefined;
}

/** Where `store` goes under Fastify's `prefix`. */
function mountOf(store: PlantStore, prefix: string, docs: boolean): Mount {
  const api = fetchUnder(store, prefix);
  const handler = docs ? withDocs(api) : api;
  return {
    base: '',
    template: prefix,
    routes: routesOf(store.fetch),
    docs,
    handlerFor: () => handler,
  };
}

/** Sends a store's answers through Fastify's reply, so the host's hooks see them. */
function sendThrough(reply: FastifyReply): HostSend {
  return {
    // A Buffer goes out as it is: a string under a JSON type would get `; charset=utf-8` added.
    reply: (answer: Reply) => {
      reply.code(answer.status).headers(answer.headers).send(Buffer.from(answer.body));
    },
    response: (response: Response) => {
      reply.send(response);
    },
  };
}

// Shown in Fastify's plugin tree and errors.
Object.defineProperty(plantStore, Symbol.for('fastify.display-name'), { value: 'plant-store' });
