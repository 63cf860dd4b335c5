/**
 * The tokenizer's own thread (issue 27, context cost): counts tokens of the texts the recorder
 * sends, with gpt-tokenizer's o200k_base encoding. Loading the encoding costs about a second and
 * ~100 MB, and counting a client's tool list tens of milliseconds: here, not on the main thread,
 * where the recorder, the API and the feed run. Started on the first model turn
 * (token-counter.ts); never on the proxy thread.
 */
import { parentPort } from 'node:worker_threads';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

/** A text longer than this is counted on its prefix and scaled: an estimate either way. */
const MAX_COUNTED_CHARS = 256 * 1024;

function count(text: string): number {
  if (text.length <= MAX_COUNTED_CHARS) return countTokens(text);
  return Math.round((countTokens(text.slice(0, MAX_COUNTED_CHARS)) * text.length) / MAX_COUNTED_CHARS);
}

parentPort?.on('message', (msg: { id: number; texts: string[] }) => {
  const counts = msg.texts.map((t) => {
    try {
      return count(t);
    } catch {
      return -1;
    }
  });
  parentPort?.postMessage({ id: msg.id, counts });
});
