// What the browser tests share: Debian's Chromium, why a test skips without it, a page of its own
// origin, and a create sent by a page's fetch.

import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';

/** Debian's Chromium: the browser tests never download one. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here (no Chromium, or playwright-core or one of `packages` not
 * installed in test/browser), or false when they can.
 */
export function browserSkipReason(...packages: string[]): string | false {
  if (!existsSync(CHROMIUM)) {
    return `no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) to run the browser tests`;
  }
  const needed = ['playwright-core', ...packages];
  const missing = needed.filter(
    (name) => !existsSync(new URL(`./node_modules/${name}/package.json`, import.meta.url)),
  );
  if (missing.length === 0) return false;
  return `${missing.join(' and ')} not installed: npm ci --prefix test/browser (kept out of the main install) to run the browser tests`;
}

/** A page of its own origin, to call the API from; closed with the rest of `servers`. */
export async function originServer(servers: Server[]): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>a plant app</title><p>a plant app</p>');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** What a page's `fetch` of `POST <api>/plants` saw: the response, or the error it threw. */
export interface Seen {
  readonly status?: number;
  readonly body?: string;
  readonly challenge?: string | null;
  readonly error?: string;
}

/** Sends a create from `page`, as a web app of the page's origin would. */
export function createFrom(page: Page, api: string, token: string, body: string): Promise<Seen> {
  return page.evaluate(
    async ({ api, token, body }) => {
      try {
        const response = await fetch(`${api}/plants`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
        return {
          status: response.status,
          body: await response.text(),
          challenge: response.headers.get('www-authenticate'),
        };
      } catch (error) {
        return { error: String(error) };
      }
    },
    { api, token, body },
  );
}

/**
 * What a page shows going wrong (console errors, uncaught exceptions) and every request it
 * makes, as `METHOD url`, from now on.
 */
export function watchPage(page: Page): { problems: string[]; calls: string[] } {
  const problems: string[] = [];
  const calls: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('request', (request) => calls.push(`${request.method()} ${request.url()}`));
  return { problems, calls };
}

/**
 * A person's create on the reference page already open in `page`: the token under "Authorize",
 * then `body` sent with "Try it out". Resolves with the status and the answer's text the page shows.
 */
export async function tryItOut(
  page: Page,
  token: string,
  body: string,
): Promise<{ status: string; answer: string }> {
  await page.locator('.swagger-ui .info .title').getByText('OpenAPI Plant Store').waitFor();
  await page.locator('.auth-wrapper button.authorize').click();
  await page.locator('.modal-ux input').fill(token);
  await page.locator('.modal-ux button.authorize[type=submit]').click();
  await page.locator('.modal-ux button.btn-done').click();
  const operation = page.locator('#operations-plants-createPlant');
  await operation.locator('.opblock-summary').click();
  await operation.locator('textarea.body-param__text').fill(body);
  await operation.locator('button.execute').click();
  const row = operation.locator('.live-responses-table tbody tr.response').first();
  await row.waitFor();
  const status = (await row.locator('.response-col_status').textContent()) ?? '';
  // No body shown when the request failed in the browser (a CSP refusal, say).
  const pre = row.locator('.response-col_description pre');
  const answer = (await pre.count()) > 0 ? await pre.first().textContent() : '';
  return { status: /^\s*(\d*)/.exec(status)?.[1] ?? '', answer: answer ?? '' };
}
