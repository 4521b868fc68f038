// Preloaded (`node --import`) into a CLI child: `@opentelemetry/*` resolves from this folder's
// own package (`npm ci --prefix test/otel`), as if the host had installed the packages.
import { register } from 'node:module';

const hooks = `
const here = ${JSON.stringify(new URL('./package.json', import.meta.url).href)};
export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) return next(specifier, { ...context, parentURL: here });
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hooks)}`);
