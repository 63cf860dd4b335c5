/**
 * `mcpscope verify`: plays the client side of a fixture against a live server with the official
 * SDK `Client` and reports every way the server's answers differ from the recorded ones.
 *
 * 1. Connects with the recorded clientInfo and capabilities, asking for the recorded protocol
 *    version (the SDK client always asks for its latest; a thin transport wrapper puts the
 *    recorded one back into the initialize request), and compares the InitializeResult.
 * 2. Sends each recorded client request in wire order (recorded params; a fresh progress token
 *    when the recording asked for progress) and each recorded client notification other than
 *    initialized/cancelled/progress. Requests the recording never saw answered are skipped.
 * 3. Answers the server's requests (sampling, elicitation, roots) with the client's recorded
 *    replies, whichever stream they come on: every recorded server→client request — on a call's
 *    POST stream, on the standalone GET stream, or (stdio) wherever — is a slot a live request
 *    of the same method and params claims (n-th use), answered with the recorded client's reply
 *    to it. Each live request is attributed as it really came: over Streamable HTTP the bytes
 *    say which stream carried it (a tap on the transport's fetch), so one on the standalone
 *    stream belongs to no call even while a call is in flight; with one stream for everything
 *    (stdio, legacy SSE) the recording's own attribution decides. Reported: a call's requests
 *    that appeared or vanished, changed params, and requests outside every call that are not
 *    in the recording or never came (verify waits for those until their recorded time).
 * 4. Compares each response with the recorded one at path level, ignoring `_meta` and volatile
 *    values (strings differing only in UUIDs, timestamps or long hex tokens; epoch-ms numbers):
 *    changed values, added/removed fields, tools/prompts/resources added or removed (arrays of
 *    named things are compared by name, not position), new errors, errors that went away,
 *    missing or different progress.
 * 5. Sets aside differences covered by an ignore pattern (the fixture's `verify.ignore` and
 *    `--ignore`, `[<call> › ]<path>` as printed): listed as ignored, not counted.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, ResultSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Fixture } from '../../core/model/fixture-format.js';
import { capJsonDepth } from '../../core/parse/json-depth.js';
import {
  diffJson,
  formatDifference,
  formatPath,
  formatValue,
  isIgnored,
  parseIgnorePattern,
  type IgnorePattern,
  type JsonDifference,
} from '../../core/model/json-diff.js';
import { buildReplayModel, callLabel, matchKey, matchParams, type RecordedCall, type RecordedServerRequest } from './replay-matching.js';
import { SERVER_INITIATED, type VerifyOptions, type VerifyDifference, type VerifyCall, type VerifyReport } from './verify-report.js';
import { VerifyConnectionError } from '../../core/model/errors.js';
import { TapTransport, streamTapFetch, verifiedFetch } from './verify-taps.js';
import { VerifyLint } from './verify-lint.js';
import { recordedOutcome, compareOutcome, liveError, type Outcome } from './verify-outcome.js';

// The public API stays here (proxy/app/testing.ts, app/commands/verify.ts and tests import it from verify.js).
export {
  formatVerifyReport,
  SERVER_INITIATED,
  type DifferenceKind,
  type VerifyCall,
  type VerifyDifference,
  type VerifyOptions,
  type VerifyReport,
} from './verify-report.js';
export { compareOutcome } from './verify-outcome.js';

const SKIPPED_NOTIFICATIONS = new Set(['notifications/initialized', 'notifications/cancelled', 'notifications/progress']);

/** Label of the report's entry for what happened outside every call (server requests on the standalone stream). */

/** The longest verify waits at the end for server→client requests the recording had outside every call. */
const LATE_REQUEST_GRACE_MS = 1_000;

type LiveStream = 'post' | 'get' | 'unknown';

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/**
 * A fetch for the Streamable HTTP client transport that notes, for every server→client request,
 * whether it came on a POST's event stream or on the standalone GET stream. The note is taken as
 * the bytes pass (before the SDK parses them), so it is there when the request's handler runs.
 */

interface Slot {
  rec: RecordedServerRequest;
  key: string;
  method: string;
  used: boolean;
  /** The call the live request that claimed it was attributed to. */
  liveOwner?: RecordedCall;
}

interface CallInFlight {
  call: RecordedCall;
  entry: VerifyCall;
  /** Methods of the live server requests attributed to this call, in arrival order. */
  serverRequests: { method: string; slot?: Slot }[];
}

/** Where a difference goes: kept, or set aside by an ignore pattern. */
function addDifferences(entry: VerifyCall, diffs: VerifyDifference[], ignore: readonly IgnorePattern[]): void {
  for (const d of diffs) {
    if (ignore.length > 0 && isIgnored(ignore, d.call, d.path)) (entry.ignored ??= []).push(d);
    else entry.differences.push(d);
  }
  if (entry.status !== 'skipped') entry.status = entry.differences.length > 0 ? 'different' : 'same';
}

function where(stream: LiveStream): string {
  return stream === 'get' ? 'on the standalone stream' : stream === 'post' ? "on the call's own stream" : 'outside any call';
}

export async function verifyFixture(fixture: Fixture, options: VerifyOptions): Promise<VerifyReport> {
  const model = buildReplayModel(fixture);
  const log = options.log ?? (() => undefined);
  const timeout = options.timeoutMs ?? 30_000;
  const ignoreSources = [...(fixture.verify?.ignore ?? []), ...(options.ignore ?? [])];
  const ignore = ignoreSources.map((p) => parseIgnorePattern(p));
  const transportKind = options.command ? 'stdio' : (options.transport ?? (fixture.session.transport === 'legacy-sse' ? 'sse' : 'http'));
  let url: URL | undefined;
  if (!options.command) {
    try {
      url = new URL(options.target);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new VerifyConnectionError(`--target must be an http:// or https:// URL, not ${JSON.stringify(options.target)}`);
    }
  }

  const initParams = (model.initialize.index >= 0 ? model.initialize.request.message.params : undefined) as
    { protocolVersion?: string; clientInfo?: { name: string; version: string }; capabilities?: Record<string, unknown> } | undefined;
  const clientInfo = { version: '0.0.0', ...(fixture.session.clientInfo ?? initParams?.clientInfo ?? { name: 'mcpscope-verify' }) };
  const capabilities = fixture.session.clientCapabilities ?? initParams?.capabilities ?? {};
  const requestedVersion = initParams?.protocolVersion;
  const protocolVersion = requestedVersion && SUPPORTED_PROTOCOL_VERSIONS.includes(requestedVersion) ? requestedVersion : undefined;

  // Over Streamable HTTP every server→client request is known to come on a call's stream or on
  // the standalone one; over stdio and legacy SSE there is one stream for everything.
  const liveStreams = new Map<string, LiveStream[]>();
  const noteStream = (id: unknown, stream: 'post' | 'get') => {
    const k = idKey(id);
    (liveStreams.get(k) ?? liveStreams.set(k, []).get(k)!).push(stream);
  };
  const takeStream = (id: unknown): LiveStream => {
    const list = liveStreams.get(idKey(id));
    const s = list?.shift();
    if (list && list.length === 0) liveStreams.delete(idKey(id));
    return s ?? 'unknown';
  };

  const requestInit = options.headers ? { headers: options.headers } : undefined;
  const http = options.command ? undefined : verifiedFetch(options.upstreamCa);
  const inner = options.command
    ? new StdioClientTransport({
        command: options.command.command,
        args: options.command.args,
        cwd: options.command.cwd,
        env: options.command.env ? { ...getDefaultEnvironment(), ...options.command.env } : undefined,
        stderr: options.command.stderr ?? 'inherit',
      })
    : transportKind === 'sse'
      ? new SSEClientTransport(url!, { requestInit, fetch: http!.fetch })
      : new StreamableHTTPClientTransport(url!, { requestInit, fetch: streamTapFetch(noteStream, http!.fetch) });
  const lint = new VerifyLint(transportKind);
  const transport = new TapTransport(inner, protocolVersion, lint);
  const client = new Client(clientInfo as { name: string; version: string }, { capabilities });

  // Every recorded server→client request — on a call's stream, on the standalone stream, or
  // (stdio) wherever — is a slot a live request can claim; it is answered with the recorded
  // client's reply to that request.
  const slots: Slot[] = model.serverRequests.map((rec) => {
    const method = String(rec.request.message.method);
    return { rec, method, key: matchKey(method, rec.request.message.params), used: false };
  });
  const serverInitiated: VerifyCall = { seq: 0, call: SERVER_INITIATED, method: '', status: 'same', durationMs: 0, differences: [] };
  let current: CallInFlight | undefined;

  /** The slot a live request claims: same method and params first, preferring the one recorded where it came. */
  const claim = (method: string, params: unknown, stream: LiveStream): { slot?: Slot; paramDiffs: JsonDifference[]; extra: boolean } => {
    const key = matchKey(method, params);
    const same = slots.filter((s) => s.key === key);
    const here = current?.call;
    const rank = (s: Slot): number => {
      if (stream === 'post' || stream === 'unknown') {
        if (here && s.rec.owner === here) return 0;
      }
      if (stream === 'get' || stream === 'unknown') {
        if (s.rec.attribution !== 'stream') return 1;
      }
      return 2;
    };
    const free = same.filter((s) => !s.used).sort((a, b) => rank(a) - rank(b));
    if (free.length > 0) return { slot: free[0], paramDiffs: [], extra: false };
    if (same.length > 0) return { slot: same[same.length - 1], paramDiffs: [], extra: true };
    const sameMethod = slots.filter((s) => s.method === method);
    if (sameMethod.length === 0) return { paramDiffs: [], extra: false };
    let best: { slot: Slot; diffs: JsonDifference[]; score: number } | undefined;
    for (const s of sameMethod) {
      const diffs = diffJson(matchParams(s.rec.request.message.params), matchParams(params), { ignoreVolatile: true });
      const score = (s.used ? 10_000 : 0) + rank(s) * 1_000 + diffs.length;
      if (!best || score < best.score) best = { slot: s, diffs, score };
    }
    return { slot: best!.slot, paramDiffs: best!.diffs, extra: best!.slot.used };
  };

  client.fallbackRequestHandler = async (request) => {
    const method = request.method;
    const stream: LiveStream = transportKind === 'http' ? takeStream(request.id) : 'unknown';
    const { slot, paramDiffs, extra } = claim(method, capJsonDepth(request.params).value, stream);
    if (slot && !extra) slot.used = true;
    // Which call it belongs to: over HTTP, the stream says; elsewhere, the recording does.
    const owner: CallInFlight | undefined =
      stream === 'post'
        ? current
        : stream === 'get'
          ? undefined
          : slot
            ? slot.rec.attribution === 'stream'
              ? current
              : undefined
            : current;
    if (slot && !extra) slot.liveOwner = owner?.call;
    owner?.serverRequests.push({ method, slot: extra ? undefined : slot });
    const entry = owner?.entry ?? serverInitiated;
    const label = entry.call;
    const diffs: VerifyDifference[] = [];
    for (const d of paramDiffs) {
      diffs.push({
        call: label,
        seq: owner?.call.request.seq,
        kind: 'server-request',
        path: `${method} params.${formatPath(d.path)}`,
        recorded: d.before,
        live: d.after,
        text: `${label} › server request ${method} › params.${formatDifference(d)}`,
      });
    }
    if (!owner && (!slot || extra)) {
      // Outside every call; within a call, the call's list of server requests shows it.
      const recorded = slots.filter((s) => s.method === method).length;
      diffs.push({
        call: label,
        kind: 'server-request',
        path: 'server requests',
        recorded,
        live: method,
        text:
          recorded === 0
            ? `${label} › server→client request ${method} (${where(stream)}) is not in the recording`
            : `${label} › server→client request ${method} (${where(stream)}) came more often than the ${recorded} recorded`,
      });
    }
    if (diffs.length > 0) addDifferences(entry, diffs, ignore);

    if (!slot) throw new McpError(ErrorCode.MethodNotFound, `mcpscope verify: the recorded client never received ${method}`);
    const reply = slot.rec.reply?.message;
    if (!reply) throw new McpError(ErrorCode.InternalError, `mcpscope verify: the recording has no client reply to ${method}`);
    if ('error' in reply) {
      const e = reply.error as { code: number; message: string; data?: unknown };
      throw new McpError(e.code, e.message, e.data);
    }
    return reply.result as never;
  };

  let connectionLost: Error | undefined;
  const sessionStart = Date.now();
  try {
    await client.connect(transport, { timeout });
  } catch (err) {
    await client.close().catch(() => undefined);
    await http?.close().catch(() => undefined);
    throw new VerifyConnectionError(`cannot connect to ${options.target}: ${describeFetchError(err)}`);
  }
  transport.onclose = ((previous) => () => {
    connectionLost ??= new Error('the server closed the connection');
    previous?.();
  })(transport.onclose);

  const calls: VerifyCall[] = [];
  const entryBySeq = new Map<number, VerifyCall>();
  try {
    // initialize
    const recordedInit = recordedOutcome(model.initialize.response);
    const liveInit = transport.initializeResult;
    const initEntry: VerifyCall = {
      seq: model.initialize.request.seq,
      call: 'initialize',
      method: 'initialize',
      status: 'same',
      durationMs: 0,
      differences: [],
    };
    addDifferences(
      initEntry,
      recordedInit && liveInit ? compareOutcome('initialize', model.initialize.request.seq, recordedInit, { result: liveInit }) : [],
      ignore,
    );
    calls.push(initEntry);
    log(`${initEntry.status === 'different' ? '✗' : '✓'} initialize`);

    const callBySeq = new Map(model.calls.map((c) => [c.request.seq, c]));
    for (const m of fixture.messages) {
      if (m.replayOf !== undefined || m.dir !== 'c2s') continue;
      if (m.kind === 'notification') {
        const method = String(m.message.method);
        if (SKIPPED_NOTIFICATIONS.has(method)) continue;
        await client.notification({ method, params: m.message.params as Record<string, unknown> | undefined }).catch(() => undefined);
        continue;
      }
      const call = m.kind === 'request' ? callBySeq.get(m.seq) : undefined;
      if (!call || call.method === 'initialize') continue;
      const label = callLabel(call.method, call.request.message.params);
      if (!call.response) {
        calls.push({
          seq: m.seq,
          call: label,
          method: call.method,
          status: 'skipped',
          note: 'no recorded response (cancelled or unanswered)',
          durationMs: 0,
          differences: [],
        });
        log(`- ${label} (skipped: no recorded response)`);
        continue;
      }
      const recordedParams = call.request.message.params as Record<string, unknown> | undefined;
      const wantsProgress = (recordedParams?._meta as { progressToken?: unknown } | undefined)?.progressToken !== undefined;
      let params = recordedParams;
      if (wantsProgress && recordedParams) {
        const { progressToken: _t, ...meta } = recordedParams._meta as Record<string, unknown>;
        params = { ...recordedParams, _meta: meta };
        if (Object.keys(meta).length === 0) delete params._meta;
      }
      const entry: VerifyCall = { seq: m.seq, call: label, method: call.method, status: 'same', durationMs: 0, differences: [] };
      current = { call, entry, serverRequests: [] };
      lint.currentCall = label;
      const progressBefore = transport.progressReceived;
      const started = Date.now();
      let live: Outcome;
      try {
        const result = await client.request({ method: call.method, params } as never, ResultSchema, {
          timeout,
          // A handler makes the SDK send a progress token; the count comes from the wire (above).
          ...(wantsProgress ? { onprogress: () => undefined } : {}),
        });
        // A live answer nests as deep as the server likes: cut like recorded traffic, so diffs and the --json report stay serializable.
        live = { result: capJsonDepth(result).value as typeof result };
      } catch (err) {
        if (connectionLost || (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)) {
          throw new VerifyConnectionError(`the connection to ${options.target} was lost during ${label}: ${(err as Error).message}`);
        }
        live = { error: liveError(err) };
      }
      entry.durationMs = Date.now() - started;
      const progressCount = transport.progressReceived - progressBefore;
      const differences: VerifyDifference[] = [];
      const recorded = recordedOutcome(call.response)!;
      if (live.error && live.error.code === ErrorCode.RequestTimeout && !recorded.error) {
        differences.push({
          call: label,
          seq: m.seq,
          kind: 'timeout',
          path: 'error',
          live: live.error,
          text: `${label} › no answer within ${timeout} ms (the recording has one)`,
        });
      } else differences.push(...compareOutcome(label, m.seq, recorded, live));

      const recordedProgress = call.followers.filter((f) => f.message.method === 'notifications/progress').length;
      if (wantsProgress && recordedProgress !== progressCount && !live.error) {
        differences.push({
          call: label,
          seq: m.seq,
          kind: recordedProgress > 0 && progressCount === 0 ? 'missing-progress' : 'progress',
          path: 'progress',
          recorded: recordedProgress,
          live: progressCount,
          text:
            recordedProgress > 0 && progressCount === 0
              ? `${label} › progress: missing (recorded ${recordedProgress} notifications, got none)`
              : `${label} › progress: ${recordedProgress} notifications → ${progressCount}`,
        });
      }
      // The server requests of this call: those the recording had on its stream, plus those it
      // merely guessed were this call's (stdio) that came during it this time; live, those that
      // came on its stream (HTTP) or, with one stream for everything, that the recording places here.
      const recordedServerMethods = slots
        .filter((s) => s.rec.owner === call && (s.rec.attribution === 'stream' || (s.used && s.liveOwner === call)))
        .map((s) => s.method);
      const liveServerMethods = current.serverRequests.map((r) => r.method);
      if (recordedServerMethods.join('\n') !== liveServerMethods.join('\n')) {
        differences.push({
          call: label,
          seq: m.seq,
          kind: 'server-request',
          path: 'server requests',
          recorded: recordedServerMethods,
          live: liveServerMethods,
          text: `${label} › server→client requests: ${formatValue(recordedServerMethods)} → ${formatValue(liveServerMethods)}`,
        });
      }
      // Claimed by this call: those recorded on its stream are accounted for either way.
      for (const s of slots) if (s.rec.owner === call && s.rec.attribution === 'stream') s.used = true;
      current = undefined;
      lint.currentCall = undefined;
      addDifferences(entry, differences, ignore);
      calls.push(entry);
      entryBySeq.set(m.seq, entry);
      log(`${entry.status === 'different' ? '✗' : '✓'} ${label}`);
    }

    // Requests the recorded server sent outside every call (roots/list on the standalone stream,
    // say) come when the server decides: give them until their recorded time (plus a grace).
    // (Not those of calls that were skipped: they had no chance to come.)
    const late = () =>
      slots.filter(
        (s) =>
          !s.used &&
          (s.rec.attribution === 'none' ||
            (s.rec.attribution === 'guess' && s.rec.owner !== undefined && entryBySeq.has(s.rec.owner.request.seq))),
      );
    if (late().length > 0) {
      const due = Math.max(...late().map((s) => s.rec.request.t));
      const deadline = Math.min(sessionStart + Math.max(due * 1.5, due + LATE_REQUEST_GRACE_MS), Date.now() + timeout);
      while (late().length > 0 && Date.now() < deadline && !connectionLost) await new Promise((r) => setTimeout(r, 20));
      for (const s of late()) {
        const ownerEntry = s.rec.owner ? entryBySeq.get(s.rec.owner.request.seq) : undefined;
        const entry = ownerEntry ?? serverInitiated;
        const recordedWhere = s.rec.owner
          ? 'during this call'
          : fixture.session.transport === 'streamable-http'
            ? 'on the standalone stream'
            : 'outside any call';
        addDifferences(
          entry,
          [
            {
              call: entry.call,
              seq: s.rec.owner?.request.seq,
              kind: 'server-request',
              path: 'server requests',
              recorded: s.method,
              text: `${entry.call} › server→client request ${s.method} never came (the recording has it ${recordedWhere}, at ${Math.round(s.rec.request.t)} ms)`,
            },
          ],
          ignore,
        );
      }
    }
  } finally {
    await transport.terminate().catch(() => undefined);
    await client.close().catch(() => undefined);
    await http?.close().catch(() => undefined);
  }
  if (serverInitiated.differences.length > 0 || serverInitiated.ignored?.length) {
    serverInitiated.status = serverInitiated.differences.length > 0 ? 'different' : 'same';
    calls.push(serverInitiated);
    log(`${serverInitiated.status === 'different' ? '✗' : '✓'} ${SERVER_INITIATED}`);
  }
  const differences = calls.flatMap((c) => c.differences);
  const ignored = calls.flatMap((c) => c.ignored ?? []);
  const strict = options.strict === true;
  return {
    ok: differences.length === 0 && !(strict && lint.violations.length > 0),
    target: options.target,
    transport: transportKind,
    calls,
    differences,
    ignored,
    ignore: ignoreSources,
    violations: lint.violations,
    ...(lint.notes.length > 0 ? { lintNotes: lint.notes } : {}),
    strict,
  };
}

/** A connect error in words: undici's "fetch failed" says nothing, its cause (a certificate the server showed, a refused port) does. */
function describeFetchError(err: unknown): string {
  const e = err as Error & { cause?: { message?: string; code?: string; cause?: { message?: string; code?: string } } };
  const cause = e.cause?.cause ?? e.cause;
  return cause?.message && !e.message.includes(cause.message)
    ? `${e.message} (${cause.code ? `${cause.code}: ` : ''}${cause.message})`
    : e.message;
}
