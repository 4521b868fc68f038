import { callHook } from '../guards/call-hook.ts';
import { errorResponse } from '../errors.ts';
import { checkOptionNames } from '../guards/check-option-names.ts';
import { contentSecurityPolicy, docsPage, INIT_SCRIPT } from './docs-page.ts';
import { inflated, RENDERER_FILES, type RendererFile, rendererFiles } from './renderer-assets.ts';
import type { CreateDocsHandlerOptions } from './types.ts';

/** The default `path`: the page is at `/docs`. */
export const DEFAULT_DOCS_PATH = '/docs';
/** The default `documentUrl`: the document a plant store's `fetch` serves. */
export const DEFAULT_DOCUMENT_URL = '/openapi.json';
const DEFAULT_TITLE = 'OpenAPI Plant Store: API reference';
// The files change only with the package; an hour keeps a reload cheap and an upgrade quick.
const FILE_CACHE = 'public, max-age=3600';
const PATH = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/;
const DOCUMENT_URL = /^(?:\/|https?:\/\/)[^\s]*$/i;
export const DOCS_OPTIONS: readonly string[] = ['path', 'documentUrl', 'title', 'onError'];

/** Whether a name below the page's path is one of its files (else it is the page). */
export function isDocsFile(name: string): boolean {
  return name === 'init.js' || RENDERER_FILES.has(name);
}

/**
 * Creates the handler of the interactive API reference, a Swagger UI page of the OpenAPI document.
 *
 * On the page a person enters a bearer token under "Authorize" and sends a create with "Try it
 * out". The handler answers `GET` and `HEAD` only (else `405`): a request whose last path segment
 * names one of the page's files gets that file, any other gets the page, so it can be mounted
 * under any prefix as long as `path` says where the browser sees it. Every file comes from the
 * installed package, never a CDN, and the page's Content-Security-Policy lets it call nothing but
 * its own origin (and the document's).
 *
 * @param options Where the page is, the document it renders, its title and `onError`.
 * @returns The handler.
 * @throws {TypeError} When an option is malformed or its name unknown.
 * @example
 * ```ts
 * import { createDocsHandler } from 'plant-store/docs';
 *
 * const docs = createDocsHandler();
 * const page = await docs(new Request('http://localhost/docs'));
 * page.headers.get('content-type'); // 'text/html; charset=utf-8'
 * ```
 */
export function createDocsHandler(
  options: CreateDocsHandlerOptions = {},
): (request: Request) => Promise<Response> {
  return docsHandler(options, undefined);
}

/** `createDocsHandler`, whose page may also call `apiOrigin` (a store's `publicUrl`). */
export function docsHandler(
  options: CreateDocsHandlerOptions,
  apiOrigin: string | undefined,
): (request: Request) => Promise<Response> {
  const {
    path = DEFAULT_DOCS_PATH,
    documentUrl = DEFAULT_DOCUMENT_URL,
    title = DEFAULT_TITLE,
    onError = console.error,
  } = options ?? {};
  checkOptionNames('createDocsHandler', options, DOCS_OPTIONS);
  checkOptions(path, documentUrl, title, onError);
  const page = docsPage(path, documentUrl, title, false);
  const pageBelow = docsPage(path, documentUrl, title, true);
  const pageHeaders = {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(documentUrl, apiOrigin),
    'cache-control': 'no-cache',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
  const initHeaders = {
    'content-type': 'text/javascript; charset=utf-8',
    'cache-control': FILE_CACHE,
    'x-content-type-options': 'nosniff',
  };

  return async (request) => {
    const { method } = request;
    if (method !== 'GET' && method !== 'HEAD') {
      const response = errorResponse('ERR_METHOD_NOT_ALLOWED');
      response.headers.set('allow', 'GET, HEAD');
      return response;
    }
    const head = method === 'HEAD';
    const { pathname } = new URL(request.url);
    const name = pathname.slice(pathname.lastIndexOf('/') + 1);
    if (name === 'init.js')
      return new Response(head ? null : INIT_SCRIPT, { headers: initHeaders });
    if (!RENDERER_FILES.has(name)) {
      const html = pathname.endsWith('/') ? pageBelow : page;
      return new Response(head ? null : html, { headers: pageHeaders });
    }
    try {
      const file = (await rendererFiles()).get(name) as RendererFile;
      return await fileResponse(request, file, head);
    } catch (error) {
      callHook(onError, error);
      return errorResponse('ERR_INTERNAL');
    }
  };
}

/** A renderer file, gzipped as packed when the client takes gzip, else inflated. */
async function fileResponse(
  request: Request,
  file: RendererFile,
  head: boolean,
): Promise<Response> {
  const gzip = acceptsGzip(request.headers.get('accept-encoding'));
  // Two encodings are two representations: each has its own tag.
  const etag = gzip ? `${file.etag.slice(0, -1)}-gzip"` : file.etag;
  const headers: Record<string, string> = {
    'content-type': file.type,
    'cache-control': FILE_CACHE,
    etag,
    vary: 'Accept-Encoding',
    'x-content-type-options': 'nosniff',
  };
  if (request.headers.get('if-none-match') === etag) {
    return new Response(null, { status: 304, headers });
  }
  if (gzip) {
    headers['content-encoding'] = 'gzip';
    return new Response(head ? null : file.gzip, { headers });
  }
  return new Response(head ? null : await inflated(file), { headers });
}

/** Whether `Accept-Encoding` takes gzip (RFC 9110 section 12.5.3): listed, and not at q=0. */
function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  for (const entry of header.split(',')) {
    const [coding = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') continue;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

function checkOptions(path: unknown, documentUrl: unknown, title: unknown, onError: unknown): void {
  if (typeof path !== 'string' || !PATH.test(path)) {
    throw new TypeError(
      `path must be a URL path such as /docs (a leading slash, no trailing slash), got ${JSON.stringify(path)}`,
    );
  }
  if (typeof documentUrl !== 'string' || !DOCUMENT_URL.test(documentUrl)) {
    throw new TypeError(
      `documentUrl must be a path such as /openapi.json or an http(s) URL, got ${JSON.stringify(documentUrl)}`,
    );
  }
  if (typeof title !== 'string') throw new TypeError('title must be a string');
  if (typeof onError !== 'function') throw new TypeError('onError must be a function');
}
