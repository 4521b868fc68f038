import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { withDocs } from '../docs.ts';
import {
  answerFetch,
  answerPlain,
  answerReply,
  handlersUnder,
  HostedRequest,
  type HostSend,
  NOT_FOUND,
} from '../node/answer.ts';
import { listenerConfigOf } from '../node/to-node-listener.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import type { Reply } from '../operation/plain-request.ts';
import { fetchUnder, routesOf } from '../store/store-routes.ts';
import type { FetchHandler, PlantStore } from '../types.ts';

/** Options of the Fastify plugin, beside Fastify's own `prefix`. */
export interface PlantStorePluginOptions {
  /** The store to serve, from `createPlantStore`. */
  readonly store: PlantStore;
  /**
   * Whether to serve the interactive API reference at `<prefix><basePath>/docs` too.
   * @default false
   */
  readonly docs?: boolean | undefined;
  /** Fastify's own: the path the routes are under (`/api`, `/:tenant`), named in the document. */
  readonly prefix?: string | undefined;
}

/** The plugin's names, and those Fastify's `register` passes on beside them. */
const KNOWN_OPTIONS = ['store', 'docs', 'prefix', 'logLevel', 'logSerializers'];

/**
 * A Fastify 5 plugin serving a plant store under its `prefix` and the store's `basePath`.
 *
 * It answers `POST <prefix><basePath>/plants`, `GET <prefix><basePath>/openapi.json` and, with
 * `docs: true`, the reference at `<prefix><basePath>/docs`; a prefix with parameters (`/:tenant`)
 * is served per request, and other paths are the host's. Answers go out through Fastify's reply,
 * so the host's hooks (`onSend`, `@fastify/cors`, `@fastify/compress`) run on them. The store
 * reports Fastify's `request.id`, `request.log` hears its faults when it has no `onError`, and
 * the Fastify request is `context.host`. The plugin's scope takes every body unparsed, whatever
 * parsers the host registered; a `bodyLimit` below the store's `maxBodyBytes` answers `413`.
 * A missing `store`, a prefix that is no URL path or has a wildcard, or an unknown option name
 * makes `app.ready()` reject with a `TypeError`; Fastify other than 5 refuses the plugin.
 *
 * @param scope The plugin's encapsulated Fastify instance.
 * @param options The store, `docs`, and Fastify's `prefix`.
 * @param done Fastify's callback.
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
  const config = listenerConfigOf({
    onError: (fault) => scope.log.error({ err: fault }, 'plant-store: the handler failed'),
  });
  // Only in this scope: every content type is taken, nothing read, so the store gets the raw body.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null));

  const { base, routes, handlerFor } = mount;
  const viaFetch = (request: FastifyRequest, reply: FastifyReply): void => {
    const req = request.raw;
    const res = reply.raw;
    const handler = handlerFor(req.url);
    if (handler === undefined) {
      answerReply(req, res, config, NOT_FOUND, sendThrough(reply));
      return;
    }
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
      answerPlain(routes.handle, hosted, req, res, config, sendThrough(reply));
    });
  }
  scope.all(`${base}/openapi.json`, viaFetch);
  if (mount.docs) {
    scope.all(`${base}/docs`, viaFetch);
    scope.all(`${base}/docs/*`, viaFetch);
  }
  done();
};

interface Mount {
  readonly base: string;
  /** The prefix as Fastify spells it (`/:tenant`), for telemetry. */
  readonly template: string;
  /** The store's plain routes, unless the store is a host's wrapper of one. */
  readonly routes: ReturnType<typeof routesOf>;
  readonly docs: boolean;
  /** `undefined` when the request's prefix cannot be served. */
  readonly handlerFor: (target: string | undefined) => FetchHandler | undefined;
}

/** A fixed prefix is checked now; one with parameters is resolved per request. */
function mountOf(store: PlantStore, fastifyPrefix: string, docs: boolean): Mount {
  const make = (prefix: string): FetchHandler => {
    const api = fetchUnder(store, prefix);
    return docs ? withDocs(api) : api;
  };
  // Fastify registers `/api/` + `/plants` as `/api/plants`, and `/` + `/plants` as `/plants`.
  const template = fastifyPrefix.endsWith('/') ? fastifyPrefix.slice(0, -1) : fastifyPrefix;
  const routes = routesOf(store?.fetch);
  const base = routes?.basePath ?? '';
  if (template.includes('*')) {
    throw new TypeError(
      `plant-store/fastify: the prefix ${JSON.stringify(fastifyPrefix)} has a wildcard, which ` +
        'leaves no way to tell where the store starts; register it under a prefix of fixed ' +
        'segments, such as /api or /:tenant',
    );
  }
  if (!template.includes(':')) {
    const handler = make(template);
    return { base, template, routes, docs, handlerFor: () => handler };
  }
  // Checked once, so a wrong store fails at registration rather than on the first request.
  make('');
  const segments = template.split('/').length - 1;
  const handlers = handlersUnder(make);
  return {
    base,
    template,
    routes,
    docs,
    handlerFor: (target) => handlers(prefixOf(target ?? '', segments)),
  };
}

/** The first `segments` segments of a request target's path (`/acme` of `/acme/v1/plants`). */
function prefixOf(target: string, segments: number): string {
  const query = target.indexOf('?');
  const path = query === -1 ? target : target.slice(0, query);
  let end = 0;
  for (let i = 0; i < segments && end !== -1; i++) end = path.indexOf('/', end + 1);
  return end === -1 ? path : path.slice(0, end);
}

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

// Fastify names the plugin in its errors, and refuses it at registration in a version other than 5.
Object.defineProperty(plantStore, Symbol.for('fastify.display-name'), { value: 'plant-store' });
Object.defineProperty(plantStore, Symbol.for('plugin-meta'), {
  value: { name: 'plant-store', fastify: '5.x' },
});
