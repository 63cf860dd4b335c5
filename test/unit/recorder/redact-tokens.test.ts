import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mayHoldToken, redactKnownTokens } from '../../../proxy/recorder/redact/redact-tokens.js';

// Built at run time so that this file does not itself look like it leaks credentials.
const j = (...p: string[]) => p.join('');
const TOKENS: Record<string, string> = {
  github: j('ghp_', 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'),
  aws: j('AKIA', 'IOSFODNN7EXAMPLQ'),
  slack: j('xoxb-', '123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'),
  openai: j('sk-', 'abcdefghij0123456789', 'T3BlbkFJ', 'abcdefghij0123456789'),
  anthropic: j('sk-ant-api03-', 'x'.repeat(93), 'AA'),
  npm: j('npm_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'),
  google: j('AIza', 'SyA1234567890abcdefghijklmnopqrstuv'),
  jwt: j('eyJhbGciOiJIUzI1NiJ9', '.', 'eyJzdWIiOiIxMjM0NTY3ODkwIn0', '.', 'dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'),
  gitlab: j('glpat-', 'abcdefghij0123456789'),
  // Looser than secretlint's exact-length rules: keys as a model conversation may quote them (issue 27).
  anthropicShort: j('sk-ant-api03-', 'ZZZZZZZZZZZZZZZZZZZZZZZZZZ'),
  anthropicOauth: j('sk-ant-oat01-', 'abcdefghijklmnopqrstuvwxyz012345'),
  openaiProject: j('sk-proj-', 'abcdefghijklmnopqrstuvwxyz0123456789ABCD'),
};

describe('redact-tokens: known formats in free text (secretlint rules + supplements)', () => {
  for (const [kind, token] of Object.entries(TOKENS)) {
    it(`${kind}: found inside a log line and replaced, the text around it kept`, () => {
      const out = redactKnownTokens(`server started with ${token} as its key`);
      expect(out).toBe('server started with [redacted] as its key');
    });
  }

  it('a private key PEM block, whole or cut short', () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const body = privateKey.split('\n')[3];
    expect(redactKnownTokens(`key:\n${privateKey}done`)).not.toContain(body);
    expect(redactKnownTokens(`key: ${privateKey.slice(0, 200)}`)).not.toContain(body.slice(0, 30));
    expect(redactKnownTokens(JSON.stringify({ key: privateKey }))).not.toContain(body);
  });

  it('leaves ordinary text, UUIDs and hashes alone and does not run the rules on them', () => {
    for (const t of [
      'The client asks which tools the server offers.',
      '795126c6-b7d9-4900-9b09-45c85fe0fc06',
      'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      'hello 42',
    ]) {
      expect(mayHoldToken(t), t).toBe(false);
      expect(redactKnownTokens(t)).toBe(t);
    }
    const path = 'file:///home/user/projects/my-application/src/index.ts';
    expect(redactKnownTokens(path)).toBe(path);
  });
});

describe('redact-tokens: cost', () => {
  it('a long base64 blob (an image) is data: not run through the rules; a short base64-looking id is', () => {
    const blob = Buffer.alloc(64 * 1024, 7).toString('base64') + TOKENS.aws;
    expect(redactKnownTokens(blob)).toBe(blob);
    expect(redactKnownTokens(`id ${TOKENS.aws}`)).toBe('id [redacted]');
  });
});
