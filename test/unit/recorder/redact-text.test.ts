import { describe, expect, it } from 'vitest';
import {
  NAME_WORDS,
  redactAssignments,
  redactFlags,
  redactFreeText,
  redactHeaderLines,
  redactJsonPairs,
  redactUserinfo,
} from '../../../proxy/recorder/redact/redact-text.js';
import { GRANT_KEYS, vocabularyNames } from '../../../proxy/recorder/redact/redact-vocab.js';

const R = '[redacted]';

describe('redact-text: JSON pairs in text that does not parse', () => {
  it('credential keys in any case, string or number values, the last one cut mid-value', () => {
    const cut =
      '{"jsonrpc":"2.0","result":{"accessToken":"SECRET-a","Client_Secret":"SECRET-b","pin":1,"password":123456,"refreshToken":"SECRET-c';
    expect(redactJsonPairs(cut)).toBe(
      `{"jsonrpc":"2.0","result":{"accessToken":"${R}","Client_Secret":"${R}","pin":1,"password":"${R}","refreshToken":"${R}"`,
    );
  });

  it('escaped quotes inside a value, and JSON quoted inside a JSON string (escaped key and value)', () => {
    expect(redactJsonPairs('{"token": "a\\"b\\\\", "x": 1}')).toBe(`{"token": "${R}", "x": 1}`);
    const nested = JSON.stringify({ text: JSON.stringify({ password: 'SECRET-n"q', ok: true }) });
    const out = redactJsonPairs(nested);
    expect(out).not.toContain('SECRET-n');
    expect(JSON.parse(JSON.parse(out).text)).toEqual({ password: R, ok: true });
  });

  it('leaves MCP words, objects under credential-ish keys and already redacted values alone', () => {
    const t =
      '{"progressToken":"p-1","nextCursor":"c2","arguments":{"code":"print(1)"},"maxTokens":100,"credentials":{"user":"u"},"token":"[redacted]"}';
    expect(redactJsonPairs(t)).toBe(t);
  });

  // Found by test/unit/recorder-fuzz.test.ts: an unterminated value swallowed the pair after it.
  it('an unterminated value ends at a line break, and a quote that closed a value may open the next key', () => {
    expect(redactJsonPairs('data: {"result":{"password":"\n\ndata: {"password":"SECRET-1"}')).toBe(
      `data: {"result":{"password":"${R}"\n\ndata: {"password":"${R}"}`,
    );
    expect(redactJsonPairs('{"password":"x, "token":"SECRET-2"}')).toBe(`{"password":"${R}"token":"${R}"}`);
    // A well-formed neighbour is left as it was.
    expect(redactJsonPairs('{"password":"a","x":"b","token":"c"}')).toBe(`{"password":"${R}","x":"b","token":"${R}"}`);
  });

  it('an OAuth code only in a token request', () => {
    expect(redactJsonPairs('{"grant_type":"authorization_code","code":"SECRET-c","redirect_uri":"x"')).not.toContain('SECRET-c');
  });
});

describe('redact-text: forms, queries, env assignments, flags, header lines, userinfo', () => {
  it('form text without a leading ? (a text/plain token response), any case', () => {
    expect(redactAssignments('access_token=SECRET-1&token_type=bearer&Refresh_Token=SECRET-2')).toBe(
      `access_token=${R}&token_type=bearer&Refresh_Token=${R}`,
    );
  });

  it('query names in quoted URLs: key, sig, X-Amz-Signature, API_KEY', () => {
    const t = 'GET https://h/x?key=SECRET-k&sig=SECRET-s&X-Amz-Signature=SECRET-a&API_KEY=SECRET-b&page=2';
    expect(redactAssignments(t)).toBe(`GET https://h/x?key=${R}&sig=${R}&X-Amz-Signature=${R}&API_KEY=${R}&page=2`);
  });

  it('env-style and log-style assignments of credential names; others kept', () => {
    expect(redactAssignments('OPENAI_API_KEY=SECRET-o DEBUG=1 password=SECRET-p user=bob')).toBe(
      `OPENAI_API_KEY=${R} DEBUG=1 password=${R} user=bob`,
    );
  });

  it('command-line flags with a separate or = value, quoted or not', () => {
    expect(redactFlags("srv --api-key SECRET-1 --token 'SECRET 2' --password=SECRET-3 --port 80 --verbose")).toBe(
      `srv --api-key ${R} --token ${R} --password=${R} --port 80 --verbose`,
    );
  });

  it('header lines keep the scheme', () => {
    expect(redactHeaderLines('curl -H "Authorization: Bearer SECRET-1" -H \'X-Api-Key: SECRET-2\'')).toBe(
      `curl -H "Authorization: Bearer ${R}" -H 'X-Api-Key: ${R}'`,
    );
    expect(redactHeaderLines('password: SECRET-3\nError: connect ECONNREFUSED 127.0.0.1:80')).toBe(
      `password: ${R}\nError: connect ECONNREFUSED 127.0.0.1:80`,
    );
  });

  it('URL userinfo: the password goes, the user stays', () => {
    expect(redactUserinfo('postgres://app:SECRET-pw@db:5432/x and https://u:SECRET-2@h/')).toBe(
      `postgres://app:${R}@db:5432/x and https://u:${R}@h/`,
    );
  });

  it('all of it through redactFreeText, and ordinary prose unchanged', () => {
    const prose =
      'Server log at level "info": "Processed 12 items; next: page 2". The client asks which tools the server offers (cursor "abc").';
    expect(redactFreeText(prose)).toBe(prose);
    expect(redactFreeText('sent Bearer abcdef0123456789xyz to the API')).toBe(`sent Bearer ${R} to the API`);
  });
});

describe('redact-text: the name gate', () => {
  it('NAME_WORDS holds a word of every name the vocabulary can match (else the gate would skip it)', () => {
    for (const n of [...vocabularyNames(), ...GRANT_KEYS, 'kty']) expect(NAME_WORDS.test(n), n).toBe(true);
  });
});

describe('redact-text: redactJsonPairs on JSON cut short, which does not parse', () => {
  it('replaces the string values of credential fields, also a last one cut mid-value', () => {
    const cut = '{"access_token":"eyJhbGciOi.x.y", "token_type":"Bearer","refresh_token":"rt-1\\"q","id_token":"abc';
    expect(redactJsonPairs(cut)).toBe(
      '{"access_token":"[redacted]", "token_type":"Bearer","refresh_token":"[redacted]","id_token":"[redacted]"',
    );
  });

  it('leaves other text, and values already redacted, alone', () => {
    expect(redactJsonPairs('{"token_type":"Bearer","expires_in":3600')).toBe('{"token_type":"Bearer","expires_in":3600');
    expect(redactJsonPairs('{"client_secret":"[redacted]","x":1')).toBe('{"client_secret":"[redacted]","x":1');
    expect(redactJsonPairs('no quotes here')).toBe('no quotes here');
  });
});
