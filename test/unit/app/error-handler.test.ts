/**
 * proxy/app/serve/error-handler.ts: the UI API's one error handler, over a real fastify instance on
 * 127.0.0.1 (port 0), and proxy/core/model/errors.ts's table behind it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { errorAnswer, installErrorHandler } from '../../../proxy/app/serve/error-handler.js';
import { ERRORS, McpscopeError, UsageError, type ErrorCode } from '../../../proxy/core/model/errors.js';

describe('ERRORS', () => {
  it('gives every code a 4xx or 5xx status and words', () => {
    for (const [code, info] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[A-Z_]+$/);
      expect(info.status >= 400 && info.status < 600, code).toBe(true);
      expect(info.means.length, code).toBeGreaterThan(10);
    }
  });

  it("answers each code with its table status, or the thrower's", () => {
    for (const code of Object.keys(ERRORS) as ErrorCode[]) {
      const a = errorAnswer(new McpscopeError(code, `words for ${code}`));
      expect(a).toEqual({ status: ERRORS[code].status, body: { error: `words for ${code}`, code }, internal: false });
    }
    expect(errorAnswer(new McpscopeError('SEND_FAILED', 'timed out', { status: 504 })).status).toBe(504);
    // A subclass keeps its one code.
    expect(errorAnswer(new UsageError('--max-body takes a number')).body.code).toBe('USAGE');
  });
});

describe('installErrorHandler', () => {
  let app: FastifyInstance;
  let base = '';
  const logged: string[] = [];

  beforeAll(async () => {
    app = Fastify({ bodyLimit: 64 });
    installErrorHandler(app, (line) => logged.push(line));
    app.get('/session/:id', async (req) => {
      throw new McpscopeError('NO_SESSION', `No session ${(req.params as { id: string }).id}`);
    });
    app.post('/echo', async (req) => req.body);
    app.get('/boom', async () => {
      throw new Error('ENOENT: /home/someone/.secret/thing at open (node:fs)');
    });
    app.get('/sync-throw', () => {
      throw new McpscopeError('BAD_QUERY', 'limit must be a whole number');
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers an McpscopeError with its status, words and code', async () => {
    const res = await fetch(`${base}/session/s9`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: 'No session s9', code: 'NO_SESSION' });
    const sync = await fetch(`${base}/sync-throw`);
    expect(sync.status).toBe(400);
    expect(await sync.json()).toEqual({ error: 'limit must be a whole number', code: 'BAD_QUERY' });
  });

  it("keeps fastify's own refusals: their status and FST_ code", async () => {
    const bad = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()) as { error: string; code: string };
    expect(badBody.code).toMatch(/^FST_ERR_CTP_/);
    expect(badBody.error.length).toBeGreaterThan(0);
    const big = await fetch(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ x: 'y'.repeat(200) }),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: string }).code).toBe('FST_ERR_CTP_BODY_TOO_LARGE');
    expect(logged).toEqual([]);
  });

  it('answers anything else 500 INTERNAL in plain words, logs it, and leaks nothing', async () => {
    const res = await fetch(`${base}/boom?token=abc`);
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ error: expect.stringMatching(/its own fault/), code: 'INTERNAL' });
    expect(text).not.toMatch(/secret|ENOENT|node:fs|at /);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatch(/^mcpscope: GET \/boom failed: Error: ENOENT/);
    // The query string (a token may ride there) stays out of the log line's head.
    expect(logged[0]).not.toContain('token=abc');
  });
});
