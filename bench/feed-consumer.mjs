// A UI-like consumer of mcpscope's WebSocket feed, alone in its process as a browser tab is:
// it parses every message, as the UI does. Started by bench/proxy.ts through bench/support.ts.
//   node bench/feed-consumer.mjs <ws url> <token>   → prints {"proxy":""} once connected;
//   stdin: count → {messages}; close → exits.
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

const [url, token] = process.argv.slice(2);
let messages = 0;
const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}`, host: new URL(url).host } });
ws.on('message', (d) => {
  JSON.parse(d.toString());
  messages += 1;
});
await new Promise((resolve, reject) => {
  ws.once('open', resolve);
  ws.once('error', reject);
});
const say = (v) => process.stdout.write(`${JSON.stringify(v)}\n`);
say({ proxy: '' });
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === 'count') say({ messages });
  else if (line.trim() === 'close') {
    ws.close();
    process.exit(0);
  }
}
// stdin closed: the bench that started this process is gone (even if it was killed outright); do not outlive it.
process.exit(0);
