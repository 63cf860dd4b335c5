/**
 * `mcpscope wrap <config.json> [--write] [--ui-port U]`: routes every server of a Claude Desktop,
 * Cursor or VS Code MCP config through mcpscope (stdio servers under `<node> <mcpscope> --`, both
 * absolute paths — see resolveLauncher in client-config-files.ts; URL servers at a local proxy
 * port each). Before anything is written, the command is run once (`--version`, from `/` with a
 * minimal PATH, as a desktop app would start it); if it does not work, nothing is written.
 * Prints the new config, or with --write backs the file up and replaces it, recording what
 * changed in `<config>.mcpscope.json` for `mcpscope unwrap`. The transforms are in client-config.ts.
 */
import { DEFAULT_UI_PORT, wrapConfig } from './client-config.js';
import { backup, checkLauncher, loadConfigChange, MINIMAL_PATH, recordPath, resolveLauncher, writeAtomic } from './client-config-files.js';
import { parseCommand } from '../cli-parse.js';
import { commandLine } from '../../core/model/command-line.js';
import { discoveryPath } from '../serve/discovery.js';

export async function main(argv: string[]): Promise<number> {
  const err = process.stderr;
  const args = parseCommand('wrap', argv);
  if (typeof args === 'number') return args;
  const { values } = args;
  const file = args.operand!;
  const uiPort = values['ui-port'] ?? DEFAULT_UI_PORT;
  const firstProxyPort = values.port;
  const write = values.write ?? false;

  let launcher;
  try {
    launcher = resolveLauncher();
  } catch (e) {
    err.write(`mcpscope wrap: ${(e as Error).message}\n`);
    return 1;
  }
  const result = loadConfigChange('wrap', file, (text, record) => wrapConfig(text, { uiPort, record, launcher, firstProxyPort }));
  if (result === 1) return 1;

  // The stdio entries wrapped now run mcpscope this way: check that it starts, as a client would.
  const stdioWrapped = result.servers.some((s) => s.action === 'wrapped' && result.record.servers[s.name]?.kind === 'stdio');
  let checkFailed = false;
  if (stdioWrapped) {
    const shown = commandLine(launcher.command, launcher.args);
    err.write(
      `\nThe stdio servers run mcpscope as: ${shown}\n(node and ${launcher.installed ? 'the installed mcpscope' : "this checkout's bin/mcpscope.js (no mcpscope installed from it is on PATH)"}, by absolute paths: they start from any directory, with any PATH)\n`,
    );
    const check = checkLauncher(launcher);
    const where = process.platform === 'win32' ? 'from the root directory' : `from / with PATH=${MINIMAL_PATH}`;
    if (check.ok) err.write(`Checked: ${check.ran} ${where} ${check.detail}.\n`);
    else {
      checkFailed = true;
      err.write(`mcpscope wrap: this command does not work: ${check.ran} ${where}: ${check.detail}.\n`);
    }
  }

  if (!write) {
    process.stdout.write(result.text);
    if (checkFailed) err.write(`\nThis wrapped config would not start its stdio servers; nothing was written, and --write would refuse.\n`);
    else
      err.write(
        result.changed
          ? `\nThis is the wrapped config; nothing was written. Run again with --write to replace ${file} (after a backup).\n`
          : `\nNothing to wrap: the config is printed unchanged.\n`,
      );
    if (checkFailed) return 1;
  } else if (checkFailed) {
    err.write(`\nNothing was written: ${file} is left as it is.\n`);
    return 1;
  } else if (!result.changed) {
    err.write(`\nNothing to wrap: ${file} is left as it is.\n`);
  } else {
    try {
      const saved = backup(file);
      writeAtomic(recordPath(file), `${JSON.stringify(result.record, null, 2)}\n`);
      writeAtomic(file, result.text);
      err.write(
        `\nWrote ${file} (the original is in ${saved}; what changed is in ${recordPath(file)} — keep it for \`mcpscope unwrap\`).\nRestart the client (or reload its MCP servers) to use it.\n`,
      );
      if (stdioWrapped) err.write(`If you move the mcpscope checkout or remove that node, run this wrap again: it updates the paths.\n`);
    } catch (e) {
      err.write(`mcpscope wrap: could not write ${file}: ${(e as Error).message}\n`);
      return 1;
    }
  }
  if (result.proxies.length > 0) {
    err.write(`\nThe URL servers now go through local proxies. Start these before the client, and keep them running:\n`);
    for (const p of result.proxies) err.write(`  ${p.command}    # ${p.name}\n`);
    err.write(
      `(The first serves the UI on port ${uiPort}, which the wrapped stdio servers join; ${result.proxies.length > 1 ? 'the others serve UIs of their own on free ports and print their URLs.' : 'it prints the UI URL with its token.'})\n`,
    );
  }
  if (result.servers.some((s) => s.action === 'wrapped')) {
    err.write(
      `\nOpen the UI at http://127.0.0.1:${uiPort}/?token=<token>, the token being in ${discoveryPath(uiPort)} while a UI runs (see docs/clients.md).\n`,
    );
  }
  return 0;
}
