/**
 * `engines` is honest: every Node version package.json admits (^20.19.0 || ^22.12.0) is one that
 * every installed dependency admits too, so `npm ci` prints no EBADENGINE on Node 20 or 22.
 * light-my-request@6.8 (fastify's inject) asks for cookie@^2, whose engines say Node >= 22: the
 * override in package.json gives it cookie@^1.1.1 (Node >= 18; the same `stringifySetCookie`
 * light-my-request calls, CommonJS), and fastify's inject keeps working (below). Likewise
 * @fastify/static@10 asks for content-disposition@^3 (Node >= 22, an ES module): the override gives
 * it content-disposition@^2.0.1 (Node >= 18, CommonJS, the same create() and header values), and
 * its download still names the file (below). Drop an override once mcpscope's engines start at 22.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';

const ROOT = join(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const semver = require('semver') as { subset(sub: string, dom: string): boolean; satisfies(v: string, range: string): boolean };

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[]; optional?: boolean }>;
};

describe('engines', () => {
  it('the lockfile records the engines package.json declares', () => {
    expect(lock.packages[''].engines).toEqual(pkg.engines);
  });

  it('every dependency installed here admits every Node version mcpscope claims', () => {
    expect(semver.satisfies(process.version, pkg.engines.node)).toBe(true);
    const refused: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path === '' || !entry.engines || Array.isArray(entry.engines) || !entry.engines.node) continue;
      // Platform packages npm skips here (another OS or CPU: optional, not installed) do not count.
      if (!existsSync(join(ROOT, path, 'package.json'))) continue;
      if (!semver.subset(pkg.engines.node, entry.engines.node))
        refused.push(`${path}@${entry.version}: engines.node ${entry.engines.node}`);
    }
    expect(refused).toEqual([]);
  });

  it("fastify's inject (light-my-request with the overridden cookie) sends and parses cookies", async () => {
    const app = Fastify();
    app.get('/echo', async (req, reply) => {
      void reply.header('set-cookie', 'back=yes; Path=/; HttpOnly');
      return { cookie: req.headers.cookie ?? null };
    });
    const res = await app.inject({ method: 'GET', url: '/echo', cookies: { a: 'one two', b: '2' } });
    expect(res.json()).toEqual({ cookie: 'a=one%20two; b=2' });
    expect(res.cookies).toEqual([{ name: 'back', value: 'yes', path: '/', httpOnly: true }]);
    await app.close();
  });

  it("@fastify/static's download (the overridden content-disposition) names the file", async () => {
    const { default: fastifyStatic } = await import('@fastify/static');
    const app = Fastify();
    await app.register(fastifyStatic, { root: import.meta.dirname, serve: false });
    app.get('/file', (_req, reply) => reply.download('engines.test.ts', 'naïve name.ts'));
    const res = await app.inject({ method: 'GET', url: '/file' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="na?ve name.ts"; filename*=UTF-8''na%C3%AFve%20name.ts`);
    await app.close();
  });
});
