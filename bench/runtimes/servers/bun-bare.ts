/** The bare baseline on Bun: the hand-written handler of `_bare-workload.ts` on `Bun.serve`. */
import { createBareHandler } from './_bare-workload.ts';
import { serveOnBun } from './_runtime.ts';

serveOnBun(createBareHandler());
