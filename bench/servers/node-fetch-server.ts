/** The fetch workload of `_fetch-workload.ts` on @remix-run/node-fetch-server. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from '@remix-run/node-fetch-server';
import { announce, benchPort } from './_common.ts';
import { createFetchWorkload, readTextCapped } from './_fetch-workload.ts';

const server = createServer(createRequestListener(createFetchWorkload(readTextCapped)));
server.listen(benchPort(), '127.0.0.1', () => {
  announce((server.address() as AddressInfo).port);
});
