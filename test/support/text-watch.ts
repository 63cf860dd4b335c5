/**
 * What a process writes on one of its streams, collected as text, and a wait (with a deadline,
 * never a sleep) for it to match — for the tests that drive the built CLI and read its stderr.
 */
import type { Stream } from 'node:stream';

export interface TextWatch {
  /** Everything written so far. */
  text(): string;
  /** Resolves with the first match of `re` on what was written (so far or later); rejects after `ms`. */
  match(re: RegExp, ms?: number): Promise<RegExpExecArray>;
}

/** `what` names the stream in the error a missed match gives (with what it wrote). */
export function watchText(stream: Stream, what: string): TextWatch {
  let text = '';
  const waiters = new Set<() => void>();
  stream.on('data', (c: Buffer | string) => {
    text += c.toString();
    for (const w of [...waiters]) w();
  });
  return {
    text: () => text,
    match: (re, ms = 15_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${what} did not match ${re} within ${ms} ms:\n${text}`));
        }, ms);
        const check = () => {
          const m = re.exec(text);
          if (!m) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        waiters.add(check);
        check();
      }),
  };
}
