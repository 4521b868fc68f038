/**
 * Swagger UI's files as `scripts/docs-assets.ts` packs them: gzipped in a JSON module, so every
 * runtime loads them with no file system, on the first request for one.
 * @module
 */

interface PackedFile {
  readonly type: string;
  readonly size: number;
  readonly gzip: string;
}

interface PackedAssets {
  readonly version: string;
  readonly files: Readonly<Record<string, PackedFile>>;
}

export interface RendererFile {
  readonly type: string;
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

/** The renderer's files, decoded once; rejects when `npm run docs:assets` has not packed them. */
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

/** A file's bytes for a client that does not take gzip: inflated once and kept. */
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
