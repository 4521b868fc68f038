/**
 * Reads a loopback capture (classic pcap, as `tcpdump -w` writes it) of one server's HTTP/1.1
 * traffic as per-request server-side latencies: from the packet that carried a request to the
 * packet that carried its response, as the kernel timestamped them. That is the time a request
 * spent queued at the server plus the server's own work, and nothing of the client's.
 *
 * @module
 */
import { readFileSync } from 'node:fs';

/** Classic pcap's magic numbers, as read little-endian: microsecond and nanosecond stamps. */
const MAGIC_MICROS = 0xa1b2c3d4;
const MAGIC_NANOS = 0xa1b23c4d;
/** Link types: Ethernet (what Linux's `lo` reports) and Linux cooked capture (`-i any`). */
const LINK_HEADER_BYTES: Readonly<Record<number, number>> = { 1: 14, 113: 16 };

/** The payload openings that mark a request and a response. */
const REQUEST_START = Buffer.from('POST ');
const RESPONSE_START = Buffer.from('HTTP/');

/** What a capture holds: the server-side latency of every request answered within it. */
export interface CapturedLatencies {
  /** Milliseconds, in the order the responses left. */
  readonly latencies: number[];
  /** The time from the first to the last response matched, in milliseconds. */
  readonly spanMs: number;
}

/**
 * The server-side latency of each request in a capture of `serverPort`'s traffic. Requests and
 * responses are matched first in, first out on each connection (HTTP/1.1 answers in order); a
 * response whose request was sent before the capture started is skipped. A request is a segment
 * to the server that opens with `POST ` (every request of the bench's load), a response one from
 * it that opens with `HTTP/`; each must start a segment of its own (wrk and node write each in
 * one call), and the capture's snap length must reach the first payload bytes.
 *
 * @throws {Error} When the file is not a pcap of a known link type.
 */
export function readCapturedLatencies(file: string, serverPort: number): CapturedLatencies {
  const data = readFileSync(file);
  if (data.byteLength < 24) throw new Error(`${file}: not a pcap file`);
  const magic = data.readUInt32LE(0);
  if (magic !== MAGIC_MICROS && magic !== MAGIC_NANOS) {
    throw new Error(`${file}: not a little-endian classic pcap file`);
  }
  const fractionPerMs = magic === MAGIC_NANOS ? 1e6 : 1e3;
  const linkBytes = LINK_HEADER_BYTES[data.readUInt32LE(20)];
  if (linkBytes === undefined) throw new Error(`${file}: link type ${data.readUInt32LE(20)}`);

  const sentAt = new Map<number, number[]>(); // client port -> its requests' times, oldest first
  const latencies: number[] = [];
  let first = Number.NaN;
  let last = Number.NaN;
  for (let at = 24; at + 16 <= data.byteLength;) {
    const ms = data.readUInt32LE(at) * 1000 + data.readUInt32LE(at + 4) / fractionPerMs;
    const captured = data.readUInt32LE(at + 8);
    const ip = at + 16 + linkBytes;
    at += 16 + captured;
    if (at > data.byteLength || (data[ip] as number) >> 4 !== 4) continue; // IPv4 only
    const tcp = ip + ((data[ip] as number) & 0x0f) * 4;
    const payload = tcp + ((data[tcp + 12] as number) >> 4) * 4;
    const from = data.readUInt16BE(tcp);
    const to = data.readUInt16BE(tcp + 2);
    if (to === serverPort && startsWith(data, payload, at, REQUEST_START)) {
      const queue = sentAt.get(from);
      if (queue === undefined) sentAt.set(from, [ms]);
      else queue.push(ms);
    } else if (from === serverPort && startsWith(data, payload, at, RESPONSE_START)) {
      const sent = sentAt.get(to)?.shift();
      if (sent === undefined) continue;
      latencies.push(ms - sent);
      if (Number.isNaN(first)) first = ms;
      last = ms;
    }
  }
  return { latencies, spanMs: latencies.length > 0 ? last - first : 0 };
}

function startsWith(data: Buffer, from: number, end: number, prefix: Buffer): boolean {
  return (
    from + prefix.byteLength <= end &&
    data.compare(prefix, 0, prefix.byteLength, from, from + prefix.byteLength) === 0
  );
}

/** The `p`th percentile (0-100) of some numbers, by the nearest rank. */
export function percentile(xs: readonly number[], p: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}
