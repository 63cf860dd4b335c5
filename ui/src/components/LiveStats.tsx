/**
 * What a live mcpscope says of itself on `api/stats`, polled every 5 s while the header shows it:
 * how many old events its bounded store evicted, and — when OTLP export is on (`--otlp`,
 * docs/team-setup.md) — where spans go, how many the collector took, and how many were lost.
 * A saved capture has no such endpoint: the header renders none of this there.
 */
import { useEffect, useState } from 'react';
import type { ApiStats, TelemetryStats } from '../../../proxy/core/model/api-stats.js';
import { apiFetch } from '../state/api.js';
import { noun } from '../state/format.js';

const POLL_MS = 5000;

/** Only a well-formed answer counts (an older mcpscope may not have api/stats, or no telemetry in it). */
function storeStats(s: unknown): ApiStats | undefined {
  const o = s as Partial<ApiStats> | null;
  if (
    !o ||
    typeof o.evictedEvents !== 'number' ||
    typeof o.evictedSessions !== 'number' ||
    typeof o.maxEvents !== 'number' ||
    typeof o.maxBytes !== 'number'
  ) {
    return undefined;
  }
  const t = o.telemetry;
  const telemetry =
    t &&
    typeof t.endpoint === 'string' &&
    typeof t.protocol === 'string' &&
    typeof t.spansExported === 'number' &&
    typeof t.spansDropped === 'number' &&
    typeof t.spansUnfinished === 'number'
      ? t
      : undefined;
  return { ...(o as ApiStats), telemetry };
}

/** api/stats, polled while mounted. */
function useLiveStats(): ApiStats | undefined {
  const [stats, setStats] = useState<ApiStats | undefined>();
  useEffect(() => {
    let live = true;
    const load = () =>
      apiFetch('stats')
        .then((r) => (r.ok ? r.json() : undefined))
        .then((s: unknown) => {
          const ok = storeStats(s);
          if (live && ok) setStats(ok);
        })
        .catch(() => undefined);
    void load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, []);
  return stats;
}

/** The header's notes on the live store and the OTLP export. */
export function LiveStats() {
  const stats = useLiveStats();
  if (!stats) return null;
  return (
    <>
      {stats.evictedEvents > 0 ? (
        <span
          className="warn-text"
          data-testid="evicted"
          title={`mcpscope keeps at most ${stats.maxEvents.toLocaleString()} events (${Math.round(stats.maxBytes / 2 ** 20)} MiB); the oldest closed sessions were evicted first. Raise --max-events / --max-memory to keep more, or use --record to keep everything on disk.`}
        >
          <b>{stats.evictedEvents.toLocaleString()}</b> evicted ({stats.evictedSessions.toLocaleString()} sessions)
        </span>
      ) : null}
      {stats.telemetry ? <TelemetryNote t={stats.telemetry} /> : null}
    </>
  );
}

/** "OTLP 1,234 spans" — amber with what was lost, and the collector's last error, when spans were dropped. */
function TelemetryNote({ t }: { t: TelemetryStats }) {
  const lines = [
    `OpenTelemetry export to ${t.endpoint} (${t.protocol})`,
    `${t.spansExported.toLocaleString()} ${noun(t.spansExported, 'span')} accepted by the collector`,
    `${t.spansDropped.toLocaleString()} dropped (a queue was full, or the collector refused or did not answer)`,
    `${t.spansUnfinished.toLocaleString()} ended unanswered (session ended, too many open, or mcpscope stopped)`,
  ];
  if (t.metricExports !== undefined) {
    lines.push(`metrics: ${t.metricExports.toLocaleString()} exports sent, ${(t.metricExportsFailed ?? 0).toLocaleString()} failed`);
  }
  if (t.lastError) lines.push(`last error: ${t.lastError}`);
  const trouble = t.spansDropped > 0 || (t.metricExportsFailed ?? 0) > 0;
  return (
    <span className={trouble ? 'warn-text' : 'muted'} data-testid="telemetry" title={lines.join('\n')}>
      OTLP <b>{t.spansExported.toLocaleString()}</b> {noun(t.spansExported, 'span')}
      {t.spansDropped > 0 ? (
        <>
          {' · '}
          <b>{t.spansDropped.toLocaleString()}</b> dropped
        </>
      ) : null}
    </span>
  );
}
