/**
 * Durations, sizes and clock times in words, the same everywhere mcpscope shows them: the UI
 * (ui/src/state/format.ts re-exports these) and the annotated log (proxy/files/export/text-log.ts).
 * Pure and browser-safe, like the rest of proxy/model.
 */

/** "0.42 ms", "3.2 ms", "850 ms", "1.24 s", "12.3 s", "2 min 3 s", "1 h 2 min". */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 0) ms = 0;
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 999.5) return `${Math.round(ms)} ms`;
  if (ms < 59_950) {
    const s = ms / 1000;
    return `${s < 9.995 ? s.toFixed(2) : s.toFixed(1)} s`;
  }
  const totalSeconds = Math.round(ms / 1000);
  if (totalSeconds < 3600) {
    const min = Math.floor(totalSeconds / 60);
    const sec = totalSeconds % 60;
    return sec === 0 ? `${min} min` : `${min} min ${sec} s`;
  }
  const totalMinutes = Math.round(totalSeconds / 60);
  const h = Math.floor(totalMinutes / 60);
  const min = totalMinutes % 60;
  return min === 0 ? `${h} h` : `${h} h ${min} min`;
}

const UNITS = ['KB', 'MB', 'GB', 'TB'];

/** "532 B", "1.4 KB", "140 KB", "3.2 MB" (binary multiples, 1 KB = 1024 B). */
export function formatBytes(n: number | undefined): string {
  if (n === undefined || !Number.isFinite(n)) return '—';
  if (n < 0) n = 0;
  if (n < 1024) return `${Math.round(n)} B`;
  let v = n;
  let unit = -1;
  do {
    v /= 1024;
    unit++;
  } while (v >= 1023.95 && unit < UNITS.length - 1);
  return `${v < 99.95 ? v.toFixed(1) : Math.round(v).toString()} ${UNITS[unit]}`;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : String(n));

/** Wall-clock time with milliseconds: "14:03:27.512" (local time, or UTC when asked: golden files). */
export function formatClock(ts: number, utc = false): string {
  if (!Number.isFinite(ts)) return '—';
  const d = new Date(Math.floor(ts));
  return utc
    ? `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${pad3(d.getUTCMilliseconds())}`
    : `${pad2(d.getHours())}:${pad2(d.getMinutes())}:${pad2(d.getSeconds())}.${pad3(d.getMilliseconds())}`;
}
