/**
 * The machine's HAProxy (Debian's `/usr/sbin/haproxy`) as the load balancer in front of a test's
 * servers: one foreground process (`-db`) with its config in a temporary directory, and what it
 * thinks of each server, read from its stats page as CSV. Tests skip, saying why, when HAProxy is
 * missing.
 *
 * @module
 */

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, pollUntil, spawnChild } from './node-helpers.ts';

/** Debian's HAProxy: the tests never download one. */
export const HAPROXY = '/usr/sbin/haproxy';

/** Why a test behind HAProxy cannot run here, or `false` when it can. */
export function noHaproxy(): string | false {
  return existsSync(HAPROXY)
    ? false
    : `no haproxy at ${HAPROXY}: install Debian's HAProxy (apt-get install -y haproxy) to run this test`;
}

/** A running HAProxy: its process, and each server's state as it sees it. */
export interface Haproxy {
  readonly child: Child;
  /** Each server of `backend` by name, with its status: `UP`, `DOWN`, `no check`... */
  statuses(backend: string): Promise<Map<string, string>>;
  /** Stops HAProxy by its PID and removes its directory. */
  stop(): Promise<void>;
}

/**
 * Starts HAProxy with `config`, whose stats page (`stats uri /stats`) is at `statsUrl`, and
 * resolves once that page answers. The child goes into `children` at once, for an `after` hook
 * to kill whatever happens.
 */
export async function startHaproxy(
  config: string,
  statsUrl: string,
  children: Child[],
): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  writeFileSync(file, config);
  const child = spawnChild(HAPROXY, ['-db', '-f', file], process.env, dir);
  children.push(child);
  const statuses = async (backend: string): Promise<Map<string, string>> => {
    const response = await fetch(`${statsUrl};csv`);
    const [header = '', ...rows] = (await response.text()).trim().split('\n');
    const status = header.replace(/^# /, '').split(',').indexOf('status');
    const servers = new Map<string, string>();
    for (const row of rows) {
      const fields = row.split(',');
      if (fields[0] === backend && fields[1] !== 'BACKEND') {
        servers.set(fields[1] as string, fields[status] as string);
      }
    }
    return servers;
  };
  const stop = async (): Promise<void> => {
    child.kill();
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await pollUntil(() => {
      if (child.process.exitCode !== null) throw new Error(`haproxy exited: ${child.stderr()}`);
      return statuses('').then(
        () => true,
        () => undefined,
      );
    }, 'haproxy to serve its stats page');
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, statuses, stop };
}
