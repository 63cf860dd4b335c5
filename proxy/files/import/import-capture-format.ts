/** What the capture readers (import-capture.ts and one module per format) share. */
import type { McpscopeEvent } from '../../core/model/events.js';

export type CaptureKind = 'fixture' | 'ndjson' | 'events' | 'har';

export interface CaptureImport {
  kind: CaptureKind;
  /** In wire order, with strictly increasing `seq`; links (`pair`, `parent`, `replayOf`) refer to these seqs. */
  events: McpscopeEvent[];
  /** Things that were skipped or guessed, in plain words. */
  warnings: string[];
}

export const NOT_A_CAPTURE =
  'mcpscope can open a fixture (JSON with "format": "mcpscope-fixture"), an NDJSON event log (one mcpscope event per line, as written by `mcpscope --record`) or a HAR file (JSON with log.entries).';
