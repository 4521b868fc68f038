/**
 * `createPlantStore` under `node:test`: the contract's case list (`test/contract/`, a file per
 * step of the behaviour table and per route), each case an `it` in its rule's `describe`, called
 * directly on the source. The same list runs on Node 22 and 24, Deno and Bun through
 * `test/runtimes/`.
 *
 * @module
 */

import { describe, it } from 'node:test';
import * as cors from '../../lib/cors.ts';
import * as core from '../../lib/index.ts';
import { conformanceCases } from '../contract/cases.ts';
import { type ConformanceCase, createCaseContext } from '../contract/context.ts';

const context = createCaseContext({ ...core, ...cors });

const groups = new Map<string, ConformanceCase[]>();
for (const rule of conformanceCases) {
  const list = groups.get(rule.group) ?? [];
  list.push(rule);
  groups.set(rule.group, list);
}

for (const [group, rules] of groups) {
  describe(group, () => {
    for (const rule of rules) it(rule.name, () => rule.run(context));
  });
}
