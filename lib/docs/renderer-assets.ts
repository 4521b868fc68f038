/**
 * The renderer's files, Swagger UI's built bundle and stylesheet, as `scripts/docs-assets.ts`
 * packed them from `swagger-ui-dist`: gzipped, in a JSON module, so that every runtime (Node,
 * Deno, Bun, a worker's bundler) loads them with the code and no file system. Loaded on the first
 * request for one, so a server that never serves the page never parses them.
 *
 * @module
 */

/** One packed file, as in the JSON module. */
interface PackedFile {
  readonly type: string;
  readonly size: number;
  readonly gzip: string;
}

/** The JSON module's shape. */
interface PackedAssets {
  readonly version: string;
  readonly files: Readonly<Record<string, PackedFile>>;
}

/** A renderer file ready to serve. */
export interface RendererFile {
  /** Its `Content-Type`. */
  readonly type: string;
  /** Its bytes, gzipped. */
  readonly gzip: Uint8Array<ArrayBuffer>;
  /** Its entity tag: the renderer's version and the file's name. */
  readonly etag: string;
}

/** The names the page asks for, below its path. */
export const RENDERER_FILES: ReadonlySet<string> = new Set([
  'swagger-ui-bundle.js',
  'swagger-ui.css',
  'swagger-ui-bundle.js.LICENSE.txt',
]);

let loading: Promise<ReadonlyMap<string, RendererFile>> | undefined;

/**
 * The renderer's files, loaded and decoded once.
 *
 * @returns The files by name; rejects when the packed module is missing (a clone where
 *   `scripts/docs-assets.ts` has not run: `npm ci` runs it).
 */
export function rendererFiles(): Promise<ReadonlyMap<string, RendererFile>> {
  loading ??= import('./assets/swagger-ui.json', { with: { type: 'json' } }).then(
    (module) => unpack(module.default as PackedAssets),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

const inflating = new WeakMap<RendererFile, Promise<Uint8Array<ArrayBuffer>>>();

/**
 * A renderer file's bytes as they are, for a client that does not take gzip: inflated on the
 * first such request and kept, since inflating the bundle costs far more than sending it.
 *
 * @param file One of the files `rendererFiles` resolves to.
 * @returns Its inflated bytes, the same array every time; a failed inflate is tried again next
 *   time.
 */
export function inflated(file: RendererFile): Promise<Uint8Array<ArrayBuffer>> {
  let bytes = inflating.get(file);
  if (bytes === undefined) {
    bytes = new Response(
      new Blob([file.gzip]).stream().pipeThrough(new DecompressionStream('gzip')),
    )
      .arrayBuffer()
      .then(
        (buffer) => new Uint8Array(buffer),
        (error: unknown) => {
          inflating.delete(file);
          throw error;
        },
      );
    inflating.set(file, bytes);
  }
  return bytes;
}

function unpack(assets: PackedAssets): ReadonlyMap<string, RendererFile> {
  const files = new Map<string, RendererFile>();
  for (const [name, file] of Object.entries(assets.files)) {
    const binary = atob(file.gzip);
    const gzip = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) gzip[i] = binary.charCodeAt(i);
    files.set(name, { type: file.type, gzip, etag: `"swagger-ui-${assets.version}-${name}"` });
  }
  return files;
}
