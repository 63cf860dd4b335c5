// The client for bench/streams.ts, in its own process: holds many SSE streams open at once.
//   node bench/stream-client.mjs <url>    prints {proxy: url}; then stdin lines:
//   open <n>  → opens n more GET streams (one connection each, at most 500 not yet answered at a
//               time); answers {held, failed, firstError} once each has its first event or failed,
//               or when nothing moved for 15 s (then `stuck` counts those still waiting)
//   call      → one initialize POST on a connection of its own: {status, ms}
//   close     → exits
import { request } from 'node:http';
import { createInterface } from 'node:readline';

const url = new URL(process.argv[2]);
const say = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);
const held = [];
let failed = 0;
let firstError;

function openOne() {
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        headers: { accept: 'text/event-stream', 'mcp-session-id': 'bench-streams' },
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 200) {
          failed++;
          firstError ??= `status ${res.statusCode}`;
          res.resume();
          return resolve();
        }
        let text = '';
        const onData = (c) => {
          text += c;
          if (!text.includes('\n\n')) return;
          res.off('data', onData);
          res.resume();
          held.push(req);
          resolve();
        };
        res.on('data', onData);
      },
    );
    req.on('error', (err) => {
      failed++;
      firstError ??= err.code ?? err.message;
      resolve();
    });
    req.end();
  });
}

async function open(n) {
  let started = 0;
  let settled = 0;
  let lastMove = Date.now();
  await new Promise((resolve) => {
    const more = () => {
      while (started < n && started - settled < 500) {
        started++;
        void openOne().then(() => {
          settled++;
          lastMove = Date.now();
          if (settled === n) resolve();
          else more();
        });
      }
    };
    more();
    const watch = setInterval(() => {
      if (Date.now() - lastMove > 15_000) resolve();
    }, 1000);
    watch.unref();
  });
  return { held: held.length, failed, stuck: started - settled + (n - started), firstError };
}

function call() {
  const t0 = performance.now();
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
  });
  return new Promise((resolve) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        agent: false,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0 }));
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error('no answer in 15 s')));
    req.on('error', (err) => resolve({ status: 0, error: err.message, ms: performance.now() - t0 }));
    req.end(body);
  });
}

say({ proxy: url.href });
for await (const line of createInterface({ input: process.stdin })) {
  const [cmd, arg] = line.trim().split(/\s+/);
  if (cmd === 'open') say(await open(Number(arg)));
  else if (cmd === 'call') say(await call());
  else if (cmd === 'close') process.exit(0);
}
process.exit(0);
