/** The bare baseline on Deno: the hand-written handler of `_bare-workload.ts` on `Deno.serve`. */
import { createBareHandler } from './_bare-workload.ts';
import { serveOnDeno } from './_runtime.ts';

serveOnDeno(createBareHandler());
