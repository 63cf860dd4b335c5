import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { describeInvisible, escapeInvisible, hasInvisible, visibleParts, type InvisibleChar } from '../../ui/src/state/visible-text';

const badges = (text: string, multiline = false) =>
  visibleParts(text, { multiline }).filter((p): p is InvisibleChar => typeof p !== 'string');
const tags = (ascii: string) => [...ascii].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');

describe('visibleParts', () => {
  it('shows a right-to-left override as a badge, so the name no longer reads reversed', () => {
    const parts = visibleParts('run\u202Ehs.exe');
    expect(parts).toEqual([
      'run',
      {
        label: '⟨U+202E⟩',
        title: expect.stringContaining('right-to-left override: an invisible character that reverses the text after it'),
        text: '\u202E',
        cp: 0x202e,
      },
      'hs.exe',
    ]);
    expect(escapeInvisible('run\u202Ehs.exe')).toBe('run⟨U+202E⟩hs.exe');
  });

  it('shows every bidi control', () => {
    for (const cp of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c]) {
      const c = String.fromCodePoint(cp);
      expect(
        badges(`a${c}b`).map((b) => b.cp),
        c,
      ).toEqual([cp]);
      expect(badges(`a${c}b`)[0].title).toMatch(/direction|reverses|left to right|ends an/);
    }
  });

  it('shows C0 and C1 controls and DEL; tab and line feed only in single-line text', () => {
    for (let cp = 0; cp < 0x20; cp++) expect(hasInvisible(`x${String.fromCharCode(cp)}y`), `U+${cp}`).toBe(true);
    for (let cp = 0x7f; cp <= 0x9f; cp++) expect(hasInvisible(`x${String.fromCharCode(cp)}y`), `U+${cp}`).toBe(true);
    expect(escapeInvisible('a\tb\nc')).toBe('a⟨U+0009⟩b⟨U+000A⟩c');
    expect(escapeInvisible('a\tb\r\nc\rd\u0000', { multiline: true })).toBe('a\tb\r\nc⟨U+000D⟩d⟨U+0000⟩');
    expect(badges('\u001b[31m')[0].title).toContain('escape');
  });

  it('shows zero-width, format and filler characters', () => {
    const cps = [
      0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2064, 0x206a, 0x206f, 0xfeff, 0x00ad, 0x034f, 0x180e, 0x115f, 0x1160, 0x3164, 0xffa0,
      0x17b4, 0x17b5, 0x2028, 0x2029, 0xfff9, 0x1d173, 0x1d17a,
    ];
    for (const cp of cps) {
      const text = `ab${String.fromCodePoint(cp)}cd`;
      expect(
        badges(text).map((b) => b.cp),
        cp.toString(16),
      ).toEqual([cp]);
      expect(escapeInvisible(text)).toBe(`ab⟨U+${cp.toString(16).toUpperCase().padStart(4, '0')}⟩cd`);
    }
    expect(badges('a\u3164b')[0].title).toBe('U+3164 Hangul filler: a blank character');
  });

  it('keeps surrogate pairs whole: an astral invisible is one badge, an astral letter plain text', () => {
    expect(escapeInvisible('a\u{1D173}b')).toBe('a⟨U+1D173⟩b');
    expect(visibleParts('𝒳𝒴 😀')).toEqual(['𝒳𝒴 😀']);
    expect(escapeInvisible('😀\u202E😀')).toBe('😀⟨U+202E⟩😀');
  });

  it('shows unpaired surrogates', () => {
    expect(escapeInvisible('a\uD800b')).toBe('a⟨U+D800⟩b');
    expect(escapeInvisible('a\uDC00')).toBe('a⟨U+DC00⟩');
    expect(escapeInvisible('\uDBFF')).toBe('⟨U+DBFF⟩');
    expect(badges('x\uD83D')[0].title).toContain('unpaired surrogate');
  });

  it('leaves Arabic, Hebrew, Chinese, Hindi and Persian text alone (ZWNJ between Persian letters is spelling)', () => {
    for (const text of [
      'مرحبا بالعالم',
      'שלום עולם',
      '你好，世界',
      'नमस्ते दुनिया',
      'می\u200Cخواهم',
      'क्\u200Dष',
      'Ελληνικά',
      'Ünïcödé façade',
    ]) {
      expect(visibleParts(text), text).toEqual([text]);
      expect(hasInvisible(text)).toBe(false);
    }
  });

  it('shows ZWJ and ZWNJ between Latin letters or at the ends of a name', () => {
    expect(escapeInvisible('read\u200Dfile')).toBe('read⟨U+200D⟩file');
    expect(escapeInvisible('read\u200Cfile')).toBe('read⟨U+200C⟩file');
    expect(escapeInvisible('مرحبا\u200C')).toBe('مرحبا⟨U+200C⟩');
  });

  it('does not show the ZWJ inside emoji sequences (family, flags, skin tones, keycaps)', () => {
    for (const text of [
      '👨\u200D👩\u200D👧',
      '❤️\u200D🔥',
      '🏳️\u200D🌈',
      '👩🏽\u200D💻',
      '1️⃣',
      '❤️',
      '🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}',
    ]) {
      expect(visibleParts(text), text).toEqual([text]);
    }
    // A ZWJ that joins an emoji to a letter is not part of any emoji.
    expect(escapeInvisible('🔥\u200Dx')).toBe('🔥⟨U+200D⟩x');
  });

  it('shows variation selectors that select nothing, and runs of them as one badge', () => {
    expect(escapeInvisible('\uFE0Fabc')).toBe('⟨U+FE0F⟩abc');
    expect(escapeInvisible('a \uFE0F')).toBe('a ⟨U+FE0F⟩');
    const smuggled = `😀${'\u{E0100}\u{E0101}'.repeat(8)}`;
    const parts = visibleParts(smuggled);
    expect(parts[0]).toBe('😀\u{E0100}');
    expect((parts[1] as InvisibleChar).label).toBe('⟨15 variation selectors⟩');
    expect(escapeInvisible('❤\uFE0F\uFE0F\uFE0F')).toBe('❤\uFE0F⟨U+FE0F ×2⟩');
  });

  it('decodes a run of tag characters into one badge, except the three subdivision flags', () => {
    const hidden = `echo${tags('ignore all')}`;
    expect(escapeInvisible(hidden)).toBe('echo⟨tags "ignore all"⟩');
    expect(badges(hidden)[0].title).toContain('10 tag characters');
    expect(badges(hidden)[0].text).toBe(tags('ignore all'));
    // 🏴 + tags that are no flag: shown.
    expect(escapeInvisible(`🏴${tags('xxhi')}\u{E007F}`)).toBe('🏴⟨tags "xxhi�"⟩');
  });

  it('describes every character it flags', () => {
    expect(describeInvisible(0x41)).toBeUndefined();
    expect(describeInvisible(0x20)).toBeUndefined();
    expect(describeInvisible(0x202e)).toContain('reverses');
  });

  it('gives back the text it was given, badges and all', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.boolean(), (text, multiline) => {
        const joined = visibleParts(text, { multiline })
          .map((p) => (typeof p === 'string' ? p : p.text))
          .join('');
        expect(joined).toBe(text);
      }),
    );
  });

  it('returns a plain string untouched, as one part', () => {
    const text = 'tools/call get_weather';
    expect(visibleParts(text)[0]).toBe(text);
    expect(escapeInvisible(text)).toBe(text);
  });
});

describe('multi-line text', () => {
  it('comes back whole when its only controls are tabs and line feeds', () => {
    const text = '{\n\t"a": 1\n}';
    expect(visibleParts(text, { multiline: true })[0]).toBe(text);
    expect(hasInvisible(text, { multiline: true })).toBe(false);
    expect(hasInvisible(text)).toBe(true);
    expect(escapeInvisible(`${text}\u202E`, { multiline: true })).toBe(`${text}⟨U+202E⟩`);
  });
});
