/**
 * What mcpscope says when NODE_TLS_REJECT_UNAUTHORIZED=0 is in its environment
 * (proxy/wire/forwarder/upstream-tls.ts): once, in plain words, naming how to trust a private CA
 * instead; nothing for any other value (Node's own test: only "0" turns verification off).
 * (That the upstream checks stay on: test/e2e/upstream-tls-env.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { ignoredTlsEnvNotice, tellIgnoredTlsEnv, VERIFY_UPSTREAM } from '../../../proxy/wire/forwarder/upstream-tls.js';

describe('ignoredTlsEnvNotice', () => {
  it('says that the variable is ignored and how to trust a CA instead', () => {
    const notice = ignoredTlsEnvNotice({ NODE_TLS_REJECT_UNAUTHORIZED: '0' });
    expect(notice).toMatch(/NODE_TLS_REJECT_UNAUTHORIZED=0 is set, and mcpscope ignores it for its upstream connections/);
    expect(notice).toContain('--upstream-ca <file.pem>');
    expect(notice).toContain('NODE_EXTRA_CA_CERTS=<file.pem>');
  });

  it('is silent unless the value is "0"', () => {
    for (const value of [undefined, '', '1', 'false', ' 0'])
      expect(ignoredTlsEnvNotice({ NODE_TLS_REJECT_UNAUTHORIZED: value })).toBeUndefined();
  });

  it('is written once however many proxy ports start', () => {
    const written: string[] = [];
    tellIgnoredTlsEnv({}, (t) => written.push(t));
    for (let i = 0; i < 3; i++) tellIgnoredTlsEnv({ NODE_TLS_REJECT_UNAUTHORIZED: '0' }, (t) => written.push(t));
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^mcpscope: .*\n$/s);
  });

  it('verification is asked for explicitly, not left to Node’s default', () => {
    expect(VERIFY_UPSTREAM).toEqual({ rejectUnauthorized: true });
  });
});
