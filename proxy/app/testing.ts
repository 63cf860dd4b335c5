/**
 * `mcpscope/testing`: run an MCP client's tests against a recorded server.
 *
 *   import { startMockServer } from 'mcpscope/testing';
 *   const server = await startMockServer('test/fixtures/weather.fixture.json');
 *   // … point the client under test at server.url …
 *   await server.close();
 *
 * See docs/testing-with-fixtures.md.
 */
import { loadFixture } from '../files/import/load-fixture.js';
import type { Fixture } from '../core/model/fixture-format.js';
import { startMockServer as startHttpMock, type MockServer, type MockServerOptions } from '../files/replay/replay-server.js';

export { loadFixture, parseFixture, validateFixture } from '../files/import/load-fixture.js';
export { FixtureError, VerifyConnectionError } from '../core/model/errors.js';
export {
  startStdioMock,
  type MockServer,
  type MockServerOptions,
  type StdioMock,
  type StdioMockOptions,
} from '../files/replay/replay-server.js';
export {
  verifyFixture,
  formatVerifyReport,
  type VerifyOptions,
  type VerifyReport,
  type VerifyDifference,
  type VerifyCall,
} from '../files/replay/verify.js';
export { FIXTURE_FORMAT, FIXTURE_VERSION } from '../core/model/fixture-format.js';
export type { Fixture, FixtureExchange, FixtureMessage, FixtureSession } from '../core/model/fixture-format.js';

/**
 * Serves a fixture (an object from `loadFixture`, or a path to a fixture file) as a Streamable
 * HTTP MCP server on an OS-chosen loopback port. Resolves once it listens.
 */
export function startMockServer(fixture: Fixture | string, options: MockServerOptions = {}): Promise<MockServer> {
  return startHttpMock(typeof fixture === 'string' ? loadFixture(fixture) : fixture, options);
}
