/**
 * `*` globs matched in linear time, for patterns a user writes and texts a peer may choose:
 * verify's ignore patterns (proxy/core/model/json-diff.ts) and `--intercept` host patterns
 * (proxy/wire/forward-proxy/intercept.ts). A RegExp built from a glob (`a.*b.*c`) backtracks: against a
 * text that almost matches, each `.*` retries every split of the rest, so `*a*a*a*a*a*a*b`
 * took seconds on a 71-character label and eight stars did not finish. Here the pattern is a
 * list of tokens run as a set of states over the text (Thompson's construction): each character
 * of the text is looked at once per token, O(text × pattern) at worst, whatever the pattern.
 *
 * Pure and builtin-free: the browser may use it too.
 */

/** One position of a pattern: a literal character, or one character / any run of characters not in `not`. */
export type GlobToken =
  | { kind: 'char'; ch: string }
  /** Exactly one character that is not in `not`. */
  | { kind: 'one'; not: string }
  /** Any run of characters (none included) that are not in `not`. */
  | { kind: 'run'; not: string };

/** A compiled pattern: its tokens, in order. */
export interface Glob {
  readonly tokens: readonly GlobToken[];
}

/** `*` → any run of characters (none included), every other character literal. */
export function compileGlob(pattern: string): Glob {
  const tokens: GlobToken[] = [];
  for (const ch of pattern.split('')) {
    if (ch !== '*') tokens.push({ kind: 'char', ch });
    else if (tokens.at(-1)?.kind !== 'run') tokens.push({ kind: 'run', not: '' });
  }
  return { tokens };
}

/** Whether the whole of `text` matches. */
export function globMatches(glob: Glob, text: string): boolean {
  return globMatchesPrefix(glob, text, (i) => i === text.length);
}

/**
 * Whether a prefix of `text` — one that ends at an index where `endsAt(index)` is true (the text's
 * length for the end) — matches. O(text × tokens); `endsAt` is called at most once per index.
 */
export function globMatchesPrefix(glob: Glob, text: string, endsAt: (index: number) => boolean): boolean {
  const tokens = glob.tokens;
  const m = tokens.length;
  let cur = new Uint8Array(m + 1);
  let next = new Uint8Array(m + 1);
  cur[0] = 1;
  let live = close(tokens, cur);
  for (let i = 0; ; i++) {
    if (cur[m] === 1 && endsAt(i)) return true;
    if (i === text.length || !live) return false;
    const c = text[i];
    next.fill(0);
    for (let k = 0; k < m; k++) {
      if (cur[k] === 0) continue;
      const t = tokens[k];
      if (t.kind === 'char') {
        if (t.ch === c) next[k + 1] = 1;
      } else if (!t.not.includes(c)) next[t.kind === 'one' ? k + 1 : k] = 1;
    }
    [cur, next] = [next, cur];
    live = close(tokens, cur);
  }
}

/** Adds the states a run reaches by matching nothing; whether any state is set. */
function close(tokens: readonly GlobToken[], states: Uint8Array): boolean {
  let any = false;
  for (let k = 0; k < tokens.length; k++) {
    if (states[k] === 0) continue;
    any = true;
    if (tokens[k].kind === 'run') states[k + 1] = 1;
  }
  return any || states[tokens.length] === 1;
}
