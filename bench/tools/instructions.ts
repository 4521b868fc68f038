/**
 * `instructions.ts`: the CPU instructions one create costs, counted by valgrind's
 * callgrind, so that a change to the core can be judged on a shared, noisy machine where wrk's
 * req/s moves ±15% between runs. The count is repeatable: it does not depend on what else the
 * machine is doing.
 *
 * Runs this file twice under callgrind as a driver (`--creates N`), for 20,000 and 60,000
 * creates, and prints (difference of totals) / 40,000: start-up, module loading and JIT warm-up
 * cancel out. Each create goes through the store's plain-values handler, exactly what the
 * `node:http` fast path calls, with a fresh id and body bytes; the body arrives one event-loop
 * turn later, as from a socket. 50 creates are in flight at once, as under `npm run bench`.
 *
 * Needs `valgrind` (Debian package `valgrind`). Takes one to three minutes.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  createMemoryRepository,
  createPlantStore,
  createStaticTokenVerifier,
} from '../../lib/index.ts';
import type { Reply } from '../../lib/operation/plain-request.ts';
import { plainHandlerOf } from '../../lib/store/plain-handler.ts';
import { TOKEN } from '../servers/_common.ts';

const { values } = parseArgs({ options: { creates: { type: 'string' } } });

/** Creates in flight at once, as wrk's 50 connections keep them. */
const IN_FLIGHT = 50;

async function drive(creates: number): Promise<void> {
  const store = createPlantStore({
    repository: createMemoryRepository(),
    verifier: createStaticTokenVerifier([TOKEN]),
  });
  const found = plainHandlerOf(store.fetch);
  if (found === undefined) throw new Error('the store carries no plain handler');
  const plain = found;
  const client = {
    aborted: false,
    reason: undefined,
    addEventListener() {},
    removeEventListener() {},
  };
  let next = 0;
  async function worker(): Promise<void> {
    for (let i = next++; i < creates; i = next++) {
      const body = Buffer.from(`{"id":${1_000_000_000_000 + i},"name":"Monstera","tag":"aroid"}`);
      const reply = await new Promise<Reply>((answer) =>
        plain.handle(
          {
            method: 'POST',
            authorization: `Bearer ${TOKEN}`,
            contentType: 'application/json',
            origin: null,
            preflightMethod: null,
            declaredLength: body.byteLength,
            hasBody: true,
            readBody: (_maxBytes, sink) => setImmediate(() => sink.take(body)),
            client,
            requestId: () => undefined,
          },
          answer,
        ),
      );
      if (reply.status !== 200) throw new Error(`create ${i} answered ${reply.status}`);
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

function countInstructions(creates: number): number {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=callgrind',
      '--callgrind-out-file=/dev/null',
      process.execPath,
      '--import',
      'tsx',
      fileURLToPath(import.meta.url),
      '--creates',
      String(creates),
    ],
    { encoding: 'utf8' },
  );
  const collected = /Collected : (\d+)/.exec(run.stderr ?? '');
  if (run.status !== 0 || collected === null) {
    throw new Error(`callgrind failed (is valgrind installed?):\n${run.stderr ?? run.error}`);
  }
  return Number(collected[1]);
}

if (values.creates !== undefined) {
  await drive(Number(values.creates));
} else {
  const [few, many] = [20_000, 60_000];
  const perCreate = (countInstructions(many) - countInstructions(few)) / (many - few);
  console.log(`${Math.round(perCreate)} instructions per create (callgrind, ${process.version})`);
}
