/**
 * The scripted demo client.
 *
 * Drives a Streamable HTTP MCP server (normally the embedded demo server, reached through the
 * mcpscope proxy) with a scenario that repeats until stopped, so the traffic view always has
 * something realistic to show: discovery (`tools/list`, `prompts/list`, `resources/list`), plain
 * calls, a slow call with progress running concurrently with fast ones (responses complete out of
 * order), a tool error, a JSON-RPC error, sampling and elicitation answered by this client, ping,
 * resource and prompt reads, a cancelled request now and then, a `tools/list_changed`, and a
 * session that is terminated (HTTP DELETE) and replaced every few rounds.
 *
 * Failures (server gone, session expired) are logged and retried with exponential backoff.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type CreateMessageResult,
} from '@modelcontextprotocol/sdk/types.js';

export interface DemoClient {
  /** Stops the loop: the step in flight is aborted, the session is ended; resolves when done. */
  stop(): Promise<void>;
}

/** Reported after every completed round. */
export interface DemoRound {
  /** Rounds completed since start, from 1. */
  round: number;
  /** Rounds completed in the current session, from 1. */
  sessionRound: number;
  /** Sessions opened since start, from 1. */
  session: number;
  /** The `Mcp-Session-Id` of the session, if the server assigned one. */
  sessionId?: string;
}

export interface DemoClientOptions {
  /** Pause between rounds, in milliseconds (demo pacing). Default 2500. */
  intervalMs?: number;
  /** Rounds per session before it is terminated and a new one opened. Default 3. */
  roundsPerSession?: number;
  /** `delayMs` argument of the `slow_task` calls. Default 300. */
  slowStepMs?: number;
  /** `maxMs` argument of the `random_delay` calls. Default 800. */
  randomDelayMaxMs?: number;
  /** Receives one human-readable line per step, error and retry. */
  log?: (line: string) => void;
  /** Called after each completed round. */
  onRound?: (round: DemoRound) => void;
}

const CLIENT_INFO = { name: 'mcpscope-demo-client', title: 'mcpscope demo client', version: '1.0.0' };
const REQUEST_TIMEOUT_MS = 30_000;
const BACKOFF_START_MS = 500;
const BACKOFF_MAX_MS = 10_000;
const TERMINATE_TIMEOUT_MS = 2_000;
const SLOW_STEPS = 4;

/** Canned "LLM" answers for sampling requests. */
const CANNED_ANSWERS = [
  'The Model Context Protocol lets applications give models tools, prompts and resources.',
  'A transparent proxy sees every JSON-RPC frame without changing it.',
  'Progress notifications carry the progressToken of the request they report on.',
];

class StoppedError extends Error {
  constructor() {
    super('demo client stopped');
    this.name = 'StoppedError';
  }
}

function describe(error: unknown): string {
  if (error instanceof McpError) return `${error.message} (code ${error.code})`;
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}

function firstText(result: CallToolResult | Record<string, unknown>): string {
  const content = (result as CallToolResult).content;
  const item = Array.isArray(content) ? content.find((c) => c.type === 'text') : undefined;
  return item && item.type === 'text' ? item.text : JSON.stringify(result);
}

interface OpenSession {
  client: Client;
  transport: StreamableHTTPClientTransport;
  number: number;
}

/** Starts the scripted client against `url` (a Streamable HTTP MCP endpoint) and returns at once. */
export function startDemoClient(url: string, options: DemoClientOptions = {}): DemoClient {
  const intervalMs = options.intervalMs ?? 2500;
  const roundsPerSession = Math.max(1, options.roundsPerSession ?? 3);
  const slowStepMs = options.slowStepMs ?? 300;
  const randomDelayMaxMs = options.randomDelayMaxMs ?? 800;
  const log = options.log ?? (() => undefined);
  const stopController = new AbortController();
  const stopSignal = stopController.signal;
  const endpoint = new URL(url);

  let sessions = 0;
  let rounds = 0;
  const closedClients = new WeakSet<Client>();

  const checkStopped = (): void => {
    if (stopSignal.aborted) throw new StoppedError();
  };

  /** Demo pacing between rounds and retries; ends early (rejecting) on stop. */
  const pause = async (ms: number): Promise<void> => {
    checkStopped();
    await sleep(ms, undefined, { signal: stopSignal });
  };

  type ProgressCallback = (p: { progress: number; total?: number; message?: string }) => void;

  /**
   * Runs one request with its own AbortSignal, aborted on stop or by `cancel`. The SDK adds an
   * 'abort' listener to the signal of every request and never removes it, so the long-lived stop
   * signal is linked in per request and unlinked when the request settles (otherwise listeners
   * pile up and a stop would "cancel" long-finished requests).
   */
  const request = async <T>(
    send: (options: { signal: AbortSignal; timeout: number; onprogress?: ProgressCallback }) => Promise<T>,
    extra: { cancel?: AbortSignal; onprogress?: ProgressCallback } = {},
  ): Promise<T> => {
    checkStopped();
    const controller = new AbortController();
    const onStop = () => controller.abort(stopSignal.reason);
    const onCancel = () => controller.abort(extra.cancel?.reason);
    stopSignal.addEventListener('abort', onStop, { once: true });
    extra.cancel?.addEventListener('abort', onCancel, { once: true });
    try {
      return await send({ signal: controller.signal, timeout: REQUEST_TIMEOUT_MS, onprogress: extra.onprogress });
    } finally {
      stopSignal.removeEventListener('abort', onStop);
      extra.cancel?.removeEventListener('abort', onCancel);
    }
  };

  const openSession = async (): Promise<OpenSession> => {
    const number = ++sessions;
    const client = new Client(CLIENT_INFO, {
      capabilities: { sampling: {}, elicitation: { form: {} } },
    });
    let answers = 0;
    client.setRequestHandler(CreateMessageRequestSchema, async (request): Promise<CreateMessageResult> => {
      const last = request.params.messages.at(-1);
      const question = last && !Array.isArray(last.content) && last.content.type === 'text' ? last.content.text : '(no text)';
      const answer = CANNED_ANSWERS[answers++ % CANNED_ANSWERS.length];
      log(`  ← server asks the LLM (sampling/createMessage): "${question}" → answering "${answer}"`);
      return { role: 'assistant', model: 'demo-llm-1', stopReason: 'endTurn', content: { type: 'text', text: answer } };
    });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      log(`  ← server asks the user (elicitation/create): "${request.params.message}" → accept, confirm=true`);
      return { action: 'accept', content: { confirm: true } };
    });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      log('  ← server says the tool list changed (notifications/tools/list_changed)');
    });
    client.onerror = (error) => {
      // After the session ends the SDK still reports its streams' failed reconnection attempts: noise.
      if (!stopSignal.aborted && !closedClients.has(client)) log(`  transport: ${describe(error)}`);
    };
    const transport = new StreamableHTTPClientTransport(endpoint);
    const session: OpenSession = { client, transport, number };
    try {
      await request((opts) => client.connect(transport, opts));
      const server = client.getServerVersion();
      log(
        `session ${number}: initialized with ${server?.name ?? 'server'} ${server?.version ?? ''}`.trimEnd() +
          `, protocol ${transport.protocolVersion ?? '?'}, Mcp-Session-Id ${transport.sessionId ?? '(none)'}`,
      );
      if (client.getServerCapabilities()?.logging) await request((opts) => client.setLoggingLevel('info', opts));
    } catch (error) {
      await closeSession(session, true);
      throw error;
    }
    return session;
  };

  /** Ends a session: DELETE it (bounded in time, best effort), then close the client. */
  const closeSession = async (session: OpenSession, terminate: boolean): Promise<void> => {
    closedClients.add(session.client);
    if (terminate && session.transport.sessionId !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), TERMINATE_TIMEOUT_MS);
      });
      try {
        const outcome = await Promise.race([session.transport.terminateSession().then(() => 'ok' as const), deadline]);
        log(outcome === 'ok' ? `session ${session.number}: terminated (HTTP DELETE)` : `session ${session.number}: DELETE timed out`);
      } catch (error) {
        log(`session ${session.number}: DELETE failed: ${describe(error)}`);
      } finally {
        clearTimeout(timer);
      }
    }
    await session.client.close().catch(() => undefined);
  };

  const callTool = async (
    session: OpenSession,
    name: string,
    args: Record<string, unknown> = {},
    extra: { cancel?: AbortSignal; onprogress?: ProgressCallback } = {},
  ): Promise<CallToolResult> => {
    const result = await request((opts) => session.client.callTool({ name, arguments: args }, undefined, opts), extra);
    return result as CallToolResult;
  };

  const runRound = async (session: OpenSession, sessionRound: number): Promise<void> => {
    const { client } = session;
    const step = (line: string): void => log(`  #${rounds + 1} ${line}`);
    log(`round ${rounds + 1} (session ${session.number}, round ${sessionRound}/${roundsPerSession})`);

    const tools = await request((opts) => client.listTools(undefined, opts));
    step(`tools/list → ${tools.tools.map((t) => t.name).join(', ')}`);
    const prompts = await request((opts) => client.listPrompts(undefined, opts));
    step(`prompts/list → ${prompts.prompts.map((p) => p.name).join(', ')}`);
    const resources = await request((opts) => client.listResources(undefined, opts));
    step(`resources/list → ${resources.resources.map((r) => r.uri).join(', ')}`);

    const echoed = await callTool(session, 'echo', { text: `hello from round ${rounds + 1}` });
    step(`echo → ${firstText(echoed)}`);
    const sum = await callTool(session, 'add', { a: rounds + 1, b: 41 });
    step(`add → ${firstText(sum)} (structured: ${JSON.stringify(sum.structuredContent)})`);
    // A mistake models make: a number sent as a string. The arguments break add's inputSchema (the
    // spec linter says so, rule tools/arguments-schema) and the server answers with a tool error.
    const stringly = await callTool(session, 'add', { a: String(rounds + 1), b: 41 });
    step(`add with a string argument → isError=${stringly.isError === true}: ${firstText(stringly).slice(0, 80)}`);

    // Concurrent calls: the slow one reports progress while fast ones overtake it.
    const finished: string[] = [];
    let progressCount = 0;
    const track = <T>(label: string, promise: Promise<T>): Promise<T> =>
      promise.then((value) => {
        finished.push(label);
        return value;
      });
    step('calling slow_task, add and 3× random_delay concurrently');
    await Promise.all([
      track(
        'slow_task',
        callTool(
          session,
          'slow_task',
          { steps: SLOW_STEPS, delayMs: slowStepMs },
          {
            onprogress: (p) => {
              progressCount++;
              step(`  progress ${p.progress}/${p.total ?? '?'}${p.message ? ` (${p.message})` : ''}`);
            },
          },
        ),
      ),
      track('add', callTool(session, 'add', { a: 2, b: 3 })),
      track('random_delay#1', callTool(session, 'random_delay', { maxMs: randomDelayMaxMs })),
      track('random_delay#2', callTool(session, 'random_delay', { maxMs: randomDelayMaxMs })),
      track('random_delay#3', callTool(session, 'random_delay', { maxMs: randomDelayMaxMs })),
    ]);
    step(`completion order: ${finished.join(' → ')} (${progressCount} progress notifications)`);

    const flaky = await callTool(session, 'flaky');
    step(`flaky → isError=${flaky.isError === true}: ${firstText(flaky)}`);

    try {
      await callTool(session, 'crash');
      step('crash → unexpectedly succeeded');
    } catch (error) {
      if (stopSignal.aborted) throw error;
      step(`crash → JSON-RPC error: ${describe(error)}`);
    }

    const llm = await callTool(session, 'ask_llm', { question: 'What is MCP, in one sentence?' });
    step(`ask_llm → ${firstText(llm)}`);
    const confirmed = await callTool(session, 'confirm_action', { action: 'delete the temporary files' });
    step(`confirm_action → ${firstText(confirmed)}`);

    await request((opts) => client.ping(opts));
    step('ping → pong');

    const readme = await request((opts) => client.readResource({ uri: 'demo://readme' }, opts));
    step(`resources/read demo://readme → ${readme.contents.length} content item(s)`);
    const prompt = await request((opts) =>
      client.getPrompt({ name: 'summarize', arguments: { text: 'MCP connects models to tools.', style: 'one sentence' } }, opts),
    );
    step(`prompts/get summarize → ${prompt.messages.length} message(s)`);

    if (sessionRound === 2 || roundsPerSession === 1) {
      const toggled = await callTool(session, 'toggle_bonus_tool');
      step(`toggle_bonus_tool → ${firstText(toggled)}`);
    }

    if ((rounds + 1) % 2 === 0) {
      // A request cancelled by the client as soon as the server reports progress.
      const cancel = new AbortController();
      try {
        await callTool(
          session,
          'slow_task',
          { steps: SLOW_STEPS, delayMs: slowStepMs },
          {
            cancel: cancel.signal,
            onprogress: () => cancel.abort(new Error('user pressed cancel')),
          },
        );
        step('slow_task (to be cancelled) → finished before it could be cancelled');
      } catch (error) {
        if (stopSignal.aborted) throw error;
        step(`slow_task cancelled by the client (notifications/cancelled): ${describe(error)}`);
      }
    }
  };

  const run = async (): Promise<void> => {
    let failures = 0;
    while (!stopSignal.aborted) {
      let session: OpenSession | undefined;
      try {
        session = await openSession();
        for (let sessionRound = 1; sessionRound <= roundsPerSession; sessionRound++) {
          await runRound(session, sessionRound);
          rounds++;
          failures = 0;
          try {
            options.onRound?.({ round: rounds, sessionRound, session: session.number, sessionId: session.transport.sessionId });
          } catch (error) {
            log(`onRound callback failed: ${describe(error)}`);
          }
          if (sessionRound < roundsPerSession) await pause(intervalMs);
        }
        const finished = session;
        session = undefined;
        await closeSession(finished, true);
        await pause(intervalMs);
      } catch (error) {
        if (session) await closeSession(session, true);
        if (stopSignal.aborted) break;
        failures++;
        const wait = Math.min(BACKOFF_START_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
        log(`error: ${describe(error)}; retrying in ${wait} ms`);
        await pause(wait).catch(() => undefined);
      }
    }
    log('demo client stopped');
  };

  const running = run().catch((error: unknown) => log(`demo client failed: ${describe(error)}`));

  return {
    stop() {
      if (!stopSignal.aborted) stopController.abort(new StoppedError());
      return running;
    },
  };
}
