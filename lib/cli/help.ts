/**
 * What `plant-store --help` and `--version` print: the usage and every setting, read from the
 * environment; and the package's version, from its `package.json`.
 *
 * @module
 */

import { readFileSync } from 'node:fs';

/** The package's version, from the `package.json` two folders up (from `lib/cli` or `dist/cli`). */
export function packageVersion(): string {
  const manifest = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  return (JSON.parse(manifest) as { version: string }).version;
}

/** The `--help` text. */
export function helpText(): string {
  return `plant-store ${packageVersion()}: the Plant Store API (POST /plants) over HTTP.

Usage: plant-store [--help | --version]   (in a clone: npm start)
In production: node node_modules/plant-store/bin/plant-store.js (npx does not pass SIGTERM on)

Settings, from the environment:
  PORT                              port; 0 picks a free one (default 3000)
  HOST                              interface to listen on (default 127.0.0.1)
  PLANT_STORE_TOKENS                comma-separated bearer tokens (default: one random token,
                                    printed on stderr)
  PLANT_STORE_JWKS_URL              JWT mode: tokens are JWTs checked against this JWKS
  PLANT_STORE_JWT_ISSUER            JWT mode: the exact iss (required)
  PLANT_STORE_JWT_AUDIENCE          JWT mode: the audience (required)
  PLANT_STORE_JWT_ALGORITHMS        JWT mode: allowlist (default RS256,PS256,ES256,EdDSA)
  DATABASE_URL                      postgres:// URL: plants in PostgreSQL (default: in memory)
  PLANT_STORE_CORS_ORIGINS          * or comma-separated origins browsers may call from, each exact
                                    (https://app.example.com) or a subdomain pattern
                                    (https://*.example.com: not example.com itself) (default: off)
  PLANT_STORE_PUBLIC_URL            the URL clients use, such as https://api.example.com/v1: the
                                    OpenAPI document names it (default: the origin the document was
                                    fetched from)
  PLANT_STORE_BASE_PATH             the path the routes and /docs are under, / or such as /api
                                    (default: the public URL's path, else /)
  PLANT_STORE_TRUST_PROXY           true (the nearest proxy), false or a number of proxy hops whose
                                    Forwarded or X-Forwarded-Proto/-Host name the server (default
                                    false)
  PLANT_STORE_LOG                   json, text or off, and info, warn or error (default: json, or
                                    text on a terminal; info); on stdout, dropped (said once on
                                    stderr) if its reader goes away
  PLANT_STORE_ADMIN_PORT            port of /livez, /readyz (from a check at most 1 s old),
                                    /metrics (default: none)
  PLANT_STORE_ADMIN_HOST            interface of the admin port (default 127.0.0.1)
  PLANT_STORE_MAX_BODY_BYTES        largest body accepted (default 102400)
  PLANT_STORE_TIMEOUT_MS            deadline of one create (default 10000)
  PLANT_STORE_KEEP_ALIVE_TIMEOUT_MS idle keep-alive connections close after (default 65000)
  PLANT_STORE_HEADERS_TIMEOUT_MS    time to send the headers (default 10000)
  PLANT_STORE_REQUEST_TIMEOUT_MS    time to send the whole request (default 30000)
  PLANT_STORE_MAX_CONNECTIONS       most connections open at once; past it a new one is closed
                                    unanswered (default 4096)
  PLANT_STORE_PG_POOL_MAX           most PostgreSQL connections (default 10)
  PLANT_STORE_MAX_PLANTS            most plants kept in memory; past it a new id gets 507
                                    (default: no cap)

Every timeout is at least 1 ms: 0 would mean "never" and is refused.

SIGINT or SIGTERM stops gracefully (in-flight requests finish, up to 10 s); a second one, a
second or more later, stops at once.
`;
}
