/**
 * `swapPackage`: from the call on, in this process, every `import` of a package resolves to
 * another module, lib/'s own imports included, as an app that installed another version of it
 * would have it. Each `node --test` file runs in a process of its own, so the swap stays in the
 * file that makes it; import what it affects dynamically, after the call.
 *
 * @module
 */

import { register } from 'node:module';

const hooks = `
let swaps = {};
export function initialize(data) { swaps = data; }
export async function resolve(specifier, context, next) {
  const url = swaps[specifier];
  return url === undefined ? next(specifier, context) : { url, shortCircuit: true };
}`;

/** Resolves every later `import name` to `url` (a `file:` or `data:` URL). */
export function swapPackage(name: string, url: string): void {
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { [name]: url } });
}
