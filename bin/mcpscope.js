#!/usr/bin/env node
// Entry point of the `mcpscope` command: runs the compiled CLI (built by `npm install` / `npm run build`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
const cli = fileURLToPath(new URL('../dist/proxy/app/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('mcpscope: the compiled CLI is missing (dist/proxy/app/cli.js). Run `npm run build` first.\n');
  process.exit(1);
}
await import(cli);
