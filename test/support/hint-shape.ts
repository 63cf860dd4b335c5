/**
 * The shape rules every plain-language hint keeps, checked on every hint a test file produced:
 * `track` the hints as they are made, and `checkEveryHint()` last in the file (vitest keeps
 * declaration order within a file).
 */
import { describe, expect, it } from 'vitest';
import type { Hint } from '../../proxy/core/model/events.js';

export function hintTracker(): { track(hints: Hint[]): Hint[]; checkEveryHint(atLeast: number): void } {
  const seen: Hint[] = [];
  return {
    track(hints) {
      seen.push(...hints);
      return hints;
    },
    checkEveryHint(atLeast) {
      describe('every hint produced above', () => {
        it('was produced at all', () => {
          expect(seen.length).toBeGreaterThan(atLeast);
        });

        it('has a stable kebab-case code, a level and at most two sentences', () => {
          for (const h of seen) {
            expect(['info', 'warn', 'error']).toContain(h.level);
            expect(h.code).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
            const sentences = h.text.match(/[.!?](?=\s|$)/g) ?? [];
            expect(sentences.length, h.text).toBeGreaterThan(0);
            expect(sentences.length, h.text).toBeLessThanOrEqual(2);
            expect(h.text, h.text).toMatch(/^[A-Z0-9"']/);
          }
        });
      });
    },
  };
}
