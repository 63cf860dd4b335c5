/**
 * The regular-expression engine ajv uses for a peer's `pattern` and `patternProperties` (its
 * `code.regExp` option): RE2 (the re2js port), which matches in time linear in the input, never
 * backtracking — `"pattern": "^(a+)+$"` against 40 `a`s and a `!` takes V8's RegExp for ever and
 * RE2 a millisecond. A pattern is ECMA-262 syntax; RE2JS.translateRegExp turns what
 * the two spell differently (named groups, `\u{…}`) into RE2's. What RE2 cannot do at all —
 * lookaround, backreferences — is not checked: the pattern matches everything, and the compile
 * that met it lists it (`uncheckable`), so the linter can say so. It never falls back to a
 * backtracking engine.
 */
import { RE2JS } from 're2js';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';

/** Compiled patterns kept (by source and flags), shared by every schema that uses them. */
const MAX_PATTERNS = 1024;
const patterns = new Map<string, RegExpLike>();

/** Patterns RE2 could not compile, as ajv met them in the compile under way (see `collectUncheckable`). */
let uncheckable: string[] | undefined;

class Re2Pattern implements RegExpLike {
  constructor(
    private readonly re: RE2JS,
    private readonly source: string,
  ) {}
  test(s: string): boolean {
    return this.re.test(s);
  }
  /** ajv keys its scope values by this: it must differ for different patterns. */
  toString(): string {
    return `re2:/${this.source}/`;
  }
}

class UncheckablePattern implements RegExpLike {
  constructor(readonly source: string) {}
  test(): boolean {
    return true;
  }
  toString(): string {
    return `uncheckable:/${this.source}/`;
  }
}

function compilePattern(pattern: string, flags: string): RegExpLike {
  const key = `${flags}/${pattern}`;
  const hit = patterns.get(key);
  if (hit) return hit;
  let rx: RegExpLike;
  try {
    rx = new Re2Pattern(RE2JS.compile(RE2JS.translateRegExp(pattern)), pattern);
  } catch {
    rx = new UncheckablePattern(pattern);
  }
  patterns.set(key, rx);
  while (patterns.size > MAX_PATTERNS) patterns.delete(patterns.keys().next().value as string);
  return rx;
}

/** ajv's `code.regExp`. */
export const re2Engine: RegExpEngine = Object.assign(
  (pattern: string, flags: string): RegExpLike => {
    const rx = compilePattern(pattern, flags);
    if (rx instanceof UncheckablePattern && uncheckable && !uncheckable.includes(rx.source)) uncheckable.push(rx.source);
    return rx;
  },
  // Only read by ajv's standalone code generation, which mcpscope does not use.
  { code: 'mcpscope-re2' },
);

/** Runs a compile and returns, beside its result, the patterns in it that RE2 cannot check. */
export function collectUncheckable<T>(compile: () => T): { result: T; uncheckable: string[] } {
  const outer = uncheckable;
  const list: string[] = [];
  uncheckable = list;
  try {
    return { result: compile(), uncheckable: list };
  } finally {
    uncheckable = outer;
  }
}

/**
 * Forgets every compiled pattern: after a check was stopped mid-way (time-guard.ts), a pattern's
 * lazily built automaton may be half-built.
 */
export function forgetPatterns(): void {
  patterns.clear();
  // A stopped compile never ran collectUncheckable's finally.
  uncheckable = undefined;
}
