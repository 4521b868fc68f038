/**
 * The Fastify plugin: a plant store's routes in an encapsulated scope of the host's app, with a
 * content-type parser of its own that reads nothing, so the store gets the raw body whatever
 * parsers the host registered.
 *
 * @module
 */

import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { withDocs } from '../docs.ts';
import { toNodeListener } from '../node.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { fetchUnder } from '../store/store-routes.ts';
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
 * The routes answer exactly as `store.fetch` does, status, headers and body, written by
 * `plant-store/node` (so Fastify's `onSend` hooks do not see them: use the store's `cors`
 * option rather than a CORS plugin for these routes). The plugin's scope is encapsulated and
 * replaces the host's body parsers with one that reads nothing: the store reads the raw body
 * itself (size limit, strict UTF-8, exact int64 ids).
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
  const docs = options.docs === true;
  let handler: (request: Request) => Promise<Response>;
  try {
    checkOptionNames('plant-store/fastify', options, KNOWN_OPTIONS);
    handler = handlerFor(options.store, scope.prefix, docs);
  } catch (error) {
    // Thrown here it would escape Fastify's boot; handed to `done`, `ready()` rejects with it.
    done(error as Error);
    return;
  }
  const listener = toNodeListener(handler, {
    onError: (error) => scope.log.error({ err: error }, 'plant-store: the handler failed'),
  });
  // Only in this scope: every content type is taken and nothing is read.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null));

  const serve = (request: FastifyRequest, reply: FastifyReply): void => {
    // plant-store/node writes the response; Fastify must not write a second one.
    reply.hijack();
    listener(request.raw, reply.raw);
  };
  scope.all('/plants', serve);
  scope.all('/openapi.json', serve);
  if (docs) {
    scope.all('/docs', serve);
    scope.all('/docs/*', serve);
  }
  done();
};

/** The store's routes under `prefix`, with the reference page when `docs` is set. */
function handlerFor(
  store: PlantStore,
  prefix: string,
  docs: boolean,
): (request: Request) => Promise<Response> {
  const api = fetchUnder(store, prefix);
  if (!docs) return api;
  return withDocs(api);
}

// Shown in Fastify's plugin tree and errors.
Object.defineProperty(plantStore, Symbol.for('fastify.display-name'), { value: 'plant-store' });
