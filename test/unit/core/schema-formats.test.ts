/**
 * The formats a peer's schema is checked with (proxy/core/lint/schema-formats.ts): ajv-formats' full
 * set, its RegExp formats moved onto RE2 with the same answers, and which formats are linear.
 */
import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { BOUNDED_FORMATS, addSchemaFormats } from '../../../proxy/core/lint/schema-formats.js';
import { TIMED_OUT, bounded } from '../../../proxy/core/lint/time-guard.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;
const options = { strict: false, logger: false as const };
const ours = new Ajv(options);
addSchemaFormats(ours);
const theirs = new Ajv(options);
addFormats(theirs);

const CASES: Record<string, string[]> = {
  uri: [
    'https://example.com/a?b=c#d',
    'urn:isbn:0451450523',
    'mailto:a@example.com',
    'http://[::1]:8080/x',
    'http://user:pw@host:1/p',
    'relative/path',
    '//no-scheme',
    '1http://bad-scheme',
    'https://exa mple.com',
    'https://example.com/%zz',
    'file:///etc/hosts',
    'a:',
  ],
  email: ['a@example.com', 'first.last+tag@sub.example.org', 'no-at-sign', 'a@b', '@example.com', 'a..b@example.com', 'A@EXAMPLE.COM'],
  hostname: [
    'example.com',
    'example.com.',
    'a',
    'a'.repeat(63),
    'a'.repeat(64),
    `${'a.'.repeat(126)}a`,
    `${'a.'.repeat(127)}a`,
    '-bad.com',
    'Ok.Example',
    '',
  ],
  ipv4: ['127.0.0.1', '255.255.255.255', '256.0.0.1', '1.2.3', '01.2.3.4'],
  ipv6: ['::1', '2001:db8::1', 'fe80::1%eth0', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', '::ffff:127.0.0.1', 'gg::1'],
  uuid: [
    '123e4567-e89b-12d3-a456-426614174000',
    'urn:uuid:123e4567-e89b-12d3-a456-426614174000',
    '123e4567e89b12d3a456426614174000',
    'X23e4567-e89b-12d3-a456-426614174000',
  ],
  'uri-reference': ['https://example.com/a?b#c', '../x', '#frag', 'a b', 'http://[::1]:80/'],
  'uri-template': ['https://example.com/{id}', '/search{?q,lang}', '{', 'a b'],
  'json-pointer': ['', '/a/b', '/a~0b~1c', 'a', '/~2'],
  'json-pointer-uri-fragment': ['#', '#/a/b', '#/a%20b', '/a'],
  'relative-json-pointer': ['0', '1/a', '2#', '-1', '01'],
};

describe('RE2 formats', () => {
  it('answer as ajv-formats does, on valid and invalid strings', () => {
    for (const [format, values] of Object.entries(CASES)) {
      const a = ours.compile({ type: 'string', format });
      const b = theirs.compile({ type: 'string', format });
      for (const v of values) expect(a(v), `${format} ${JSON.stringify(v)}`).toBe(b(v));
    }
  });

  it('are linear: a string built to make a backtracking engine work hard takes no time', () => {
    const email = ours.compile({ type: 'string', format: 'email' });
    const hostname = ours.compile({ type: 'string', format: 'hostname' });
    const template = ours.compile({ type: 'string', format: 'uri-template' });
    const uri = ours.compile({ type: 'string', format: 'uri' });
    expect(
      bounded(() => {
        email(`${'a.'.repeat(50_000)}!@x`);
        hostname(`${'a-'.repeat(100_000)}!`);
        template(`${'{a,'.repeat(50_000)}`);
        uri(`http://${'a@'.repeat(50_000)}[`);
      }, 2_000),
    ).not.toBe(TIMED_OUT);
  });

  it('bounded formats: the RE2 ones and ajv-formats’ linear functions; not duration, url or regex', () => {
    for (const f of [
      ...Object.keys(CASES),
      'date',
      'time',
      'date-time',
      'iso-time',
      'iso-date-time',
      'byte',
      'int32',
      'int64',
      'float',
      'double',
    ])
      expect(BOUNDED_FORMATS.has(f), f).toBe(true);
    for (const f of ['duration', 'url', 'regex', 'no-such-format']) expect(BOUNDED_FORMATS.has(f), f).toBe(false);
  });
});
