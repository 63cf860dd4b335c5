/** A command line for display (a stdio session's target): arguments with spaces or shell characters are single-quoted. */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map((a) => (a !== '' && /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
