/**
 * A minimal client of the V8 inspector of another Node process (started with
 * `--inspect=127.0.0.1:0`), enough to force a garbage collection and read the heap from the
 * outside. The product carries no hook for this: the soak measures the real server as shipped.
 *
 * Node 20 has no WebSocket client without a flag, so this speaks the few WebSocket frames the
 * inspector needs (RFC 6455: masked text frames out, unmasked text frames in).
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

export interface Inspector {
  /** Sends one inspector command and resolves with its result. */
  call(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Closes the session (before the process is stopped, or its exit waits for the debugger). */
  close(): Promise<void>;
}

/** The heap after two full collections: V8's `Runtime.getHeapUsage` `usedSize`, in bytes. */
export async function heapAfterGc(inspector: Inspector): Promise<number> {
  await inspector.call('HeapProfiler.collectGarbage');
  await inspector.call('HeapProfiler.collectGarbage');
  const usage = await inspector.call('Runtime.getHeapUsage');
  return Number(usage.usedSize);
}

/** Opens an inspector session at `ws://host:port/uuid`, as printed on the child's stderr. */
export async function connectInspector(wsUrl: string, timeoutMs = 10_000): Promise<Inspector> {
  const url = new URL(wsUrl);
  const socket = connect(Number(url.port), url.hostname);
  socket.setNoDelay(true);
  const key = randomBytes(16).toString('base64');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('inspector handshake timed out')), timeoutMs);
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      socket.off('data', onData);
      if (!head.subarray(0, 12).toString().includes('101')) {
        reject(new Error(`inspector refused the upgrade: ${head.toString('latin1', 0, end)}`));
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve();
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
  return session(socket, timeoutMs);
}

function session(socket: Socket, timeoutMs: number): Inspector {
  let nextId = 1;
  const pending = new Map<number, (message: Record<string, unknown>) => void>();
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const frame = readFrame(buffer);
      if (frame === undefined) return;
      buffer = buffer.subarray(frame.size);
      if (frame.opcode !== 1) continue; // only text frames carry inspector messages
      const message = JSON.parse(frame.payload.toString('utf8')) as Record<string, unknown>;
      const resolve = pending.get(message.id as number);
      if (resolve !== undefined) {
        pending.delete(message.id as number);
        resolve(message);
      }
    }
  });
  socket.on('error', () => {});
  return {
    call(method, params = {}) {
      const id = nextId++;
      socket.write(maskedTextFrame(JSON.stringify({ id, method, params })));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`inspector ${method} timed out`));
        }, timeoutMs);
        pending.set(id, (message) => {
          clearTimeout(timer);
          if (message.error !== undefined) {
            reject(new Error(`inspector ${method}: ${JSON.stringify(message.error)}`));
          } else {
            resolve((message.result ?? {}) as Record<string, unknown>);
          }
        });
      });
    },
    close() {
      return new Promise((resolve) => {
        socket.once('close', () => resolve());
        socket.end();
        setTimeout(() => socket.destroy(), 1000).unref();
      });
    },
  };
}

function readFrame(buffer: Buffer): { opcode: number; payload: Buffer; size: number } | undefined {
  if (buffer.length < 2) return undefined;
  const opcode = (buffer[0] as number) & 0x0f;
  let length = (buffer[1] as number) & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return undefined;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return undefined;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + length) return undefined;
  return { opcode, payload: buffer.subarray(offset, offset + length), size: offset + length };
}

function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const mask = randomBytes(4);
  const lengthBytes = payload.length < 126 ? 0 : payload.length < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + lengthBytes + 4);
  head[0] = 0x81; // FIN, text
  if (lengthBytes === 0) head[1] = 0x80 | payload.length;
  else if (lengthBytes === 2) {
    head[1] = 0x80 | 126;
    head.writeUInt16BE(payload.length, 2);
  } else {
    head[1] = 0x80 | 127;
    head.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  mask.copy(head, 2 + lengthBytes);
  for (let i = 0; i < payload.length; i++) {
    payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  }
  return Buffer.concat([head, payload]);
}
