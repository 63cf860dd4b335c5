/**
 * The pieces between a stdio wrapper and the UI it reports to, without sockets: the JSON codec
 * of /ingest batches, and the wrapper's bounded record queue (IngestClient) on a stand-in socket.
 */
import { describe, expect, it } from 'vitest';
import { decodeBatch, encodeBatch, type IngestRecord } from '../../../proxy/wire/capture/wire-codec.js';
import WebSocket from 'ws';
import { IngestClient, type IngestSocket } from '../../../proxy/app/stdio/ingest-client.js';
import type { WireRecord } from '../../../proxy/wire/capture/wire-records.js';
import { commandLine } from '../../../proxy/core/model/command-line.js';
import {
  checkIngestAuth,
  checkIngestProof,
  ingestAuth,
  ingestProof,
  parseControlDown,
  parseControlUp,
} from '../../../proxy/app/stdio/ingest-control.js';
import { createHmac } from 'node:crypto';

const bytes = (s: string) => new Uint8Array(Buffer.from(s));

describe('wire codec (/ingest batches)', () => {
  it('round-trips every record a wrapper sends, chunks byte for byte', () => {
    const binary = new Uint8Array(256).map((_, i) => i);
    const records: IngestRecord[] = [
      { t: 'stdio-start', xid: 'p', ts: 1, command: 'node', args: ['a b', ''], pid: 12, cwd: '/x', joined: true },
      { t: 'stdio-chunk', xid: 'p', ts: 2, dir: 'c2s', chunk: binary },
      { t: 'stdio-chunk', xid: 'p', ts: 3, dir: 's2c', chunk: bytes('{"jsonrpc":"2.0"}\n') },
      { t: 'stdio-stderr', xid: 'p', ts: 4, chunk: new Uint8Array(0) },
      { t: 'overflow', xid: 'p', ts: 5, droppedBytes: 10, stream: 's2c' },
      { t: 'stdio-exit', xid: 'p', ts: 6, code: null, signal: 'SIGTERM' },
    ];
    const decoded = decodeBatch(encodeBatch(records));
    expect('records' in decoded && decoded.records.map((r) => ('chunk' in r ? { ...r, chunk: [...r.chunk] } : r))).toEqual(
      records.map((r) => ('chunk' in r ? { ...r, chunk: [...r.chunk] } : r)),
    );
  });

  it('encodes a chunk that is a view into a larger buffer by its own bytes only', () => {
    const big = Buffer.from('xxxxHELLOxxxx');
    const view = big.subarray(4, 9);
    const decoded = decodeBatch(encodeBatch([{ t: 'stdio-stderr', xid: 'p', ts: 1, chunk: view }]));
    expect('records' in decoded && Buffer.from((decoded.records[0] as { chunk: Uint8Array }).chunk).toString()).toBe('HELLO');
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['not an array', '{"t":"stdio-exit"}', /JSON array/],
    ['an HTTP record', JSON.stringify([{ t: 'request', xid: 'p', ts: 1 }]), /cannot be ingested/],
    ['no xid', JSON.stringify([{ t: 'stdio-exit', ts: 1, code: 0, signal: null }]), /xid/],
    ['bad base64', JSON.stringify([{ t: 'stdio-stderr', xid: 'p', ts: 1, chunk: 'not base64!' }]), /base64/],
    ['bad direction', JSON.stringify([{ t: 'stdio-chunk', xid: 'p', ts: 1, dir: 'up', chunk: '' }]), /c2s or s2c/],
    ['bad args', JSON.stringify([{ t: 'stdio-start', xid: 'p', ts: 1, command: 'x', args: [1] }]), /args/],
    ['a fractional exit code', JSON.stringify([{ t: 'stdio-exit', xid: 'p', ts: 1, code: 1.5, signal: null }]), /code/],
  ])('refuses a batch with %s', (_name, text, message) => {
    const r = decodeBatch(text);
    expect('error' in r && r.error).toMatch(message);
  });
});

describe('IngestClient (the wrapper’s record queue)', () => {
  const start = (joined: boolean): IngestRecord[] => [
    { t: 'stdio-start', xid: 'p', ts: 0, command: 'srv', args: [], ...(joined ? { joined } : {}) },
  ];
  const chunk = (dir: 'c2s' | 's2c', s: string): IngestRecord => ({ t: 'stdio-chunk', xid: 'p', ts: 1, dir, chunk: bytes(s) });
  const show = (r: WireRecord) =>
    r.t === 'stdio-chunk'
      ? `${r.dir}:${Buffer.from(r.chunk).toString()}`
      : r.t === 'overflow'
        ? `overflow:${r.stream}:${r.droppedBytes}`
        : r.t === 'stdio-start'
          ? `start${r.joined ? '(joined)' : ''}`
          : r.t;

  /** A stand-in socket: every batch sent is decoded into `got`. */
  const socket = (got: WireRecord[]): IngestSocket => ({
    readyState: WebSocket.OPEN,
    bufferedAmount: 0,
    send: ((text: string) => {
      const d = decodeBatch(text);
      if ('error' in d) throw new Error(d.error);
      got.push(...d.records);
    }) as IngestSocket['send'],
  });

  it('keeps records until linked, then delivers the hello first and the rest in order', () => {
    const got: WireRecord[] = [];
    const client = new IngestClient({ hello: start });
    client.push(chunk('c2s', 'a'));
    client.push(chunk('s2c', 'b'));
    expect(got).toEqual([]);
    client.attach(socket(got));
    expect(got.map(show)).toEqual(['start', 'c2s:a', 's2c:b']);
    client.push({ t: 'stdio-exit', xid: 'p', ts: 2, code: 0, signal: null });
    client.flush();
    expect(got.map(show)).toEqual(['start', 'c2s:a', 's2c:b', 'stdio-exit']);
  });

  it('past its bound drops chunk bytes per stream, counts them, and says where with an overflow record', () => {
    const got: WireRecord[] = [];
    const client = new IngestClient({ hello: start, maxQueuedBytes: 4 });
    client.push(chunk('c2s', 'abc'));
    client.push(chunk('s2c', 'defg')); // 3 + 4 > 4: dropped
    client.push(chunk('s2c', 'h')); // s2c is dropping until its overflow record is delivered
    client.push(chunk('c2s', 'i')); // fits
    client.push({ t: 'stdio-exit', xid: 'p', ts: 2, code: 3, signal: null }); // never dropped
    expect(client.droppedBytes).toBe(5);
    client.attach(socket(got));
    expect(got.map(show)).toEqual(['start', 'c2s:abc', 'overflow:s2c:5', 'c2s:i', 'stdio-exit']);
    // Delivered: the stream records again.
    client.push(chunk('s2c', 'j'));
    client.flush();
    expect(got.map(show).at(-1)).toBe('s2c:j');
  });

  it('opens every later link with a joined hello, and holds records while unlinked', () => {
    const first: WireRecord[] = [];
    const second: WireRecord[] = [];
    const client = new IngestClient({ hello: start });
    const a = socket(first);
    client.attach(a);
    client.detach(a);
    client.push(chunk('c2s', 'x'));
    client.flush();
    expect(first.map(show)).toEqual(['start']);
    client.attach(socket(second));
    expect(second.map(show)).toEqual(['start(joined)', 'c2s:x']);
  });

  it('on an acked link (--log) keeps what it sent until the UI says it is recorded, and sends the rest again behind the next hello', () => {
    const first: WireRecord[] = [];
    const second: WireRecord[] = [];
    const client = new IngestClient({ hello: start, maxQueuedBytes: 4 });
    const a = socket(first);
    client.attach(a, { acked: true });
    client.push(chunk('c2s', 'a'));
    client.push(chunk('s2c', 'b'));
    client.flush();
    expect(first.map(show)).toEqual(['start', 'c2s:a', 's2c:b']);
    // The UI recorded its hello and the first chunk (the count covers everything the socket brought).
    client.ack(2);
    expect(client.unconfirmed().map(show)).toEqual(['s2c:b']);
    client.push(chunk('c2s', 'cd'));
    // Unconfirmed bytes count against the bound: 1 sent + 2 queued + 2 more > 4.
    client.push(chunk('s2c', 'ef'));
    expect(client.droppedBytes).toBe(2);
    client.detach(a);
    // The next link: its own hello, what the last UI never said it recorded, then what waited.
    client.attach(socket(second), { acked: true });
    expect(second.map(show)).toEqual(['start(joined)', 's2c:b', 'c2s:cd', 'overflow:s2c:2']);
    // A stale or repeated count changes nothing; the new link's count starts at its hello.
    client.ack(1);
    expect(client.unconfirmed().map(show)).toEqual(['s2c:b', 'c2s:cd', 'overflow:s2c:2']);
    client.ack(4);
    expect(client.unconfirmed().map(show)).toEqual([]);
  });

  it('drains an acked link only once the UI said everything is recorded', async () => {
    const got: WireRecord[] = [];
    const client = new IngestClient({ hello: start });
    client.attach(socket(got), { acked: true });
    client.push(chunk('c2s', 'a'));
    expect(await client.drain(30)).toBe(false);
    expect(client.unconfirmed().map(show)).toEqual(['c2s:a']);
    const drained = client.drain(5_000);
    client.ack(2);
    expect(await drained).toBe(true);
    // A link that is not acked keeps nothing.
    const plain = new IngestClient({ hello: start });
    plain.attach(socket([]));
    plain.push(chunk('c2s', 'a'));
    expect(await plain.drain(1_000)).toBe(true);
    expect(plain.unconfirmed()).toEqual([]);
  });
});

describe('the ingest handshake (ingest-control.ts)', () => {
  it('proves the token with HMAC-SHA256 over the nonce, checked in constant time', () => {
    const nonce = 'n'.repeat(43);
    const proof = ingestProof('the-token-0123456789', nonce);
    expect(proof).toBe(createHmac('sha256', 'the-token-0123456789').update(`mcpscope-ingest-proof\n${nonce}`).digest('base64url'));
    expect(checkIngestProof('the-token-0123456789', nonce, proof)).toBe(true);
    expect(checkIngestProof('another-token-0123456', nonce, proof)).toBe(false);
    expect(checkIngestProof('the-token-0123456789', 'm'.repeat(43), proof)).toBe(false);
    expect(checkIngestProof('the-token-0123456789', nonce, proof.slice(1))).toBe(false);
    expect(checkIngestProof('the-token-0123456789', nonce, undefined)).toBe(false);
  });

  it('the wrapper proves the token over the UI’s nonce with another prefix: one proof is never the other', () => {
    const nonce = 'n'.repeat(43);
    const auth = ingestAuth('the-token-0123456789', nonce);
    expect(auth).toBe(createHmac('sha256', 'the-token-0123456789').update(`mcpscope-ingest-auth\n${nonce}`).digest('base64url'));
    expect(auth).not.toBe(ingestProof('the-token-0123456789', nonce));
    expect(checkIngestAuth('the-token-0123456789', nonce, auth)).toBe(true);
    expect(checkIngestAuth('the-token-0123456789', nonce, ingestProof('the-token-0123456789', nonce))).toBe(false);
    expect(checkIngestAuth('another-token-0123456', nonce, auth)).toBe(false);
    expect(parseControlUp(JSON.stringify({ type: 'auth', hmac: auth }))).toEqual({ type: 'auth', hmac: auth });
    expect(parseControlUp(JSON.stringify({ type: 'auth' }))).toBe('auth needs an hmac');
    expect(parseControlDown(JSON.stringify({ type: 'proof', hmac: 'abc', nonce }))).toEqual({ type: 'proof', hmac: 'abc', nonce });
    expect(parseControlDown(JSON.stringify({ type: 'proof', hmac: 'abc', nonce: 'no' }))).toEqual({ type: 'proof', hmac: 'abc' });
  });

  it('reads hello (a base64url nonce of 16 to 128 characters) and proof', () => {
    expect(parseControlUp(JSON.stringify({ type: 'hello', nonce: 'abcDEF012_-abcDEF012' }))).toEqual({
      type: 'hello',
      nonce: 'abcDEF012_-abcDEF012',
    });
    for (const nonce of ['short', 'x'.repeat(129), 'has space in it!!!!!', 42])
      expect(parseControlUp(JSON.stringify({ type: 'hello', nonce }))).toMatch(/hello needs a nonce/);
    expect(parseControlDown(JSON.stringify({ type: 'proof', hmac: 'abc' }))).toEqual({ type: 'proof', hmac: 'abc' });
    expect(parseControlDown(JSON.stringify({ type: 'proof', hmac: 7 }))).toBeUndefined();
  });

  it('reads --log’s part: hello asking for `recorded`, a proof offering it, and the recorded events', () => {
    expect(parseControlUp(JSON.stringify({ type: 'hello', nonce: 'abcDEF012_-abcDEF012', log: true }))).toEqual({
      type: 'hello',
      nonce: 'abcDEF012_-abcDEF012',
      log: true,
    });
    expect(parseControlUp(JSON.stringify({ type: 'hello', nonce: 'abcDEF012_-abcDEF012', log: 'yes' }))).toEqual({
      type: 'hello',
      nonce: 'abcDEF012_-abcDEF012',
    });
    expect(parseControlDown(JSON.stringify({ type: 'proof', hmac: 'abc', records: true }))).toEqual({
      type: 'proof',
      hmac: 'abc',
      records: true,
    });
    const log = { type: 'log', seq: 7, ts: 1, sessionId: 's3', source: 'stderr', text: 'ready' };
    expect(parseControlDown(JSON.stringify({ type: 'recorded', through: 4, skipped: 2, events: [log, { seq: 'x' }, 3] }))).toEqual({
      type: 'recorded',
      through: 4,
      skipped: 2,
      events: [log],
    });
    expect(parseControlDown(JSON.stringify({ type: 'recorded', events: [] }))).toEqual({ type: 'recorded', events: [] });
    expect(parseControlDown(JSON.stringify({ type: 'recorded', through: 'all', events: [] }))).toBeUndefined();
  });
});

describe('commandLine', () => {
  it('quotes what a shell would split or expand', () => {
    expect(commandLine('npx', ['-y', '@scope/server@1.2', '--dir=/tmp/x'])).toBe('npx -y @scope/server@1.2 --dir=/tmp/x');
    expect(commandLine('/opt/my app/run', ['', "it's", '$HOME', 'a;b'])).toBe(`'/opt/my app/run' '' 'it'\\''s' '$HOME' 'a;b'`);
  });
});
