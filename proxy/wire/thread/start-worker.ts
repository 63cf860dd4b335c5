/**
 * Starts a worker thread of mcpscope's own (the HTTP proxy thread, proxy/wire/thread/proxy-thread.ts;
 * a stdio wrapper's recorder thread, proxy/app/stdio/recorder-thread.ts) from its compiled entry —
 * or, run from source (the tests, tsx), from the TypeScript file beside it, compiled by tsx as
 * its parent is.
 */
import { Worker, type WorkerOptions } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** `entry`: the worker's compiled module, `new URL('./x-worker.js', import.meta.url)` in its starter. */
export function startWorker(entry: URL, options: WorkerOptions): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(entry, options);
  const source = entry.href.replace(/\.js$/, '.ts');
  // tsx's ES module API, found through its package.json (require.resolve would give the CommonJS one).
  const pkgPath = createRequire(here).resolve('tsx/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  const tsx = new URL(pkg.exports['./esm/api']!.import.default, pathToFileURL(pkgPath)).href;
  const code = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(code, { ...options, eval: true });
}
