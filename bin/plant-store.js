#!/usr/bin/env node
/**
 * The `plant-store` command for installed users: the standalone server, from the built
 * `dist/cli/main.js` on plain Node (no tsx). On a clone, `npm start` builds and runs the same file.
 *
 * @module
 */
import '../dist/cli/main.js';
