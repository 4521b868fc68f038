/// <reference lib="deno.ns" />
/**
 * `plant-store/testing` in a Deno project: the memory repository and the static verifier
 * registered with `Deno.test`, and `checkServer` against a store behind `Deno.serve` and, under
 * Deno's leak sanitizers, against a raw server that never finishes an answer.
 *
 * @module
 */

import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../../../../lib/index.ts';
import {
  checkServer,
  registerRepositoryConformance,
  registerVerifierConformance,
} from '../../../../lib/testing.ts';

registerRepositoryConformance(Deno.test, () => createMemoryRepository());

registerVerifierConformance(Deno.test, () => createStaticTokenVerifier(['s3cr3t']), {
  valid: ['s3cr3t'],
  invalid: ['guess'],
});

Deno.test('checkServer passes every check against a plant store behind Deno.serve', async () => {
  const store = createPlantStore({ verifier: createStaticTokenVerifier(['s3cr3t']) });
  const server = Deno.serve({ hostname: '127.0.0.1', port: 0, onListen() {} }, store.fetch);
  try {
    const report = await checkServer({
      baseUrl: `http://127.0.0.1:${server.addr.port}`,
      token: 's3cr3t',
    });
    const failures = report.failed.map(({ error }) => error.message);
    if (failures.length > 0 || report.passed.length !== 35) throw new Error(failures.join('\n'));
  } finally {
    await server.shutdown();
  }
});

Deno.test(
  'checkServer reads at most 1 MiB of an endless answer and closes every connection when a server never finishes',
  async () => {
    // A raw server: an endless chunked answer to GET, and to anything else a head and no body
    // (no answer at all to the run's first request would end the run there).
    const encoder = new TextEncoder();
    const chunk = encoder.encode(`10000\r\n${'a'.repeat(65_536)}\r\n`);
    const listener = Deno.listen({ hostname: '127.0.0.1', port: 0 });
    const open = new Set<Deno.Conn>();
    const answer = async (conn: Deno.Conn) => {
      const buffer = new Uint8Array(65_536);
      let head = '';
      try {
        while (!head.includes('\r\n\r\n')) {
          const read = await conn.read(buffer);
          if (read === null) return;
          head += new TextDecoder().decode(buffer.subarray(0, read));
        }
        if (head.startsWith('GET ')) {
          await conn.write(encoder.encode('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n'));
          for (;;) await conn.write(chunk);
        }
        await conn.write(encoder.encode('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n'));
        while ((await conn.read(buffer)) !== null);
      } catch {
        // The client left: what this test waits for.
      } finally {
        open.delete(conn);
        conn.close();
      }
    };
    const serving = (async () => {
      for await (const conn of listener) {
        open.add(conn);
        void answer(conn);
      }
    })();
    try {
      const report = await checkServer({
        baseUrl: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
        token: 's3cr3t',
        timeoutMs: 200,
      });
      const messages = report.failed.map(({ error }) => error.message);
      const capped = messages.filter((message) => message.includes('over the 1 MiB'));
      const late = messages.filter((message) => message.endsWith('did not finish within 200 ms'));
      if (report.passed.length !== 0 || capped.length < 3 || late.length < 20) {
        throw new Error(messages.join('\n'));
      }
      // The client closes every connection; nothing here closes one first.
      for (let waited = 0; open.size > 0; waited += 10) {
        if (waited > 2000) throw new Error(`${open.size} connections still open after the run`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      listener.close();
      await serving.catch(() => {});
    }
  },
);
