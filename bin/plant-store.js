#!/usr/bin/env node
/**
 * The `plant-store` command for installed users: the standalone server, from the built
 * `dist/cli/main.js` on plain Node (no tsx), or `plant-store conform <base-url> --token <token>`,
 * which checks a running server against the contract. On a clone, `npm start` builds and runs
 * the server.
 *
 * @module
 */
if (process.argv[2] === 'conform') {
  const { runConform } = await import('../dist/cli/conform.js');
  process.exit(await runConform(process.argv.slice(3)));
} else {
  await import('../dist/cli/main.js');
}
