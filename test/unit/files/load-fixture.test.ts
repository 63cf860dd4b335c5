/** Reading fixture files: JSON nested far too deep is cut on load, so replay and verify can use it. */
import { describe, expect, it } from 'vitest';
import { parseFixture } from '../../../proxy/files/import/load-fixture.js';
import { buildReplayModel, matchKey } from '../../../proxy/files/replay/replay-matching.js';
import { jsonValueDepth, MAX_JSON_DEPTH } from '../../../proxy/core/parse/json-depth.js';

const D = 100_000;
const deep = `${'['.repeat(D)}${']'.repeat(D)}`;
const fixture = (message: string) =>
  `{"format":"mcpscope-fixture","version":1,"session":{"id":"s1","transport":"streamable-http","startedAt":1},"messages":[${message}]}`;

describe('parseFixture: 100,000 levels deep', () => {
  it('a deep message is cut to the cap; replay builds its model and keys', () => {
    const f = parseFixture(
      fixture(
        `{"seq":1,"t":0,"dir":"c2s","kind":"request","id":1,"method":"tools/call","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"x":${deep}}}}},` +
          `{"seq":2,"t":1,"dir":"s2c","kind":"response","id":1,"message":{"jsonrpc":"2.0","id":1,"result":{"content":${deep}}}}`,
      ),
    );
    expect(jsonValueDepth(f.messages[0].message)).toBe(MAX_JSON_DEPTH);
    expect(jsonValueDepth(f.messages[1].message)).toBe(MAX_JSON_DEPTH);
    const model = buildReplayModel(f);
    expect(model.calls).toHaveLength(1);
    expect(() => matchKey('tools/call', f.messages[0].message.params)).not.toThrow();
  });
});
