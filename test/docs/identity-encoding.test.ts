/**
 * The renderer's bundle for a client that does not take gzip, in a process of its own so that
 * nothing else has inflated it first: inflating it on every such request let anyone, without a
 * token, make the server do far more work than the gzipped path costs.
 *
 * @module
 */

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { createDocsHandler } from '../../lib/docs.ts';

const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

describe('createDocsHandler', () => {
  it('inflates the bundle once when clients that do not take gzip ask for it again and again', async (t) => {
    let inflates = 0;
    const Original = globalThis.DecompressionStream;
    // Counts the inflates the handler starts; the handler still gets the real stream.
    globalThis.DecompressionStream = class extends Original {
      constructor(format: CompressionFormat) {
        super(format);
        inflates++;
      }
    };
    t.after(() => {
      globalThis.DecompressionStream = Original;
    });
    const original = readFileSync(join(dist, 'swagger-ui-bundle.js'));
    const docs = createDocsHandler();
    const other = createDocsHandler({ path: '/reference' });
    for (const [handler, headers] of [
      [docs, {}],
      [docs, { 'accept-encoding': 'identity' }],
      [other, { 'accept-encoding': 'br, gzip;q=0' }],
      [docs, { 'accept-encoding': 'gzip' }],
    ] as const) {
      const answer = await handler(
        new Request('http://localhost/docs/swagger-ui-bundle.js', { headers }),
      );
      assert.equal(answer.status, 200);
      const bytes = Buffer.from(await answer.arrayBuffer());
      if (headers['accept-encoding'] === 'gzip') {
        assert.equal(answer.headers.get('content-encoding'), 'gzip');
      } else {
        assert.equal(answer.headers.get('content-encoding'), null);
        assert.ok(bytes.equals(original), JSON.stringify(headers));
      }
    }
    assert.equal(inflates, 1);
  });
});
