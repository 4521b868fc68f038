/**
 * A Worker whose default export is `{ fetch }`, as `export default { fetch: store.fetch }`
 * is: every request goes to a case's `store.fetch` through the router. `runner` runs the cases.
 *
 * @module
 */

import { router } from './cases.ts';

export { runner } from './cases.ts';

export default { fetch: router.fetch };
