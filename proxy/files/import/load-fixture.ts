/**
 * Reading a fixture file for replay, verify and the test helper: checks that it is an mcpscope
 * fixture of a version this build understands and that the parts replay relies on are there,
 * with an error that says what is wrong and where. (The full JSON Schema lives beside the format
 * documentation; this check is deliberately the small subset every consumer needs.)
 */
import { readFileSync } from 'node:fs';
import { FIXTURE_FORMAT, FIXTURE_VERSION, type Fixture } from '../../core/model/fixture-format.js';
import { parseIgnorePattern } from '../../core/model/json-diff.js';
import { capLoadedDocument, fileTooDeep } from './capture-depth.js';
import { FixtureError } from '../../core/model/errors.js';

const DIRECTIONS = new Set(['c2s', 's2c']);
const KINDS = new Set(['request', 'notification', 'response', 'error']);

/** Checks a parsed document; returns it typed as a Fixture or throws a FixtureError naming the problem. */
export function validateFixture(doc: unknown, source = 'fixture'): Fixture {
  const fail = (what: string): never => {
    throw new FixtureError(`${source}: ${what}`);
  };
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) fail('not an mcpscope fixture (expected a JSON object)');
  const d = doc as Record<string, unknown>;
  if (d.format !== FIXTURE_FORMAT) {
    if (Array.isArray((d as { log?: { entries?: unknown } }).log?.entries))
      fail('this is a HAR file, not an mcpscope fixture; open it with `mcpscope open`');
    fail(`not an mcpscope fixture ("format" is ${JSON.stringify(d.format)}, expected ${JSON.stringify(FIXTURE_FORMAT)})`);
  }
  if (d.version !== FIXTURE_VERSION) {
    const newer = typeof d.version === 'number' && d.version > FIXTURE_VERSION;
    fail(
      `fixture version ${JSON.stringify(d.version)} is not supported by this mcpscope (it reads version ${FIXTURE_VERSION})` +
        (newer ? '; upgrade mcpscope to read it' : ''),
    );
  }
  const session = d.session as Record<string, unknown> | undefined;
  if (!session || typeof session !== 'object') fail('"session" is missing');
  if (typeof session!.transport !== 'string') fail('"session.transport" is missing');
  if (!Array.isArray(d.messages)) fail('"messages" must be an array');
  if (d.exchanges !== undefined && !Array.isArray(d.exchanges)) fail('"exchanges" must be an array');
  (d.messages as unknown[]).forEach((m, i) => {
    const at = `messages[${i}]`;
    if (m === null || typeof m !== 'object') fail(`${at} is not an object`);
    const msg = m as Record<string, unknown>;
    if (typeof msg.seq !== 'number') fail(`${at}.seq must be a number`);
    if (!DIRECTIONS.has(msg.dir as string)) fail(`${at}.dir must be "c2s" or "s2c", not ${JSON.stringify(msg.dir)}`);
    if (!KINDS.has(msg.kind as string))
      fail(`${at}.kind must be request, notification, response or error, not ${JSON.stringify(msg.kind)}`);
    if (msg.message === null || typeof msg.message !== 'object' || Array.isArray(msg.message))
      fail(`${at}.message must be a JSON-RPC message object`);
  });
  if (d.verify !== undefined) {
    const v = d.verify as Record<string, unknown> | null;
    if (v === null || typeof v !== 'object' || Array.isArray(v)) fail('"verify" must be an object ({ "ignore": [ … ] })');
    if (v!.ignore !== undefined) {
      if (!Array.isArray(v!.ignore))
        fail('"verify.ignore" must be an array of difference paths, e.g. ["tools/call random_delay › content[0].text"]');
      (v!.ignore as unknown[]).forEach((pattern, i) => {
        if (typeof pattern !== 'string') fail(`verify.ignore[${i}] must be a string, not ${JSON.stringify(pattern)}`);
        try {
          parseIgnorePattern(pattern as string);
        } catch (err) {
          fail(`verify.ignore[${i}]: ${(err as Error).message}`);
        }
      });
    }
  }
  if (d.exchanges === undefined) d.exchanges = [];
  return d as unknown as Fixture;
}

/**
 * Parses fixture text (e.g. a file's contents). JSON nested deeper than MAX_JSON_DEPTH is cut on
 * load (capture-depth.ts); anything unforeseen that breaks the reading is a FixtureError too.
 */
export function parseFixture(text: string, source = 'fixture'): Fixture {
  let doc: unknown;
  try {
    doc = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const firstLine = text.trimStart().split('\n', 1)[0] ?? '';
    if (/^\{.*"type"\s*:\s*"(session|message|exchange)"/.test(firstLine) && text.trim().includes('\n')) {
      throw new FixtureError(
        `${source}: this looks like an NDJSON event log, not a fixture; open it with \`mcpscope open\` and export the session as a fixture`,
      );
    }
    throw new FixtureError(`${source}: not valid JSON (${(err as Error).message})`);
  }
  try {
    if (fileTooDeep(text)) doc = capLoadedDocument(doc);
    return validateFixture(doc, source);
  } catch (err) {
    if (err instanceof FixtureError) throw err;
    throw new FixtureError(`${source}: mcpscope could not read this fixture (${err instanceof Error ? err.message : String(err)})`);
  }
}

/** Reads and validates a fixture file. */
export function loadFixture(path: string): Fixture {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new FixtureError(e.code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot read it (${e.message})`);
  }
  return parseFixture(text, path);
}
