/**
 * What one server process is measured for: a sample (a wrk warm-up, then one measured wrk run
 * with the server's CPU time and peak RSS), or the decay run (successive wrk windows on one
 * process, each with its own req/s and CPU time), with wrk on its own core as `bench/run.ts`
 * has it.
 *
 * @module
 */

import {
  cpuMillis,
  peakRssKiB,
  type RunningServer,
  runWrk,
  stopServer,
  type WrkResult,
} from '../_harness.ts';
import type { RuntimeServer } from './catalog.ts';
import { startRuntimeServer } from './launch.ts';

/** How wrk loads a server. */
export interface Load {
  /** Seconds of wrk before the measured run (0 for none). */
  readonly warmup: number;
  /** Seconds of the measured run, or of each decay window. */
  readonly seconds: number;
  readonly connections: number;
  /** The build plant-store's servers load. */
  readonly dist: string;
}

/** One measured wrk run, with what the server spent on it. */
export interface Sample extends WrkResult {
  /** The server's peak RSS so far, in KiB. */
  readonly rssKiB: number | undefined;
  /** The server's CPU time (user + system, all threads) per request of the run, in µs. */
  readonly cpuMicros: number;
}

async function measuredRun(pid: number, url: string, load: Load, idOffset: number) {
  const cpuBefore = cpuMillis(pid);
  const result = await runWrk({
    url,
    seconds: load.seconds,
    connections: load.connections,
    threads: 1,
    idOffset,
  });
  const cpuMicros = ((cpuMillis(pid) - cpuBefore) * 1000) / result.requests;
  return { ...result, rssKiB: peakRssKiB(pid), cpuMicros };
}

/** Starts `server` in a fresh process and loads it for `load.warmup` seconds, if any. */
async function startWarm(server: RuntimeServer, load: Load): Promise<RunningServer> {
  const running = await startRuntimeServer(server, load.dist);
  if (load.warmup > 0) {
    try {
      await runWrk({
        url: running.url,
        seconds: load.warmup,
        connections: load.connections,
        threads: 1,
        idOffset: 1e12,
      });
    } catch (error) {
      await stopServer(running);
      throw error;
    }
  }
  return running;
}

/** Measures `server` once in a fresh process: a warm-up, then one measured run. */
export async function measureOnce(server: RuntimeServer, load: Load): Promise<Sample> {
  const running = await startWarm(server, load);
  try {
    const { url, pid } = running;
    return await measuredRun(pid, url, load, 2e12);
  } finally {
    await stopServer(running);
  }
}

/**
 * Serves `server` in one process for `windows` back-to-back runs of `load.seconds` each (after
 * the warm-up), every window with ids of its own; `onWindow` hears each as it ends.
 */
export async function measureDecay(
  server: RuntimeServer,
  load: Load,
  windows: number,
  onWindow: (index: number, sample: Sample) => void,
): Promise<Sample[]> {
  const running = await startWarm(server, load);
  try {
    const { url, pid } = running;
    const samples: Sample[] = [];
    for (let index = 0; index < windows; index++) {
      const sample = await measuredRun(pid, url, load, 2e12 + index * 1e10);
      samples.push(sample);
      onWindow(index, sample);
    }
    return samples;
  } finally {
    await stopServer(running);
  }
}
