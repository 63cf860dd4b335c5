/**
 * Export and import on the UI port (registered through startUiServer's `plugins`, so behind the
 * same token and Host/Origin guards as every other route):
 *
 *   GET  /api/sessions/:id/export?format=fixture|har|ndjson|text   one session, as a download
 *   GET  /api/export?format=har|ndjson|text                        everything captured, as a download
 *
 * `text` is the annotated log (proxy/files/export/export-text.ts): what `--log` prints, without colour.
 *   POST /api/import                                          body: a capture file's text → { events, sessions, kind, warnings }
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { McpscopeError, SAY } from '../../core/model/errors.js';
import type { EventStore } from '../../recorder/store/event-store.js';
import { exportFixture } from '../../files/export/export-fixture.js';
import { exportHar } from '../../files/export/export-har.js';
import { exportNdjson } from '../../files/export/export-ndjson.js';
import { exportTextLog } from '../../files/export/export-text.js';
import { appendImported, readCapture } from '../../files/import/import-capture.js';
import { EXPORT_FORMAT_INFO, EXPORT_FORMATS, exportFileName, isExportFormat, type ExportFormat } from '../../core/model/export-formats.js';

// The download names: test/e2e/fixtures-export.test.ts reads the function from here.
export { exportFileName };

/** Largest capture accepted by POST /api/import. */
export const IMPORT_BODY_LIMIT = 256 * 1024 * 1024;

export interface FixtureRoutesOptions {
  store: EventStore;
  /** The UI token: scrubbed from every export. */
  token: string;
  /** mcpscope's version, for `generator` / HAR `creator.version`. */
  version?: string;
  /**
   * A running proxy keeps adding sessions to this store: imported sessions then never keep an id
   * the live recorder might hand out later (`s3` → `s3-i1`).
   */
  live?: boolean;
}

function badFormat(format: string, allowed: readonly ExportFormat[]): McpscopeError {
  return new McpscopeError(
    'BAD_EXPORT_FORMAT',
    `Unknown export format ${JSON.stringify(format)}: use ${allowed.map((f) => `format=${f}`).join(', ')}.`,
  );
}

/**
 * The export body, or EXPORT_FAILED (500) in plain words: nothing is kept from a failed attempt,
 * so the next export (or this one after the cause is gone) starts afresh.
 */
function build(format: ExportFormat, make: () => string): string {
  try {
    return make();
  } catch (err) {
    const why = err instanceof Error ? `${err.name === 'Error' ? '' : `${err.name}: `}${err.message}` : String(err);
    throw new McpscopeError(
      'EXPORT_FAILED',
      `mcpscope could not build the ${format === 'ndjson' ? 'NDJSON' : format === 'har' ? 'HAR' : format === 'text' ? 'annotated log' : 'fixture'} export (${why}). The recording itself is unchanged; other exports and the UI keep working.`,
      { cause: err },
    );
  }
}

function download(reply: FastifyReply, format: ExportFormat, fileName: string, body: string) {
  return reply
    .header('content-type', EXPORT_FORMAT_INFO[format].type)
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .send(body);
}

export function fixtureRoutes(options: FixtureRoutesOptions): (app: FastifyInstance) => Promise<void> {
  const { store, token } = options;
  const generator = options.version ? `mcpscope ${options.version}` : undefined;

  return async (app) => {
    app.get<{ Params: { id: string }; Querystring: { format?: string } }>('/api/sessions/:id/export', async (req, reply) => {
      const format = req.query.format ?? 'fixture';
      if (!isExportFormat(format)) throw badFormat(format, EXPORT_FORMATS);
      const session = store.sessions.get(req.params.id);
      if (!session) throw new McpscopeError('NO_SESSION', SAY.noSession(req.params.id));
      const body = build(format, () =>
        format === 'fixture'
          ? `${JSON.stringify(exportFixture(store, session.id, { token, generator }), null, 2)}\n`
          : format === 'har'
            ? `${JSON.stringify(exportHar(store, session.id, { token, version: options.version }), null, 2)}\n`
            : format === 'text'
              ? exportTextLog(store, session.id, { token })
              : exportNdjson(store, session.id, { token }),
      );
      return download(reply, format, exportFileName(session.id, session.startedAt, format), body);
    });

    app.get<{ Querystring: { format?: string } }>('/api/export', async (req, reply) => {
      const format = req.query.format ?? 'ndjson';
      if (format !== 'har' && format !== 'ndjson' && format !== 'text') {
        if (format === 'fixture')
          throw new McpscopeError('BAD_EXPORT_FORMAT', 'A fixture holds one session: use /api/sessions/<id>/export?format=fixture.');
        throw badFormat(format, ['har', 'ndjson', 'text']);
      }
      const first = store.snapshot()[0];
      const body = build(format, () =>
        format === 'har'
          ? `${JSON.stringify(exportHar(store, undefined, { token, version: options.version }), null, 2)}\n`
          : format === 'text'
            ? exportTextLog(store, undefined, { token })
            : exportNdjson(store, undefined, { token }),
      );
      return download(reply, format, exportFileName('all', first?.ts ?? Date.now(), format), body);
    });

    // The import body is the file's text, whatever the content type says (a .har is JSON, an
    // .ndjson is not): this scope reads every body as a plain string.
    await app.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: IMPORT_BODY_LIMIT }, (_req, body, done) => done(null, body));
      scope.post('/api/import', { bodyLimit: IMPORT_BODY_LIMIT }, async (req) => {
        const text = typeof req.body === 'string' ? req.body : '';
        let parsed;
        try {
          parsed = readCapture(text);
        } catch (err) {
          // readCapture says every failure as a CaptureFormatError; anything else is still the file's fault, in one line.
          if (err instanceof McpscopeError) throw err;
          throw new McpscopeError('BAD_CAPTURE', err instanceof Error ? err.message : String(err), { cause: err });
        }
        const result = appendImported(store, parsed.events, { avoidLiveIds: options.live });
        return { events: result.events, sessions: result.sessions, kind: parsed.kind, warnings: parsed.warnings };
      });
    });
  };
}
