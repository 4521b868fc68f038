// Preloaded (`node --import`) into a CLI child: the packages named in TEST_HIDE_PACKAGES
// (comma-separated) fail to resolve with ERR_MODULE_NOT_FOUND, as if they were not installed.
import { register } from 'node:module';

const hooks = `
let hidden = [];
export function initialize(data) { hidden = data; }
export async function resolve(specifier, context, next) {
  if (hidden.includes(specifier)) {
    const error = new Error("Cannot find package '" + specifier + "' (hidden by the test)");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`, {
  data: (process.env.TEST_HIDE_PACKAGES ?? '').split(','),
});
