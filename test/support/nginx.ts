/**
 * The machine's nginx (Debian's `/usr/sbin/nginx`) as the reverse proxy in front of a test's
 * servers: one foreground process (`daemon off`, `master_process off`, so it stays the child a
 * test started and never changes user), its config, pid, logs and temporary files in a temporary
 * directory, on a free loopback port. Tests skip, saying why, when nginx is missing.
 *
 * @module
 */

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, spawnChild, withDeadline } from './node-helpers.ts';

/** Debian's nginx: the tests never download one. */
export const NGINX = '/usr/sbin/nginx';

/** Why a test behind nginx cannot run here, or `false` when it can. */
export function noNginx(): string | false {
  return existsSync(NGINX)
    ? false
    : `no nginx at ${NGINX}: install Debian's nginx (apt-get install -y nginx) to run this test`;
}

/** A running nginx: where it listens, and how it is stopped. */
export interface Nginx {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  readonly url: string;
  /** Stops nginx and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts nginx with `locations` (nginx `location` blocks, as a deployment writes them) as its one
 * server's body, and resolves once it accepts connections.
 */
export async function startNginx(locations: string): Promise<Nginx> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-nginx-'));
  const port = await freePort();
  const config = join(dir, 'nginx.conf');
  const log = join(dir, 'error.log');
  writeFileSync(
    config,
    `daemon off;
master_process off;
pid ${join(dir, 'nginx.pid')};
error_log ${log};
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
  server {
    listen 127.0.0.1:${port};
${locations}
  }
}
`,
  );
  // -e: the log nginx writes before it has read the config, which would be /var/log/nginx's.
  const child = spawnChild(NGINX, ['-e', log, '-p', dir, '-c', config], process.env, dir);
  const stop = async (): Promise<void> => {
    child.kill();
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await withDeadline(
      (async () => {
        while (!(await accepts(port))) {
          if (child.process.exitCode !== null) {
            throw new Error(`nginx exited: ${readFileSync(log, 'utf8')}${child.stderr()}`);
          }
          await sleep(20);
        }
      })(),
      'nginx to listen',
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, stop };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
