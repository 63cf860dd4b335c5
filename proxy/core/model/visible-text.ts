/**
 * Invisible characters made visible. A name a peer chose (a tool, a method, a server's version,
 * a header) is shown as text, and text can hide things: a right-to-left override makes
 * `run\u202Ehs.exe` display as `runexe.sh`, a zero-width space makes two names that look the same
 * different, tag characters carry whole sentences nobody sees. `visibleParts` cuts a string into
 * plain runs and the characters that would not show (or would rearrange what does), each as a
 * token the UI draws as a badge: `⟨U+202E⟩`, with what it is in words. Pure, browser-safe: the UI
 * (ui/src/state/visible-text.ts re-exports it) and `mcpscope mcp` (proxy/app/agent/agent-frame.ts,
 * which writes each such character as a `\u202e` escape in what it hands an agent) share it.
 *
 * Shown: bidi controls (U+061C, U+200E/F, U+202A–E, U+2066–9), C0/C1 controls and DEL (tab and
 * line feed allowed in multi-line text, and a CR before a LF), zero-width and format characters
 * (U+200B–D, U+2060–4, U+206A–F, U+FEFF, U+00AD, U+034F, U+180E, U+FFF9–B, U+1D173–A), line and
 * paragraph separators, Hangul fillers, Khmer inherent vowels, tag characters, variation
 * selectors, unpaired surrogates.
 *
 * Not shown, because ordinary text needs them (docs/security.md says the same):
 * - a zero-width joiner between two emoji (👨‍👩‍👧, ❤️‍🔥): it is how those emoji are written;
 * - a zero-width joiner or non-joiner between two letters of a script whose spelling uses them
 *   (Arabic, Persian, Syriac, N'Ko, Mongolian, the Indic scripts: `می‌خواهم`);
 * - one variation selector right after a visible character (❤️, 1️⃣, CJK ideographic variants);
 *   a second one in a row is shown — runs of them are a known way to smuggle bytes in an emoji;
 * - the tag characters of the three subdivision flags there are (England, Scotland, Wales).
 * Everywhere else they are shown: in a name a zero-width joiner is only ever a way to make two
 * names look the same. Bidi marks (LRM, RLM, ALM) are shown even in Hebrew or Arabic prose.
 */

/** A character the UI draws as a badge instead of itself; a run of tag characters or of variation selectors is one. */
export interface InvisibleChar {
  /** The badge text: `⟨U+202E⟩`, `⟨U+FE0F ×12⟩`, `⟨tags "hi there"⟩`. */
  label: string;
  /** What it is and does, for a tooltip: "right-to-left override: an invisible character that reverses the text after it". */
  title: string;
  /** The characters it stands for. */
  text: string;
  /** The first code point. */
  cp: number;
}

export type VisiblePart = string | InvisibleChar;

export interface VisibleOptions {
  /** Text of several lines (a log line, a message): tab, line feed and CR LF stay as they are. */
  multiline?: boolean;
}

/**
 * Every code unit that may need a badge, as a quick test: most strings have none and are returned
 * as they are. Lone surrogates by lookaround; the astral ranges (tags, variation selectors
 * supplement, musical format characters) by their high surrogate.
 */
const CANDIDATE =
  /[\u0000-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDDEF]|\uD834[\uDD73-\uDD7A]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** CANDIDATE less tab and line feed, which multi-line text keeps (most of a pretty-printed body is line feeds). */
const CANDIDATE_MULTILINE =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF9-\uFFFB]|\uDB40[\uDC00-\uDDEF]|\uD834[\uDD73-\uDD7A]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const BIDI: Record<number, string> = {
  0x061c: 'Arabic letter mark: an invisible character that changes the direction of the text around it',
  0x200e: 'left-to-right mark: an invisible character that changes the direction of the text around it',
  0x200f: 'right-to-left mark: an invisible character that changes the direction of the text around it',
  0x202a: 'left-to-right embedding: an invisible character that changes the direction of the text after it',
  0x202b: 'right-to-left embedding: an invisible character that changes the direction of the text after it',
  0x202c: 'pop directional formatting: an invisible character that ends an embedding or override',
  0x202d: 'left-to-right override: an invisible character that forces the text after it to run left to right',
  0x202e: 'right-to-left override: an invisible character that reverses the text after it',
  0x2066: 'left-to-right isolate: an invisible character that changes the direction of the text after it',
  0x2067: 'right-to-left isolate: an invisible character that changes the direction of the text after it',
  0x2068: 'first strong isolate: an invisible character that changes the direction of the text after it',
  0x2069: 'pop directional isolate: an invisible character that ends an isolate',
};

const NAMED: Record<number, string> = {
  0x00: 'null character',
  0x09: 'tab',
  0x0a: 'line feed (a line break)',
  0x0d: 'carriage return',
  0x1b: 'escape: starts a terminal control sequence',
  0x7f: 'delete control character',
  0xad: 'soft hyphen: invisible unless a line breaks there',
  0x034f: 'combining grapheme joiner: an invisible character',
  0x115f: 'Hangul choseong filler: a blank character',
  0x1160: 'Hangul jungseong filler: a blank character',
  0x17b4: 'Khmer inherent vowel: an invisible character',
  0x17b5: 'Khmer inherent vowel: an invisible character',
  0x180e: 'Mongolian vowel separator: an invisible character',
  0x200b: 'zero-width space: an invisible character',
  0x200c: 'zero-width non-joiner: an invisible character',
  0x200d: 'zero-width joiner: an invisible character',
  0x2028: 'line separator: a line break',
  0x2029: 'paragraph separator: a line break',
  0x2060: 'word joiner: an invisible character',
  0x3164: 'Hangul filler: a blank character',
  0xfeff: 'zero-width no-break space (byte order mark): an invisible character',
  0xffa0: 'halfwidth Hangul filler: a blank character',
};

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

const isVariationSelector = (cp: number) =>
  (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || (cp >= 0x180b && cp <= 0x180d) || cp === 0x180f;
const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;

/** Why a code point is drawn as a badge, or undefined when it is an ordinary character. */
export function describeInvisible(cp: number): string | undefined {
  const bidi = BIDI[cp];
  if (bidi !== undefined) return bidi;
  const named = NAMED[cp];
  if (named !== undefined) return named;
  if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return 'control character: invisible, or drawn differently by different programs';
  if (cp >= 0xd800 && cp <= 0xdfff) return 'unpaired surrogate: half of a character, not valid text';
  if (cp >= 0x2061 && cp <= 0x2064) return 'invisible mathematical operator: an invisible character';
  if (cp >= 0x206a && cp <= 0x206f) return 'deprecated format character: an invisible character';
  if (cp >= 0xfff9 && cp <= 0xfffb) return 'interlinear annotation character: an invisible character';
  if (cp >= 0x1d173 && cp <= 0x1d17a) return 'musical symbol format character: an invisible character';
  if (isVariationSelector(cp)) return 'variation selector: an invisible character that picks a form of the character before it';
  if (isTag(cp)) return 'tag character: an invisible copy of an ASCII character';
  if (cp === 0x2065) return 'unassigned format character: an invisible character';
  return undefined;
}

const EMOJI = /\p{Extended_Pictographic}/u;
const EMOJI_TAIL = /[\p{Extended_Pictographic}\p{Emoji_Modifier}\uFE0F\u20E3]/u;
/** Scripts whose spelling uses ZWJ/ZWNJ between letters (Script_Extensions, so their combining marks count). */
const JOINING_SCRIPT =
  /[\p{scx=Arabic}\p{scx=Syriac}\p{scx=Nko}\p{scx=Mongolian}\p{scx=Devanagari}\p{scx=Bengali}\p{scx=Gurmukhi}\p{scx=Gujarati}\p{scx=Oriya}\p{scx=Tamil}\p{scx=Telugu}\p{scx=Kannada}\p{scx=Malayalam}\p{scx=Sinhala}]/u;
/** The three subdivision flags (🏴 + tags + cancel tag) there are: England, Scotland, Wales. */
const FLAG_TAGS = new Set(['gbeng', 'gbsct', 'gbwls']);

const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;

/** The candidates one by one (CANDIDATE, global): the walk looks only where one stands, not at every character. */
const CANDIDATES = new RegExp(CANDIDATE.source, 'g');
const CANDIDATES_MULTILINE = new RegExp(CANDIDATE_MULTILINE.source, 'g');

/** The code point that ends just before `at` (a pair's, or a lone surrogate); undefined at the start. */
function cpBefore(text: string, at: number): number | undefined {
  if (at <= 0) return undefined;
  const c = text.charCodeAt(at - 1);
  if (c >= 0xdc00 && c <= 0xdfff && at >= 2) {
    const h = text.charCodeAt(at - 2);
    if (h >= 0xd800 && h <= 0xdbff) return (h - 0xd800) * 0x400 + (c - 0xdc00) + 0x10000;
  }
  return c;
}

/** The code point that starts at `at` (a pair's, or a lone surrogate); undefined at the end. */
const cpAt = (text: string, at: number): number | undefined => (at < text.length ? text.codePointAt(at) : undefined);

const char = (cp: number | undefined) => (cp === undefined ? '' : String.fromCodePoint(cp));

/** Whether the code point `cp` at `at` (`len` code units) is fine where it is (see the module's comment). */
function allowedHere(text: string, at: number, len: number, cp: number, multiline: boolean): boolean {
  // (A tab or a line feed in multi-line text is no candidate: CANDIDATE_MULTILINE leaves them out.)
  const next = cpAt(text, at + len);
  if (multiline && cp === 0x0d && next === 0x0a) return true;
  const prev = cpBefore(text, at);
  if (cp === 0x200d && EMOJI_TAIL.test(char(prev)) && EMOJI.test(char(next))) return true;
  if ((cp === 0x200c || cp === 0x200d) && JOINING_SCRIPT.test(char(prev)) && JOINING_SCRIPT.test(char(next))) return true;
  if (isVariationSelector(cp)) return prev !== undefined && describeInvisible(prev) === undefined && !/\s/u.test(char(prev));
  return false;
}

/** Length (in code units) of a subdivision flag's tag run starting at `at`, just after 🏴; 0 if it is not one. */
function flagTags(text: string, at: number): number {
  if (cpBefore(text, at) !== BLACK_FLAG) return 0;
  let spec = '';
  for (let i = at, n = 0; i < text.length && n <= 6; i += 2, n++) {
    const cp = text.codePointAt(i)!;
    if (cp === CANCEL_TAG) return FLAG_TAGS.has(spec) ? i + 2 - at : 0;
    if (!isTag(cp)) return 0;
    spec += String.fromCharCode(cp - 0xe0000);
  }
  return 0;
}

/**
 * `text` as plain runs and badges. A string with nothing to show comes back as `[text]` (the same
 * string), cheaply: most do. The walk goes from candidate to candidate (a regular expression finds
 * the next), so its cost is a scan of the text plus a little per candidate.
 */
export function visibleParts(text: string, options: VisibleOptions = {}): VisiblePart[] {
  const multiline = options.multiline === true;
  const find = multiline ? CANDIDATES_MULTILINE : CANDIDATES;
  /** The next candidate at or after `at`. */
  const next = (at: number) => {
    find.lastIndex = at;
    return at < text.length ? find.exec(text) : null;
  };
  let m = next(0);
  if (m === null) return [text];
  const parts: VisiblePart[] = [];
  let plainFrom = 0;
  const flush = (to: number) => {
    if (to > plainFrom) parts.push(text.slice(plainFrom, to));
  };
  for (let from = 0; m !== null; m = next(from)) {
    const at = m.index;
    const cp = text.codePointAt(at)!;
    const len = cp > 0xffff ? 2 : 1;
    const what = describeInvisible(cp);
    if (what === undefined || allowedHere(text, at, len, cp, multiline)) {
      from = at + len;
      continue;
    }
    if (isTag(cp)) {
      const flag = flagTags(text, at);
      if (flag > 0) {
        from = at + flag;
        continue;
      }
      let end = at;
      let count = 0;
      let ascii = '';
      for (let t = cpAt(text, end); t !== undefined && isTag(t); t = cpAt(text, end)) {
        const c = t - 0xe0000;
        ascii += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : '�';
        end += 2;
        count++;
      }
      flush(at);
      parts.push({
        label: `⟨tags ${JSON.stringify(ascii)}⟩`,
        title: `${count} tag character${count === 1 ? '' : 's'}: invisible copies of the ASCII text ${JSON.stringify(ascii)}, which a model reading this may still see`,
        text: text.slice(at, end),
        cp,
      });
      plainFrom = from = end;
      continue;
    }
    if (isVariationSelector(cp)) {
      let end = at + len;
      let count = 1;
      let same = true;
      for (let v = cpAt(text, end); v !== undefined && isVariationSelector(v); v = cpAt(text, end)) {
        if (v !== cp) same = false;
        end += v > 0xffff ? 2 : 1;
        count++;
      }
      if (count > 1) {
        flush(at);
        parts.push({
          label: same ? `⟨${hex(cp)} ×${count}⟩` : `⟨${count} variation selectors⟩`,
          title: `${count} variation selectors in a row: invisible characters; more than one has no visible effect and can carry hidden data`,
          text: text.slice(at, end),
          cp,
        });
        plainFrom = from = end;
        continue;
      }
    }
    flush(at);
    parts.push({ label: `⟨${hex(cp)}⟩`, title: `${hex(cp)} ${what}`, text: text.slice(at, at + len), cp });
    plainFrom = from = at + len;
  }
  flush(text.length);
  return parts;
}

/** Whether `text` has a character `visibleParts` would draw as a badge. */
export function hasInvisible(text: string | undefined, options: VisibleOptions = {}): boolean {
  if (text === undefined || !(options.multiline ? CANDIDATE_MULTILINE : CANDIDATE).test(text)) return false;
  return visibleParts(text, options).some((p) => typeof p !== 'string');
}

/** `text` with each badge written out (`run⟨U+202E⟩hs.exe`): for tooltips, `<option>`s and other plain-text places. */
export function escapeInvisible(text: string, options: VisibleOptions = {}): string {
  if (!(options.multiline ? CANDIDATE_MULTILINE : CANDIDATE).test(text)) return text;
  let out = '';
  for (const p of visibleParts(text, options)) out += typeof p === 'string' ? p : p.label;
  return out;
}
