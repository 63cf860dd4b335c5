/**
 * `mcpscope unwrap <config.json> [--write]`: undoes `mcpscope wrap`. Entries still as wrap wrote
 * them get their original text back byte for byte from the record `<config>.mcpscope.json`;
 * stdio entries edited since (or wrapped by hand) are rebuilt from the command line after `--`.
 * Prints the restored config, or with --write backs the file up and replaces it.
 */
import { unwrapConfig } from './client-config.js';
import { backup, loadConfigChange, recordPath, removeFile, writeAtomic } from './client-config-files.js';
import { parseCommand } from '../cli-parse.js';

export async function main(argv: string[]): Promise<number> {
  const err = process.stderr;
  const args = parseCommand('unwrap', argv);
  if (typeof args === 'number') return args;
  const { values } = args;
  const file = args.operand!;
  const write = values.write ?? false;

  let hadRecord = false;
  const result = loadConfigChange('unwrap', file, (text, record) => {
    hadRecord = record !== undefined;
    return unwrapConfig(text, record);
  });
  if (result === 1) return 1;

  if (!write) {
    process.stdout.write(result.text);
    err.write(
      result.changed
        ? `\nThis is the restored config; nothing was written. Run again with --write to replace ${file} (after a backup).\n`
        : `\nNothing to unwrap: the config is printed unchanged.\n`,
    );
    return 0;
  }
  try {
    if (result.changed) {
      const saved = backup(file);
      writeAtomic(file, result.text);
      err.write(`\nWrote ${file} (the wrapped version is in ${saved}). Restart the client (or reload its MCP servers) to use it.\n`);
    } else err.write(`\nNothing to unwrap: ${file} is left as it is.\n`);
    if (hadRecord) {
      if (Object.keys(result.record.servers).length === 0) removeFile(recordPath(file));
      else writeAtomic(recordPath(file), `${JSON.stringify(result.record, null, 2)}\n`);
    }
  } catch (e) {
    err.write(`mcpscope unwrap: could not write ${file}: ${(e as Error).message}\n`);
    return 1;
  }
  return 0;
}
