/**
 * The stdio wrapper's recorder thread (a worker_thread of the wrapper process, started by
 * recorder-thread.ts). Everything of the wrapper that is not the relay runs here, so that nothing
 * it does — however slow, stuck or broken — delays a byte between the client and the server:
 * redaction and shipping of the records to a UI (ingest-link.ts: batches, the WebSocket), the UI
 * the wrapper serves itself (`startMcpscope`: recorder, linter, store, fastify, feed) and the
 * `--log <file>` recorder (stdio-log.ts).

 */
import { parentPort, workerData } from 'node:worker_threads';
import { unpackRecords } from '../../wire/capture/record-transfer.js';
import type { IngestRecord } from '../../wire/capture/wire-codec.js';
import { IngestLink } from './ingest-link.js';
import { startStdioLog, type StdioLog } from './stdio-log.js';
import type { FromRecorderThread, RecorderThreadConfig, ToRecorderThread } from './recorder-thread-messages.js';

const config = workerData as RecorderThreadConfig;
const shared = new BigInt64Array(config.shared);
const port = parentPort!;
const tell = (m: FromRecorderThread) => port.postMessage(m);
const say = (line: string, raw?: boolean) => tell({ type: 'say', line, ...(raw ? { raw } : {}) });

// --log <file>: in the numbers of the UI that records the process (stdio-log.ts), or its own.
const log: StdioLog | undefined = config.log
  ? startStdioLog({
      ...config.log,
      maxBodyBytes: config.maxBodyBytes,
      lint: config.lint,
      token: config.token || process.env.MCPSCOPE_TOKEN || undefined,
      start: {
        t: 'stdio-start',
        xid: config.xid,
        ts: config.startedAt,
        command: config.command,
        args: config.args,
        ...(config.pid !== undefined ? { pid: config.pid } : {}),
        cwd: config.cwd,
      },
      warn: say,
    })
  : undefined;

const link: IngestLink = new IngestLink(config, {
  say,
  control: (message) => tell({ type: 'control', message }),
  linked: () => tell({ type: 'linked' }),
  unlinked: () => tell({ type: 'unlinked' }),
  serving: (p, token) => tell({ type: 'serving', port: p, token }),
  ...(log
    ? {
        recording: (ui) =>
          ui.numbered
            ? log.recordingInto(ui)
            : log.recordLocally(
                `the mcpscope UI at ${ui.url} is older than this wrapper and does not send back its numbers`,
                link.unconfirmed(),
              ),
        recorded: (events, skipped) => log.recorded(events, skipped),
        unrecorded: (why) => log.recordLocally(`no mcpscope UI records this process (${why})`, link.unconfirmed()),
        shipped: (r) => log.push(r),
      }
    : {}),
});

port.on('message', (m: ToRecorderThread) => {
  switch (m.type) {
    case 'records': {
      Atomics.sub(shared, 0, BigInt(m.batch.bytes.byteLength));
      Atomics.store(shared, 1, BigInt(Date.now()));
      for (const r of unpackRecords(m.batch) as IngestRecord[]) {
        link.push(r);
      }
      return;
    }
    case 'control':
      link.control(m.message);
      return;
    case 'finish':
      void (async () => {
        await link.finish(m.drainMs);
        // What the UI did not say it recorded in time is written in the wrapper's own numbers.
        const left = link.unconfirmed();
        if (left.length > 0) log?.recordLocally('the UI did not say it recorded the last records in time', left);
        await log?.close();
        tell({ type: 'finished', droppedBytes: link.droppedBytes });
      })();
      return;
  }
});
