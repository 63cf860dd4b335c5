/**
 * The replay's protocol-version negotiation (proxy/files/replay/replay-version.ts, issue 28): which
 * version `initialize` answers with for each version a client may ask for, the log line, and a
 * ReplaySession answering a recorded 2025-11-25 initialize (no sockets: a sink collects what it sends).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { FIXTURE_FORMAT, FIXTURE_VERSION, type Fixture, type FixtureMessage } from '../../../proxy/core/model/fixture-format.js';
import { buildReplayModel } from '../../../proxy/files/replay/replay-matching.js';
import { ReplaySession, type JsonRpcMessage, type ReplaySink } from '../../../proxy/files/replay/replay-session.js';
import { ACCEPTED_VERSIONS, describeNegotiation, negotiateVersion } from '../../../proxy/files/replay/replay-version.js';

describe('negotiateVersion', () => {
  it('answers an older released version with that version (negotiated down)', () => {
    for (const asked of ['2024-11-05', '2025-03-26', '2025-06-18'])
      expect(negotiateVersion(asked, '2025-11-25')).toEqual({ requested: asked, recorded: '2025-11-25', answered: asked, outcome: 'down' });
    expect(negotiateVersion('2025-11-25', '2026-07-28')).toMatchObject({ answered: '2025-11-25', outcome: 'down' });
  });

  it('answers the recorded version to a client that asked for it', () => {
    expect(negotiateVersion('2025-11-25', '2025-11-25')).toEqual({
      requested: '2025-11-25',
      recorded: '2025-11-25',
      answered: '2025-11-25',
      outcome: 'same',
    });
  });

  it('answers the recorded version to a newer, unknown, malformed or missing version, as the recorded server would', () => {
    for (const asked of ['2025-11-25', '2026-07-28'])
      expect(negotiateVersion(asked, '2025-06-18')).toMatchObject({ answered: '2025-06-18', outcome: 'newer' });
    // 2099-01-01 and 'latest' are no versions an SDK server accepts; the rest are not even strings.
    for (const asked of ['2099-01-01', 'latest', ''])
      expect(negotiateVersion(asked, '2025-11-25')).toMatchObject({ answered: '2025-11-25', outcome: 'unknown' });
    for (const asked of [undefined, 20250618, null, { v: 1 }])
      expect(negotiateVersion(asked, '2025-11-25')).toMatchObject({ answered: '2025-11-25', outcome: 'none' });
  });

  it('answers as a real SDK server does whose latest version is the recorded one', async () => {
    // The official SDK server (v1), asked for each version a client may send: its answer is negotiateVersion's.
    for (const asked of [...ACCEPTED_VERSIONS, '2099-01-01', 'latest']) {
      const server = new Server({ name: 's', version: '1' }, { capabilities: {} });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const answer = new Promise<JSONRPCMessage>((resolve) => (clientSide.onmessage = resolve));
      await clientSide.start();
      await clientSide.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: asked, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      });
      const got = ((await answer) as unknown as { result: { protocolVersion: string } }).result.protocolVersion;
      if (asked !== '2026-07-28') expect(negotiateVersion(asked, LATEST_PROTOCOL_VERSION).answered, asked).toBe(got);
      await server.close();
    }
  });

  it('never goes down from a recorded version it cannot compare', () => {
    expect(negotiateVersion('2025-06-18', 'v1')).toMatchObject({ answered: 'v1', outcome: 'newer' });
  });

  it('says in words what happened', () => {
    expect(describeNegotiation(negotiateVersion('2025-06-18', '2025-11-25'))).toBe(
      "initialize: negotiated 2025-06-18, recorded 2025-11-25: answers are the recording's as they were " +
        '(the client asked for 2025-06-18; anything the 2025-11-25 server put in them that 2025-06-18 does not have is sent all the same)',
    );
    expect(describeNegotiation(negotiateVersion('2026-07-28', '2025-11-25'))).toBe(
      'initialize: the client asked for 2026-07-28, newer than the recording; answered 2025-11-25, the recorded version, as the recorded server would (the client decides whether it goes on)',
    );
    expect(describeNegotiation(negotiateVersion('2099-01-01', '2025-11-25'))).toContain(
      'asked for "2099-01-01", which is none of the versions an SDK server accepts (2024-10-07, 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28)',
    );
    expect(describeNegotiation(negotiateVersion(undefined, '2025-11-25'))).toContain(
      'the client named no protocol version; answered 2025-11-25',
    );
    expect(describeNegotiation(negotiateVersion('2025-11-25', '2025-11-25'))).toBe(
      'initialize: the client asked for 2025-11-25, the recorded version',
    );
  });
});

// --- a ReplaySession over a recorded 2025-11-25 initialize -----------------------------------------

const RECORDED_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'srv', version: '1', icons: [{ src: 'data:image/png;base64,AA==' }] },
  instructions: 'recorded instructions',
};

function recorded(result: unknown = RECORDED_RESULT, error?: unknown): Fixture {
  const messages: FixtureMessage[] = [
    {
      seq: 1,
      t: 0,
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      message: {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rec', version: '1' } },
      },
    },
    {
      seq: 2,
      t: 1,
      dir: 's2c',
      kind: error ? 'error' : 'response',
      carrier: 'post-json',
      pair: 1,
      message: { jsonrpc: '2.0', id: 0, ...(error ? { error } : { result }) },
    },
  ];
  return {
    format: FIXTURE_FORMAT,
    version: FIXTURE_VERSION,
    generator: 'test',
    exportedAt: '2026-01-01T00:00:00.000Z',
    session: { transport: 'streamable-http', target: 'http://upstream/mcp', startedAt: 0, protocolVersion: '2025-11-25' },
    exchanges: [],
    messages,
  };
}

function sink(): ReplaySink & { sent: JsonRpcMessage[] } {
  const sent: JsonRpcMessage[] = [];
  return {
    sent,
    streaming: false,
    closed: false,
    send(m) {
      sent.push(m);
      return true;
    },
    onClose() {},
  };
}

async function initialize(fixture: Fixture, protocolVersion: unknown) {
  const log: string[] = [];
  const notices: string[] = [];
  const session = new ReplaySession(buildReplayModel(fixture), { timing: 'fast', log: (l) => log.push(l), notice: (l) => notices.push(l) });
  const out = sink();
  await session.handle(
    {
      jsonrpc: '2.0',
      id: 'live-1',
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'live', version: '2' } },
    },
    out,
  );
  expect(out.sent).toHaveLength(1);
  return { answer: out.sent[0], log, notices, session };
}

describe('ReplaySession answering initialize', () => {
  it('a 2025-06-18 client gets 2025-06-18, everything else as recorded, and a notice says so', async () => {
    const { answer, notices } = await initialize(recorded(), '2025-06-18');
    expect(answer).toEqual({ jsonrpc: '2.0', id: 'live-1', result: { ...RECORDED_RESULT, protocolVersion: '2025-06-18' } });
    expect(notices).toEqual([expect.stringContaining('negotiated 2025-06-18, recorded 2025-11-25')]);
  });

  it('a 2025-11-25 client gets the recorded answer unchanged, and no notice', async () => {
    const { answer, notices, log } = await initialize(recorded(), '2025-11-25');
    expect(answer).toEqual({ jsonrpc: '2.0', id: 'live-1', result: RECORDED_RESULT });
    expect(notices).toEqual([]);
    expect(log).toContain('  initialize: the client asked for 2025-11-25, the recorded version');
  });

  it('a client asking for a newer or an unknown version gets the recorded version, and the log says why', async () => {
    for (const asked of ['2026-07-28', '2030-01-01']) {
      const { answer, notices, log } = await initialize(recorded(), asked);
      expect((answer.result as { protocolVersion: string }).protocolVersion).toBe('2025-11-25');
      expect(notices).toEqual([]);
      expect(log.join('\n')).toContain('answered 2025-11-25, the recorded version, as the recorded server would');
    }
  });

  it('a recorded initialize error goes out as recorded', async () => {
    const error = { code: -32602, message: 'Unsupported protocol version' };
    const { answer, notices } = await initialize(recorded(undefined, error), '2025-06-18');
    expect(answer).toEqual({ jsonrpc: '2.0', id: 'live-1', error });
    expect(notices).toEqual([]);
  });

  it('a fixture without initialize (its answer built from the session metadata) negotiates the same way', async () => {
    const f = recorded();
    f.messages = [];
    f.session.serverInfo = { name: 'srv', version: '1' };
    const { answer } = await initialize(f, '2025-03-26');
    expect((answer.result as { protocolVersion: string }).protocolVersion).toBe('2025-03-26');
  });
});
