/**
 * A PostgreSQL primary with a synchronous standby behind one address, and a failover: made from
 * the machine's PostgreSQL server binaries (Debian's `/usr/lib/postgresql/<version>/bin`:
 * `initdb`, `pg_basebackup`, `pg_ctl`) in a temporary directory, on free loopback ports, with a
 * TCP proxy (`tcp-proxy.ts`) as the one address clients use. `initdb` refuses to run as root:
 * as root, every command runs as the `postgres` user through `runuser`.
 *
 * @module
 */

import { execFile, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { freePort } from './node-helpers.ts';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.ts';

const TOOLS = ['initdb', 'pg_basebackup', 'pg_ctl', 'postgres'];
/** How long one server command (start, stop, promote, base backup) may take. */
const COMMAND_MS = 30_000;

/** The newest PostgreSQL server binaries' folder with every tool, or `undefined`. */
function findBinaries(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => TOOLS.every((tool) => existsSync(join(root, version, 'bin', tool))))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

const BIN = findBinaries();
const AS_ROOT = process.getuid?.() === 0;

/** The command line that runs a server tool as a user it accepts. */
function commandFor(tool: string, args: readonly string[]): [string, string[]] {
  const path = join(BIN as string, tool);
  return AS_ROOT ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, [...args]];
}

/**
 * Why a failover pair cannot be made on this machine, or `undefined` when it can: the server
 * binaries are missing, or the process runs as root without `runuser` and a `postgres` user.
 */
export function failoverUnavailable(): string | undefined {
  if (BIN === undefined) {
    return `needs the PostgreSQL server binaries (${TOOLS.join(', ')}) under /usr/lib/postgresql/<version>/bin: apt-get install postgresql`;
  }
  const [command, args] = commandFor('initdb', ['--version']);
  if (spawnSync(command, args).status !== 0) {
    return AS_ROOT
      ? 'runs as root, which initdb refuses, and cannot run it as the postgres user (needs runuser and a postgres user)'
      : `cannot run ${join(BIN, 'initdb')}`;
  }
  return undefined;
}

/** A primary, its synchronous standby and the one address in front of them. */
export interface PgFailover {
  /** The one address clients use: the proxy, in front of the primary until the switch. */
  readonly url: string;
  /** The primary's own address. */
  readonly primaryUrl: string;
  /** The standby's own address: the primary once promoted. */
  readonly standbyUrl: string;
  /** The folder holding both data directories and their logs (`primary.log`, `standby.log`). */
  readonly dir: string;
  /**
   * Stops the primary: `fast` tells its clients (57P01) and waits for the standby to have its
   * last WAL; `immediate` is a crash.
   * @default 'fast'
   */
  stopPrimary(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Points the one address at the standby; the connections open through it are cut. */
  switchToStandby(): void;
  /** Promotes the standby and resolves once it takes writes. */
  promoteStandby(): Promise<void>;
  /** The whole failover: `stopPrimary`, `switchToStandby`, then `promoteStandby`. */
  failover(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Stops both servers and the proxy, and removes the folder. */
  close(): Promise<void>;
}

/**
 * Makes and starts a primary (`initdb`) and a synchronous standby of it (`pg_basebackup`) on
 * free ports, user `postgres` with trust authentication, database `postgres`, and a proxy in
 * front of the primary. Every commit is on the standby before it is acknowledged
 * (`synchronous_standby_names = '*'`), so a failover loses nothing a client was told is stored.
 * Takes a few seconds; check `failoverUnavailable()` first.
 *
 * @returns The running pair; `close` it when done, in an `after` hook or a `finally`.
 * @example
 * ```ts
 * const cluster = await startPgFailover();
 * try {
 *   const pool = new pg.Pool({ connectionString: cluster.url });
 *   // ... load, then:
 *   await cluster.failover();
 * } finally {
 *   await cluster.close();
 * }
 * ```
 */
export async function startPgFailover(): Promise<PgFailover> {
  const reason = failoverUnavailable();
  if (reason !== undefined) throw new Error(`startPgFailover: ${reason}`);
  const dir = mkdtempSync(join(tmpdir(), 'plant-store-pg-failover-'));
  if (AS_ROOT) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres']).stdout.toString());
    chownSync(dir, id('-u'), id('-g'));
  }
  const primary = join(dir, 'primary');
  const standby = join(dir, 'standby');
  let primaryPort = 0;
  let standbyPort = 0;
  const urlOf = (port: number) => `postgres://postgres@127.0.0.1:${port}/postgres`;
  const running = new Set<string>();
  let proxy: TcpProxy | undefined;
  const stopAll = async (mode: 'fast' | 'immediate') => {
    for (const data of running) await run('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
    running.clear();
  };
  // A test process that dies leaves no server behind.
  const onExit = () => {
    for (const data of running) {
      const [command, args] = commandFor('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
      spawnSync(command, args);
    }
  };
  process.once('exit', onExit);
  // Starts a server on a free port, set in `conf` (its last `port` line wins); another process
  // may take the port before the server binds it, and then it gets another.
  const start = async (data: string, log: string, conf: string): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      await appendFile(join(data, conf), `port = ${port}\n`);
      try {
        await run('pg_ctl', ['-D', data, '-l', join(dir, log), '-w', '-t', '30', 'start']);
        running.add(data);
        return port;
      } catch (error) {
        if (attempt === 3 || !/could not create any TCP\/IP sockets/.test(String(error))) {
          throw error;
        }
      }
    }
  };
  try {
    const initdb = ['-D', primary, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C'];
    await run('initdb', [...initdb, '--no-sync', '--no-instructions']);
    await appendFile(
      join(primary, 'postgresql.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${dir}'`,
        'wal_level = replica',
        'max_wal_senders = 4',
        'hot_standby = on',
        "synchronous_standby_names = '*'",
        // Nothing here outlives the test: durability against a power cut is not what it checks.
        'fsync = off',
        'shared_buffers = 16MB',
        'max_connections = 60',
        '',
      ].join('\n'),
    );
    primaryPort = await start(primary, 'primary.log', 'postgresql.conf');
    const source = ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'];
    await run('pg_basebackup', [
      ...source,
      '-D',
      standby,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    // Once promoted, the standby waits for no standby of its own; it gets a port of its own.
    await appendFile(join(standby, 'postgresql.auto.conf'), "synchronous_standby_names = ''\n");
    standbyPort = await start(standby, 'standby.log', 'postgresql.auto.conf');
    await until(
      async () =>
        (await queryOnce(urlOf(primaryPort), 'SELECT sync_state FROM pg_stat_replication'))
          .map((row) => row.sync_state)
          .includes('sync'),
      'the standby to be synchronous',
    );
    proxy = await startTcpProxy(primaryPort);
  } catch (error) {
    await stopAll('immediate').catch(() => {});
    process.off('exit', onExit);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const front = proxy;
  const cluster: PgFailover = {
    url: urlOf(front.port),
    primaryUrl: urlOf(primaryPort),
    standbyUrl: urlOf(standbyPort),
    dir,
    async stopPrimary(mode = 'fast') {
      await run('pg_ctl', ['-D', primary, '-m', mode, '-w', 'stop']);
      running.delete(primary);
    },
    switchToStandby() {
      front.switchTo(standbyPort);
    },
    async promoteStandby() {
      await run('pg_ctl', ['-D', standby, '-w', '-t', '30', 'promote']);
      await until(
        async () =>
          (await queryOnce(urlOf(standbyPort), 'SELECT pg_is_in_recovery() AS r'))[0]?.r === false,
        'the standby to leave recovery',
      );
    },
    async failover(mode = 'fast') {
      await cluster.stopPrimary(mode);
      cluster.switchToStandby();
      await cluster.promoteStandby();
    },
    async close() {
      await front.close();
      await stopAll('immediate').catch(() => {});
      process.off('exit', onExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;

  /** Runs a server tool; a failure names it, with its output and the servers' last log lines. */
  function run(tool: string, args: readonly string[]): Promise<void> {
    const [command, commandArgs] = commandFor(tool, args);
    return new Promise((resolve, reject) => {
      execFile(command, commandArgs, { timeout: COMMAND_MS }, (error, stdout, stderr) => {
        if (error === null) return resolve();
        const logs = ['primary.log', 'standby.log']
          .filter((log) => existsSync(join(dir, log)))
          .map((log) => `${log}: ${spawnSync('tail', ['-n', '5', join(dir, log)]).stdout}`);
        reject(
          new Error(`${tool} ${args.join(' ')} failed: ${stderr}${stdout}\n${logs.join('\n')}`),
        );
      });
    });
  }
}

/** The rows of one query on a connection of its own. */
async function queryOnce(url: string, text: string): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  // A broken socket also rejects the connect or query in flight; unheard, the event would end
  // the test's process instead of counting as "not yet" in `until`.
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end();
  }
}

/** Waits until `check` holds (errors count as not yet), for at most 15 s. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
