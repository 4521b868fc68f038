/**
 * Which response a `serve` socket still owes, so that a parser error on a pipelined request
 * never writes a raw reply into the middle of, or ahead of, another response.
 *
 * @module
 */

import type { ServerResponse } from 'node:http';

/**
 * The response a socket of a `serve` server still owes, kept on the socket under this key: set
 * when a request arrives, cleared once the whole response is in the socket's write queue. A
 * parser error on a pipelined request then never writes a raw reply into the middle of, or ahead
 * of, another response. Clearing it promptly matters for speed too: a response kept until the
 * next request on its socket survives a young-generation GC with everything it references. A
 * property rather than a `WeakMap` entry: setting and clearing it costs a store each, where the
 * `WeakMap` hashed the socket three times per request.
 */
export const OWED: unique symbol = Symbol('plant-store.owed-response');

/** A socket of a `serve` server, with the response it still owes. */
export interface OwingSocket {
  [OWED]?: ServerResponse | undefined;
}

/**
 * Forgets `res` as owed once its every byte was handed to the socket (`end` called on an
 * assigned socket). A pipelined response still waiting for its turn has no socket yet and stays.
 */
export function handedOver(res: ServerResponse): void {
  const socket = res.socket as OwingSocket | null;
  if (socket !== null && socket[OWED] === res) socket[OWED] = undefined;
}
