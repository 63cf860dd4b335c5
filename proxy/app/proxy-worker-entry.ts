/**
 * The proxy thread's entry (started by proxy/wire/thread/proxy-thread.ts from the URL
 * PROXY_WORKER_ENTRY): the wire layer's worker, run with the addons' proxy-thread halves.
 */
import { runProxyWorker } from '../wire/thread/proxy-worker.js';
import { THREAD_ADDONS } from '../addons/thread-addons.js';

await runProxyWorker(THREAD_ADDONS);
