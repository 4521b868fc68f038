/**
 * Where the standalone server's API lives, as clients see it: `PLANT_STORE_PUBLIC_URL`,
 * `PLANT_STORE_BASE_PATH` and `PLANT_STORE_TRUST_PROXY`.
 *
 * @module
 */

import { checkBasePath, publicUrlProblem } from '../store/api-location.ts';
import type { Parsed, SettingsEnv } from './setting-values.ts';

/** Where the API lives. */
export interface LocationSettings {
  /** The URL clients reach the API at (`PLANT_STORE_PUBLIC_URL`), or `undefined`. */
  readonly publicUrl: string | undefined;
  /**
   * The path the routes and `/docs` are under (`PLANT_STORE_BASE_PATH`, else the public URL's
   * path), `''` for the root.
   */
  readonly basePath: string;
  /** Whether, and how many, proxies in front are trusted (`PLANT_STORE_TRUST_PROXY`). */
  readonly trustProxy: boolean | number;
}

/**
 * `PLANT_STORE_PUBLIC_URL`: an absolute http(s) URL with no query. `PLANT_STORE_BASE_PATH`:
 * where the routes are served, `/` or a path such as `/api`; by default the public URL's path
 * (for a proxy that passes the path on unchanged). `PLANT_STORE_TRUST_PROXY`:
 * `true` (the nearest proxy), `false` (the default) or a number of proxy hops.
 */
export function parseLocation(env: SettingsEnv): Parsed<LocationSettings> {
  const publicUrl = env.PLANT_STORE_PUBLIC_URL;
  let basePath = '';
  if (publicUrl !== undefined) {
    const problem = publicUrlProblem(publicUrl);
    if (problem !== undefined) return { error: `PLANT_STORE_PUBLIC_URL ${problem}` };
    basePath = new URL(publicUrl).pathname.replace(/\/$/, '');
  }
  const rawBase = env.PLANT_STORE_BASE_PATH?.trim();
  if (rawBase !== undefined) {
    try {
      basePath = rawBase === '/' ? '' : checkBasePath(rawBase === '' ? null : rawBase, 'x');
    } catch {
      return {
        error: `PLANT_STORE_BASE_PATH must be / or a URL path such as /api (no trailing slash, no query), got ${JSON.stringify(env.PLANT_STORE_BASE_PATH)}`,
      };
    }
  }
  const raw = env.PLANT_STORE_TRUST_PROXY?.trim().toLowerCase();
  let trustProxy: boolean | number = false;
  if (raw === 'true') trustProxy = true;
  else if (/^[1-9][0-9]{0,2}$/.test(raw ?? '')) trustProxy = Number(raw);
  else if (raw !== undefined && raw !== 'false') {
    return {
      error: `PLANT_STORE_TRUST_PROXY must be true, false or a number of proxy hops (1-999), got ${JSON.stringify(env.PLANT_STORE_TRUST_PROXY)}`,
    };
  }
  return { value: { publicUrl, basePath, trustProxy } };
}
