/**
 * Where a stdio wrapper's records go, decided and kept up on its recorder thread
 * (recorder-worker.ts): the mcpscope UI on `--ui-port`, or a UI the wrapper serves itself — in
 * both cases over that UI's `/ingest` WebSocket, so records and breakpoint control messages take
 * one path whichever it is.
 *
 * - **A token first.** `--token`, else `$MCPSCOPE_TOKEN`, else the discovery file of the port if
 *   it passes the checks (proxy/app/serve/discovery.ts). Without one the wrapper never connects:
 *   nothing listening → it serves the UI on that port itself; something listening → after a few
 *   seconds (a UI just started writes its file) it serves a UI of its own on a free port, and says
 *   why in plain words.
 * - **A UI that proves itself.** connectIngest checks the UI's HMAC proof of the token before a
 *   record is sent; a UI that cannot prove it is not used (a UI of its own instead, and a line).
 * - **Redacted before it leaves** (ship-redaction.ts), unless `--show-secrets`: chunks become
 *   redacted lines, held lines and send answers are redacted too.
 * - **Relinking.** When the UI goes away the link is made again at once; a port found free is
 *   taken over, with the same token.
 * - **--log.** With a log to write, the hello asks the UI for what it records of this process
 *   (`recorded`, in that UI's numbers); the hooks pass it on, with each link's UI and whether it
 *   does, and what is shipped (recorder-worker.ts, stdio-log.ts).
 */
import type WebSocket from 'ws';
import { connect } from 'node:net';
import type { IngestRecord } from '../../wire/capture/wire-codec.js';
import type { McpscopeEvent } from '../../core/model/events.js';
import type { McpscopeCore } from '../mcpscope.js';
import { inspectDiscovery } from '../serve/discovery.js';
import { createRedactor, redactArgs, type Redactor } from '../../recorder/redact/redact.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../core/parse/body-reader.js';
import { commandLine } from '../../core/model/command-line.js';
import { IngestClient, connectIngest } from './ingest-client.js';
import { isControl, parseControlDown, type ControlDown, type ControlUp } from './ingest-control.js';
import { ShipRedaction } from './ship-redaction.js';
import type { RecorderThreadConfig } from './recorder-thread-messages.js';

const UI_HOST = '127.0.0.1';

export interface IngestLinkHooks {
  say(line: string, raw?: boolean): void;
  control(m: ControlDown): void;
  linked(): void;
  unlinked(): void;
  serving(port: number, token: string): void;
  /**
   * --log: records go to the UI at `url` from here on (called before the link sends one);
   * `numbered`: it sends back what it records of this process (`recorded`), an older UI does not.
   */
  recording?(ui: { url: string; token: string; numbered: boolean; own: boolean }): void;
  /** --log: what that UI recorded of this process, in its numbers; `skipped`: events it left out. */
  recorded?(events: McpscopeEvent[], skipped: number): void;
  /** --log: no UI records this process any more (why, in plain words). */
  unrecorded?(why: string): void;
  /** Each record as it is shipped (redacted, unless --show-secrets). */
  shipped?(record: IngestRecord): void;
}

/** Whether anything accepts connections on 127.0.0.1:`port` (nothing is sent to it). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: UI_HOST, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());

export class IngestLink {
  private readonly client: IngestClient;
  private readonly redaction?: ShipRedaction;
  private readonly redactor?: Redactor;
  private readonly shown: string;
  private readonly explicit?: string;
  private stopping = false;
  private own?: McpscopeCore;
  private ws?: WebSocket;
  private linkedOnce = false;
  /** The token of the UI last linked to: a port it left free is taken over with it. */
  private lastToken?: string;
  private relinkDelay = 0;
  private readonly linking: Promise<void>;
  /** --log: ask each UI for what it records of this process. */
  private readonly wantsRecords: boolean;
  /**
   * Test only: `MCPSCOPE_TEST_RECORDER_BLOCK_MS=<n>` blocks the thread that records for n ms, once,
   * on the first record after a UI link is up — a stand-in for a recorder stuck on a message
   * (test/e2e/stdio-isolation.test.ts checks that the relay does not notice, and the shutdown bound).
   * Nothing else reads it.
   */
  private testBlockMs = Number(process.env.MCPSCOPE_TEST_RECORDER_BLOCK_MS) || 0;

  constructor(
    private readonly config: RecorderThreadConfig,
    private readonly hooks: IngestLinkHooks,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.explicit = config.token || env.MCPSCOPE_TOKEN || undefined;
    this.wantsRecords = config.log !== undefined;
    this.shown = commandLine(config.command, redactArgs(config.args));
    if (!config.showSecrets) {
      this.redactor = createRedactor({ extraSecrets: this.explicit ? [this.explicit] : [] });
      this.redaction = new ShipRedaction(this.redactor, config.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    }
    const { xid, command, args, pid, cwd, startedAt } = config;
    this.client = new IngestClient({
      hello: (joined) => [
        {
          t: 'stdio-start',
          xid,
          ts: joined ? Date.now() : startedAt,
          command: this.redactor ? this.redactor.text(command) : command,
          args: this.redactor ? redactArgs(args).map((a) => this.redactor!.text(a)) : args,
          ...(pid !== undefined ? { pid } : {}),
          cwd: this.redactor ? this.redactor.text(cwd) : cwd,
          ...(joined ? { joined } : {}),
        },
      ],
    });
    this.linking = this.link().catch((err: unknown) => {
      const why = `cannot reach or serve a UI on port ${config.uiPort}: ${(err as Error).message}`;
      hooks.say(`${why}; the server runs unrecorded.`);
      hooks.unrecorded?.(why);
    });
  }

  push(record: IngestRecord): void {
    if (this.testBlockMs > 0 && this.client.linked) this.testBlock();
    if (!this.redaction) return this.ship(record);
    for (const r of this.redaction.push(record)) this.ship(r);
  }

  private ship(r: IngestRecord): void {
    this.hooks.shipped?.(r);
    this.client.push(r);
  }

  /** Records no UI has said it recorded (--log), in order. */
  unconfirmed(): IngestRecord[] {
    return this.client.unconfirmed();
  }

  private testBlock(): void {
    const ms = this.testBlockMs;
    this.testBlockMs = 0;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  }

  /** A control message for the UI, after the records pushed before it. */
  control(m: ControlUp): void {
    const ws = this.ws;
    if (!ws || ws.readyState !== ws.OPEN) return;
    this.client.flush();
    ws.send(JSON.stringify(this.redacted(m)));
  }

  get droppedBytes(): number {
    return this.client.droppedBytes;
  }

  /** The process is gone: delivers what is left (bounded), then closes the link and the UI it serves. */
  async finish(drainMs: number): Promise<void> {
    await Promise.race([this.linking, pause(drainMs)]);
    await this.client.drain(drainMs);
    this.stopping = true;
    if (this.ws) await closeSocket(this.ws);
    await this.own?.close();
  }

  private redacted(m: ControlUp): ControlUp {
    const r = this.redactor;
    if (!r) return m;
    if (m.type === 'held') return { ...m, report: { ...m.report, text: r.text(m.report.text) } };
    if (m.type === 'sent' && m.response !== undefined) return { ...m, response: r.json(m.response) };
    if (m.type === 'sent' && m.error !== undefined) return { ...m, error: r.text(m.error) };
    return m;
  }

  private async link(): Promise<void> {
    const port = this.config.uiPort;
    for (let attempt = 0; !this.stopping; attempt++) {
      let token = this.explicit;
      let why: string | undefined;
      if (!token) {
        const found = inspectDiscovery(port);
        if (found.ok) token = found.file.token;
        else why = found.reason;
      }
      if (!token) {
        // No token: never knock. A free port is ours to serve; an occupied one gets a few seconds.
        if (!(await listening(port))) {
          if (await this.serve(port, this.lastToken, attempt)) {
            this.hooks.say(
              `no mcpscope UI was running on port ${port}, so this one serves it while ${this.shown} runs: ${this.own!.ui!.url}`,
            );
            return;
          }
          continue;
        }
        // A UI that just started writes its file right after it listens: 1.5 s is plenty.
        if (attempt < 5) {
          await pause(50 * 2 ** attempt);
          continue;
        }
        await this.serve(0, undefined, attempt);
        this.hooks.say(
          `port ${port} is in use, but mcpscope has no token for it (${why ?? 'no --token, no MCPSCOPE_TOKEN'}), so it sends it nothing; recording ${this.shown} in a UI of its own: ${this.own!.ui!.url}`,
        );
        return;
      }
      const r = await connectIngest(UI_HOST, port, token, 3_000, { log: this.wantsRecords });
      if (this.stopping) {
        if (r.ok) r.ws.terminate();
        return;
      }
      if (r.ok) {
        this.lastToken = token;
        this.attach(r.ws, r.listen, { port, token, numbered: r.records, own: false });
        if (!this.linkedOnce) this.hooks.say(`recording ${this.shown} in the mcpscope UI at http://${UI_HOST}:${port}/`);
        // With --otlp, joining a UI that does not export: say so (its proof says whether it does).
        if (!this.linkedOnce && this.config.otlp && !r.exports)
          this.hooks.say(
            `the mcpscope UI on port ${port} records ${this.shown} but exports no OpenTelemetry data: start that one with --otlp (a wrapper exports only when it serves the UI itself).`,
          );
        this.linkedOnce = true;
        return;
      }
      if (r.refused) {
        // Nothing listens there: serve the UI ourselves (another wrapper may win the race for the port).
        if (await this.serve(port, token, attempt)) {
          this.hooks.say(
            `no mcpscope UI was running on port ${port}, so this one serves it while ${this.shown} runs: ${this.own!.ui!.url}`,
          );
          return;
        }
        continue;
      }
      // Worth another try, for a few seconds: a connection reset or timeout (a UI shutting down as
      // we knock), or a proof for another token than a discovery file's (the UI there started
      // anew, its file on the way). Anything else on the port is not a UI we can use.
      const transient = r.unproven ? r.wrongProof === true && !this.explicit : r.status === undefined || r.status === 503;
      if (transient && attempt < 10) {
        await pause(Math.min(1_000, 50 * 2 ** attempt));
        continue;
      }
      await this.serve(0, undefined, attempt);
      const said = r.unproven
        ? `answered, but ${r.message}: nothing was sent to it`
        : r.status === 401
          ? // A UI of this version takes the challenge without a token; one that wants it sent is older (or no mcpscope).
            'answered HTTP 401 on /ingest: it wants the token sent, which this wrapper never does (an mcpscope UI older than this wrapper? restart it with this version)'
          : r.status !== undefined
            ? `is not an mcpscope UI (${r.message})`
            : `could not be used (${r.message})`;
      this.hooks.say(`port ${port} ${said}; recording ${this.shown} in a UI of its own: ${this.own!.ui!.url}`);
      return;
    }
  }

  /** Serves a UI on `port` and links to it; false when the port was taken meanwhile (try again). */
  private async serve(port: number, token: string | undefined, attempt: number): Promise<boolean> {
    const { startMcpscope } = await import('../mcpscope.js');
    const { config, hooks } = this;
    try {
      this.own = await startMcpscope({
        uiPort: port,
        host: UI_HOST,
        token,
        showSecrets: config.showSecrets,
        maxBodyBytes: config.maxBodyBytes,
        holdMs: config.holdMs,
        lint: config.lint,
        discoveryFile: true,
        // The export's notices (collector unreachable, back again) go where the wrapper's words go.
        ...(config.otlp ? { otlp: config.otlp, onNotice: (line: string) => hooks.say(line, true) } : {}),
      });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE' && port !== 0 && attempt < 20) return false;
      throw err;
    }
    hooks.serving(this.own.ui!.port, this.own.token);
    // The same path as a wrapper joining it: its /ingest, its proof.
    const r = await connectIngest(UI_HOST, this.own.ui!.port, this.own.token, 3_000, { log: this.wantsRecords });
    if (!r.ok) throw new Error(`the UI it serves did not take its records (${r.message})`);
    this.attach(r.ws, r.listen, { port: this.own.ui!.port, token: this.own.token, numbered: r.records, own: true });
    this.linkedOnce = true;
    return true;
  }

  private attach(
    ws: WebSocket,
    listen: (onText: (text: string) => void) => void,
    ui: { port: number; token: string; numbered: boolean; own: boolean },
  ): void {
    this.ws = ws;
    ws.on('error', () => undefined);
    const numbered = this.wantsRecords && ui.numbered;
    if (this.wantsRecords) this.hooks.recording?.({ url: `http://${UI_HOST}:${ui.port}/`, token: ui.token, numbered, own: ui.own });
    listen((text) => {
      if (!isControl(text)) return;
      const m = parseControlDown(text);
      if (m?.type === 'recorded') {
        // The events first: once said recorded, a record is not sent again.
        if (m.events.length > 0 || m.skipped) this.hooks.recorded?.(m.events, m.skipped ?? 0);
        if (m.through !== undefined) this.client.ack(m.through);
      } else if (m && m.type !== 'proof') this.hooks.control(m);
    });
    ws.once('close', () => {
      this.client.detach(ws);
      if (this.ws === ws) this.ws = undefined;
      this.hooks.unlinked();
      if (!this.stopping) void this.relink();
    });
    this.client.attach(ws, { acked: numbered });
    this.hooks.linked();
  }

  private async relink(): Promise<void> {
    // Back off a little between attempts, but reconnect at once the first time (a UI restart).
    if (this.relinkDelay > 0) await pause(this.relinkDelay);
    this.relinkDelay = Math.min(2_000, Math.max(100, this.relinkDelay * 2));
    if (this.stopping) return;
    await this.link().catch((err: unknown) => {
      const why = `cannot reach or serve a UI: ${(err as Error).message}`;
      this.hooks.say(`${why}; the server keeps running, unrecorded.`);
      this.hooks.unrecorded?.(why);
    });
    if (this.client.linked) this.relinkDelay = 0;
  }

  /** With --otlp, linked to a UI that was started without it: say that nothing is exported. */
}

/** Closes a socket after its queued data, giving up after a moment. */
function closeSocket(ws: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (ws.readyState === ws.CLOSED) return resolve();
    const timer = setTimeout(() => {
      ws.terminate();
      resolve();
    }, 1_000);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.close(1000, 'the server process exited');
  });
}
