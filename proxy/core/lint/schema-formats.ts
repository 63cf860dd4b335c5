/**
 * The `format`s a peer's tool schema is checked with: ajv-formats' full set, as the SDK
 * uses, with every format that is a regular expression RE2 can run moved onto RE2
 * (schema-regexp.ts's engine: linear in the string). A format is *bounded* when checking a string
 * against it costs time linear in the string, so that a schema using only bounded formats can be
 * checked without the time guard (schema-size.ts):
 *
 * - the RegExp formats RE2 compiles (email, ipv4, ipv6, uuid, uri-reference, uri-template, the
 *   JSON pointers); hostname, whose one lookahead is a length check done before RE2 runs; uri,
 *   whose expression is copied here;
 * - ajv-formats' own functions whose expressions are anchored and unambiguous (date, time,
 *   date-time, iso-time, iso-date-time: fixed-width digits and one `\d+`; byte: base64 in groups of
 *   four) or that use none (int32, int64, float, double, password, binary).
 *
 * Not bounded, so checked under the guard: duration and url (lookarounds RE2 has no way to run),
 * regex (it compiles the peer's string with V8), and any format ajv-formats does not know (ajv then
 * ignores it).
 */
import type { Ajv } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import formatsModule from 'ajv-formats/dist/formats.js';
import { RE2JS } from 're2js';

type AjvLike = Ajv | Ajv2020;
const addFormats = addFormatsModule as unknown as (ajv: AjvLike) => void;
const { fullFormats } = formatsModule as unknown as { fullFormats: Record<string, unknown> };

const LINEAR_FUNCTIONS = [
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
  'password',
  'binary',
];

/** hostname's lookahead, `(?=.{1,253}\.?$)`: 1 to 253 characters, and a final dot besides. */
const HOSTNAME_LOOKAHEAD = '^(?=.{1,253}\\.?$)';
const hostnameLength = (s: string) => (s.endsWith('.') ? s.length >= 2 && s.length <= 254 : s.length >= 1 && s.length <= 253);

/**
 * ajv-formats' `uri` is a function over an expression it does not export: that expression, copied
 * from ajv-formats 3.0.1 (MIT; from jmrware.com's RFC 3986 expression), run on RE2.
 * test/unit/schema-formats.test.ts compares its answers with ajv-formats' own.
 */
const URI =
  /^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;
const NOT_URI_FRAGMENT = /\/|:/;

/** The formats run on RE2: name → test. */
const re2Formats = new Map<string, (s: string) => boolean>();
for (const [name, format] of Object.entries(fullFormats)) {
  if (!(format instanceof RegExp)) continue;
  let source = format.source;
  let also: ((s: string) => boolean) | undefined;
  if (name === 'hostname' && source.startsWith(HOSTNAME_LOOKAHEAD)) {
    source = `^${source.slice(HOSTNAME_LOOKAHEAD.length)}`;
    also = hostnameLength;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(new RegExp(source, format.flags)));
  } catch {
    continue; // lookarounds: left to ajv-formats, and unbounded
  }
  re2Formats.set(name, also ? (s) => also(s) && re.test(s) : (s) => re.test(s));
}

if ('uri' in fullFormats) {
  const uri = RE2JS.compile(RE2JS.translateRegExp(URI));
  const fragment = RE2JS.compile(RE2JS.translateRegExp(NOT_URI_FRAGMENT));
  re2Formats.set('uri', (s) => fragment.test(s) && uri.test(s));
}

/** Formats whose check is linear in the string (see above). */
export const BOUNDED_FORMATS: ReadonlySet<string> = new Set([...re2Formats.keys(), ...LINEAR_FUNCTIONS.filter((f) => f in fullFormats)]);

/** Adds the formats to an ajv instance: ajv-formats' full set, the RE2 ones in place of theirs. */
export function addSchemaFormats(ajv: AjvLike): void {
  addFormats(ajv);
  for (const [name, test] of re2Formats) ajv.addFormat(name, { type: 'string', validate: test });
}
