/**
 * Which body reader the bare servers use, from `BENCH_BODY_READER`: `text` (the default, the
 * baseline), `arrayBuffer`, `getReader`, `bodyThenArrayBuffer` or `signalThenText`, so that one
 * handler measures what each way of reading costs.
 *
 * @module
 */

import {
  type BodyText,
  readWithArrayBuffer,
  readWithArrayBufferAfterBody,
  readWithReader,
  readWithText,
  readWithTextAfterSignal,
} from './_bare-workload.ts';

const READERS: Readonly<Record<string, BodyText>> = {
  text: readWithText,
  arrayBuffer: readWithArrayBuffer,
  getReader: readWithReader,
  bodyThenArrayBuffer: readWithArrayBufferAfterBody,
  signalThenText: readWithTextAfterSignal,
};

/** The reader `BENCH_BODY_READER` names; throws on a name it does not know. */
export function bodyReaderFromEnv(): BodyText {
  const name = process.env.BENCH_BODY_READER ?? 'text';
  const reader = READERS[name];
  if (reader === undefined) {
    throw new TypeError(`BENCH_BODY_READER is one of ${Object.keys(READERS)}, not ${name}`);
  }
  return reader;
}
