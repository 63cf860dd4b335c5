// @vitest-environment happy-dom
/**
 * Model turns in the UI (issue 27), from the hand-made agent loop of test/support/model-turn-sample.ts:
 * one row per turn (the latest upsert, in its exchange's place: turn → tools/call → next turn), the
 * links both ways (a chosen tool to its MCP call, the call's badge to its turn), the search, the
 * Model tab (transcript, earlier messages, timing, usage, tools offered, cut texts, hints), the
 * Context view (bars largest first, shares, the estimate's encoding; what to do without model
 * traffic), pending and cut turns, and the waterfall's model lane.
 */
import { describe, expect, it } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { TimelineStore } from '../../ui/src/state/store';
import { EMPTY_FILTERS } from '../../ui/src/state/types';
import { Timeline } from '../../ui/src/components/Timeline';
import { DetailPane } from '../../ui/src/components/DetailPane';
import { ContextPanel } from '../../ui/src/components/ContextPanel';
import { App } from '../../ui/src/App';
import { packWaterfall } from '../../ui/src/state/waterfall';
import { Waterfall } from '../../ui/src/components/Waterfall';
import { ENTRY_PREVIEW, entryPreview } from '../../ui/src/state/model-turns';
import type { McpscopeEvent, ModelTurnInfo } from '../../proxy/core/model/events';
import { SAMPLE_START, TURN_1, TURN_2, sampleAgentEvents } from '../support/model-turn-sample';

const dom = mountPoint();
const noop = () => undefined;

function load(events: McpscopeEvent[] = sampleAgentEvents()): TimelineStore {
  const store = new TimelineStore();
  store.ingest(events);
  return store;
}

/** One more upsert of a turn, after everything in `store`. */
function upsert(store: TimelineStore, turn: ModelTurnInfo): McpscopeEvent {
  return { type: 'model-turn', seq: store.lastSeq + 1, ts: store.lastTs + 1, sessionId: turn.sessionId, turn } as McpscopeEvent;
}

const rowEl = (key: string) => {
  const el = dom.container.querySelector<HTMLElement>(`[data-testid="row"][data-key="${key}"]`);
  if (!el) throw new Error(`row ${key} is not rendered`);
  return el;
};

async function click(el: Element | null | undefined): Promise<void> {
  if (!el) throw new Error('nothing to click');
  await act(async () => (el as HTMLElement).click());
}

describe('model turns: rows', () => {
  it('are one row per turn, from the latest upsert, in the agent loop order (turn → tools/call → next turn)', () => {
    const store = load();
    const rows = store.visibleRows(EMPTY_FILTERS);
    expect(rows.map((r) => r.key)).toEqual(['c2', 'c4', 'tm1', 'c9', 'tm2']);
    const m1 = store.row('tm1')!;
    expect(m1.type).toBe('turn');
    // The last of its three upserts, with both links.
    if (m1.type === 'turn') expect(m1.turn.toolCalls[0].resultTurn).toBe('m2');
    // Its exchange's plain HTTP row gave way to it: no HTTP row of x4 or x6.
    expect(store.row('hx4')).toBeUndefined();
    expect(store.row('hx6')).toBeUndefined();
    // In the model API's session.
    expect(store.visibleRows({ ...EMPTY_FILTERS, session: 's2' }).map((r) => r.key)).toEqual(['tm1', 'tm2']);
    expect(store.visibleRows({ ...EMPTY_FILTERS, session: 's1' }).map((r) => r.key)).toEqual(['c2', 'c4', 'c9']);
  });

  it('a later upsert replaces the row in place, with no duplicate; a later exchange upsert adds no HTTP row', () => {
    const store = load();
    store.ingest([upsert(store, { ...TURN_2, stopReason: 'max_tokens', usage: { ...TURN_2.usage, outputTokens: 999 } })]);
    store.ingest([
      {
        type: 'exchange',
        seq: store.lastSeq + 1,
        ts: store.lastTs,
        exchange: { ...(store.exchanges.get('x6') as object), status: 200 },
      } as McpscopeEvent,
    ]);
    const rows = store.visibleRows(EMPTY_FILTERS);
    expect(rows.map((r) => r.key)).toEqual(['c2', 'c4', 'tm1', 'c9', 'tm2']);
    const m2 = store.row('tm2');
    expect(m2?.type === 'turn' && m2.turn.stopReason).toBe('max_tokens');
  });

  it('shows model, tokens in/out with separators, stop reason and the chosen tool linked to its MCP call', async () => {
    const store = load();
    const selected: string[] = [];
    await dom.render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={(k) => selected.push(k)} onOpen={noop} live={false} />);
    const row = rowEl('tm1');
    expect(row.getAttribute('data-kind')).toBe('turn');
    expect(row.textContent).toContain('claude-sonnet-4-5');
    expect(row.querySelector('[data-testid="turn-tokens"]')!.textContent).toBe('31,338 in / 61 out');
    expect(row.querySelector('[data-testid="turn-stop"]')!.textContent).toBe('tool_use');
    const tool = row.querySelector<HTMLElement>('[data-testid="turn-tool"]')!;
    expect(tool.textContent).toBe('echo → #9');
    await click(tool);
    // The tool selects the MCP call, not the turn's own row.
    expect(selected).toEqual(['c9']);
    expect(rowEl('tm2').querySelector('[data-testid="turn-tokens"]')!.textContent).toBe('31,454 in / 12 out');
    expect(rowEl('tm2').querySelector('[data-testid="turn-tool"]')).toBeNull();
  });

  it('marks the tools/call a turn asked for with a badge that selects the turn', async () => {
    const store = load();
    const selected: string[] = [];
    await dom.render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={(k) => selected.push(k)} onOpen={noop} live={false} />);
    const badge = rowEl('c9').querySelector<HTMLElement>('[data-testid="row-model-call"]')!;
    expect(badge.textContent).toBe('← m1');
    expect(badge.getAttribute('title')).toContain('mcp__se__echo');
    expect(rowEl('c4').querySelector('[data-testid="row-model-call"]')).toBeNull();
    await click(badge);
    expect(selected).toEqual(['tm1']);
  });

  it('says when a turn is pending, cut or an error, and the errors filter finds the failed ones', async () => {
    const store = load();
    const pending: ModelTurnInfo = {
      ...TURN_2,
      id: 'm3',
      exchangeId: 'x9',
      status: 'pending',
      stopReason: undefined,
      usage: undefined,
      endedAt: undefined,
      output: [],
      startedAt: SAMPLE_START + 900,
    };
    const cut: ModelTurnInfo = {
      ...TURN_2,
      id: 'm4',
      exchangeId: 'x10',
      status: 'cut',
      error: 'the stream ended mid-message',
      stopReason: undefined,
      startedAt: SAMPLE_START + 950,
    };
    store.ingest([upsert(store, pending)]);
    store.ingest([upsert(store, cut)]);
    await dom.render(<Timeline rows={store.visibleRows(EMPTY_FILTERS)} onSelect={noop} onOpen={noop} live={false} />);
    expect(rowEl('tm3').getAttribute('data-status')).toBe('pending');
    expect(rowEl('tm3').querySelector('[data-testid="turn-state"]')!.textContent).toBe('waiting for the model to answer');
    expect(rowEl('tm4').getAttribute('data-status')).toBe('cut');
    expect(rowEl('tm4').querySelector('[data-testid="turn-state"]')!.textContent).toBe(
      'the response was cut off: the stream ended mid-message',
    );
    expect(store.visibleRows({ ...EMPTY_FILTERS, errorsOnly: true }).map((r) => r.key)).toEqual(['tm4']);
  });

  it('the search finds turns by model and by the tools they chose', () => {
    const store = load();
    expect(store.visibleRows({ ...EMPTY_FILTERS, text: 'sonnet' }).map((r) => r.key)).toEqual(['tm1', 'tm2']);
    // m1 chose mcp__se__echo (m2 chose none); the tools/list answer and the tools/call carry `echo` in their JSON.
    expect(store.visibleRows({ ...EMPTY_FILTERS, text: 'mcp__se__echo' }).map((r) => r.key)).toEqual(['tm1']);
    expect(store.visibleRows({ ...EMPTY_FILTERS, text: 'echo' }).map((r) => r.key)).toEqual(['c4', 'tm1', 'c9']);
    expect(store.visibleRows({ ...EMPTY_FILTERS, text: 'end_turn' }).map((r) => r.key)).toEqual(['tm2']);
  });
});

describe('model turns: the Model tab', () => {
  it('shows the transcript: system collapsed, the messages, the output with the tool use linked to its MCP call and result', async () => {
    const store = load();
    const selected: string[] = [];
    await dom.render(
      <DetailPane store={store} row={store.row('tm1')!} version={store.version} onSelect={(k) => selected.push(k)} onClose={noop} />,
    );
    // A turn's row opens on the Model tab.
    expect(dom.$('detail-tab-model')!.getAttribute('aria-selected')).toBe('true');
    const tab = dom.$('model-tab')!;
    expect(tab.getAttribute('data-turn')).toBe('m1');
    const system = dom.$<HTMLDetailsElement>('tx-system')!;
    expect(system.open).toBe(false);
    expect(system.textContent).toContain('You are Claude Code');
    expect(dom.$('tx-earlier')).toBeNull();
    const entries = [...tab.querySelectorAll('[data-testid="tx-entry"]')].map(
      (e) => `${e.getAttribute('data-role')}:${e.getAttribute('data-kind')}`,
    );
    expect(entries).toEqual(['user:text', 'assistant:text', 'assistant:tool-use']);
    const use = tab.querySelector('[data-testid="tx-entry"][data-kind="tool-use"]')!;
    // The arguments as indented JSON.
    expect(use.querySelector('pre')!.textContent).toBe('{\n  "message": "hello"\n}');
    await click(use.querySelector('[data-link="mcp-call"]'));
    await click(use.querySelector('[data-link="mcp-result"]'));
    await click(use.querySelector('[data-link="result-turn"]'));
    expect(selected).toEqual(['c9', 'c9', 'tm2']);
    expect(dom.$('model-ttft')!.textContent).toBe('time to first token 140 ms');
    expect(dom.$('model-timing')!.textContent).toContain('done +300 ms');
    expect(dom.$('model-usage')!.querySelector('[data-usage="total input"]')!.textContent).toContain('31,338');
    expect(dom.$('model-usage')!.querySelector('[data-usage="cache write"]')!.textContent).toContain('31,334');
  });

  it('names the model that answered when it is not the one asked for (responseModel), and not otherwise', async () => {
    const store = load();
    store.ingest([upsert(store, { ...TURN_1, model: 'claude-sonnet-4-5', responseModel: 'claude-sonnet-4-5-20250929' })]);
    await dom.render(<DetailPane store={store} row={store.row('tm1')!} version={store.version} onSelect={noop} onClose={noop} />);
    expect(dom.$('model-response-model')!.textContent).toBe('claude-sonnet-4-5-20250929');
    store.ingest([upsert(store, { ...TURN_1, model: 'claude-sonnet-4-5', responseModel: 'claude-sonnet-4-5' })]);
    await dom.render(<DetailPane store={store} row={store.row('tm1')!} version={store.version} onSelect={noop} onClose={noop} />);
    expect(dom.$('model-response-model')).toBeNull();
  });

  it('says how many earlier messages went in earlier turns, and links a tool result to the turn that asked for it', async () => {
    const store = load();
    const selected: string[] = [];
    await dom.render(
      <DetailPane store={store} row={store.row('tm2')!} version={store.version} onSelect={(k) => selected.push(k)} onClose={noop} />,
    );
    expect(dom.$('tx-earlier')!.textContent).toBe('1 earlier message (sent in earlier turns)');
    const result = dom.container.querySelector('[data-testid="tx-entry"][data-kind="tool-result"]')!;
    expect(result.querySelector('[data-testid="tx-compared"]')!.getAttribute('data-compared')).toBe('same');
    await click(result.querySelector('[data-link="from-turn"]'));
    await click(result.querySelector('[data-link="mcp-result"]'));
    expect(selected).toEqual(['tm1', 'c9']);
  });

  it('lists the tools offered by server, with their tokens and bytes, largest first', async () => {
    const store = load();
    await dom.render(<DetailPane store={store} row={store.row('tm1')!} version={store.version} onSelect={noop} onClose={noop} />);
    const servers = [...dom.container.querySelectorAll('[data-testid="model-tools-server"]')].map((s) => s.getAttribute('data-server'));
    expect(servers).toEqual(['(built-in)', 'se']);
    const se = dom.container.querySelector('[data-testid="model-tools-server"][data-server="se"]')!;
    expect([...se.querySelectorAll('[data-testid="model-tool"]')].map((t) => t.getAttribute('data-tool'))).toEqual([
      'mcp__se__add',
      'mcp__se__echo',
    ]);
    expect(se.textContent).toContain('≈ 102 tokens');
    expect(se.textContent).toContain('0.3 % of input');
    expect(dom.$('model-tools')!.textContent).toContain('o200k_base (js-tiktoken) estimate');
  });

  it('on a tools/call a turn asked for, shows that turn with a link back; a cut text and the hints are said', async () => {
    const store = load();
    const hinted: ModelTurnInfo = {
      ...TURN_1,
      hints: [{ level: 'warn', code: 'tool-not-called', text: 'The model asked for mcp__se__add; no MCP tools/call carried it out.' }],
      messages: [{ role: 'user', kind: 'text', text: 'a very long prompt, cut', bytes: 250_000, truncated: true }],
    };
    store.ingest([upsert(store, hinted)]);
    const selected: string[] = [];
    await dom.render(
      <DetailPane store={store} row={store.row('c9')!} version={store.version} onSelect={(k) => selected.push(k)} onClose={noop} />,
    );
    // Messages first for an MCP call; the Model tab is there.
    expect(dom.$('detail-tab-messages')!.getAttribute('aria-selected')).toBe('true');
    await click(dom.$('detail-tab-model'));
    expect(dom.$('model-tab')!.getAttribute('data-turn')).toBe('m1');
    expect(dom.$('model-asked-by')!.textContent).toContain('mcp__se__echo');
    await click(dom.$('model-asked-by')!.querySelector('[data-link="turn"]'));
    expect(selected).toEqual(['tm1']);
    expect(dom.$('tx-cut')!.textContent).toBe('Cut: the first 23 B of 244 KB are kept.');
    expect(dom.$('model-hints')!.textContent).toContain('no MCP tools/call carried it out');
    // And the correlation links: the call names its turn.
    expect(dom.container.querySelector('[data-link="model-turn"]')!.textContent).toContain('← model turn m1');
  });

  it('is not offered on rows without a model turn', async () => {
    const store = load();
    await dom.render(<DetailPane store={store} row={store.row('c4')!} version={store.version} onSelect={noop} onClose={noop} />);
    expect(dom.$('detail-tab-model')).toBeNull();
  });
});

describe('model turns: the Context view', () => {
  it('draws per server and tool the tokens of every request, largest first, with shares, the estimate and the real input', async () => {
    const store = load();
    const selected: string[] = [];
    await dom.render(<ContextPanel store={store} version={store.version} sessionId="" onSelect={(k) => selected.push(k)} />);
    const agents = dom.container.querySelectorAll('[data-testid="context-agent"]');
    expect(agents).toHaveLength(1);
    // From the agent's latest turn (m2).
    expect(dom.$('context-input')!.textContent).toBe('31,454 tokens');
    expect(dom.$('context-encoding')!.textContent).toContain('o200k_base (js-tiktoken)');
    expect(dom.$('context-summary')!.textContent).toContain('≈ 602 tokens');
    const servers = [...dom.container.querySelectorAll('[data-testid="context-server"]')];
    expect(servers.map((s) => s.getAttribute('data-server'))).toEqual(['(built-in)', 'se']);
    expect(servers.map((s) => s.querySelector('[data-testid="context-share"]')!.textContent)).toEqual(['1.6 %', '0.3 %']);
    const widths = servers.map((s) => (s.querySelector('.context-fill') as HTMLElement).style.width);
    expect(widths[0]).toBe('100%');
    expect(parseFloat(widths[1])).toBeCloseTo((102 / 500) * 100, 1);
    const seTools = [...servers[1].querySelectorAll('[data-testid="context-tool"]')].map(
      (t) => `${t.getAttribute('data-tool')}=${t.getAttribute('data-tokens')}`,
    );
    expect(seTools).toEqual(['mcp__se__add=58', 'mcp__se__echo=44']);
    await click(dom.$('context-turn'));
    expect(selected).toEqual(['tm2']);
  });

  it('for an MCP session, shows the agents whose tools it served; without model traffic, says how to get some', async () => {
    const store = load();
    await dom.render(<ContextPanel store={store} version={store.version} sessionId="s1" onSelect={noop} />);
    expect(dom.container.querySelectorAll('[data-testid="context-agent"]')).toHaveLength(1);
    const bare = load(sampleAgentEvents().filter((e) => e.type !== 'model-turn'));
    await dom.render(<ContextPanel store={bare} version={bare.version} sessionId="" onSelect={noop} />);
    expect(dom.$('context-none')!.textContent).toContain('mcpscope run -- claude');
    expect(dom.$('context-none')!.textContent).toContain('docs/agent-view.md');
  });

  it('opens from the header, in the App, and a turn picked there is selected', async () => {
    const store = load();
    await dom.render(<App store={store} source={{ mode: 'capture', file: 'agent.ndjson', kind: 'ndjson' }} />);
    // The model API's bucket says what it carries.
    expect(dom.$('session-model-turns')!.textContent).toBe('2 model turns');
    await click(dom.$('context-open'));
    expect(dom.$('context-drawer')).not.toBeNull();
    await click(dom.$('context-turn'));
    expect(dom.$('context-drawer')).toBeNull();
    expect(dom.$('detail')!.getAttribute('data-key')).toBe('tm2');
  });
});

describe('model turns: long request entries (a real agent sends KB of reminders and system texts among its messages)', () => {
  it('entryPreview: a short text is whole, a long one is cut at its lines or characters, never inside a surrogate pair', () => {
    expect(entryPreview('call the echo tool')).toBeUndefined();
    const lines = (n: number) => Array.from({ length: n }, (_, i) => String(i + 1));
    expect(entryPreview(`${lines(ENTRY_PREVIEW.lines).join('\n')}\n`)).toBeUndefined();
    expect(entryPreview(lines(ENTRY_PREVIEW.lines + 2).join('\n'))).toBe(lines(ENTRY_PREVIEW.lines).join('\n'));
    expect(entryPreview('x'.repeat(ENTRY_PREVIEW.chars + 1))).toBe('x'.repeat(ENTRY_PREVIEW.chars));
    const emoji = `${'x'.repeat(ENTRY_PREVIEW.chars - 1)}😀tail`;
    expect(entryPreview(emoji)).toBe('x'.repeat(ENTRY_PREVIEW.chars - 1));
  });

  it('shows a long request entry folded to its head, so the answer stays in view; "show all" opens it; the output is whole', async () => {
    const store = load();
    const m1 = (store.row('tm1') as { turn: ModelTurnInfo }).turn;
    const reminder = `<system-reminder>\n${Array.from({ length: 40 }, (_, i) => `line ${i} of context`).join('\n')}\n</system-reminder>`;
    const longAnswer = Array.from({ length: 20 }, (_, i) => `answer line ${i}`).join('\n');
    store.ingest([
      upsert(store, {
        ...m1,
        messages: [{ role: 'user', kind: 'text', text: reminder, bytes: reminder.length }, ...m1.messages],
        output: [{ role: 'assistant', kind: 'text', text: longAnswer, bytes: longAnswer.length }, ...m1.output.slice(1)],
      }),
    ]);
    await dom.render(<DetailPane store={store} row={store.row('tm1')!} version={store.version} onSelect={noop} onClose={noop} />);
    const entries = [...dom.container.querySelectorAll<HTMLElement>('[data-testid="tx-entry"]')];
    const [long, short, answer] = entries;
    expect(long.querySelector('[data-testid="tx-folded"]')!.textContent).toBe(
      reminder.split('\n').slice(0, ENTRY_PREVIEW.lines).join('\n'),
    );
    expect(long.textContent).not.toContain('line 39 of context');
    // The short user prompt and the model's own output are shown whole, with no button.
    expect(short.querySelector('[data-testid="tx-more"]')).toBeNull();
    expect(answer.getAttribute('data-role')).toBe('assistant');
    expect(answer.querySelector('[data-testid="tx-more"]')).toBeNull();
    expect(answer.textContent).toContain('answer line 19');
    const more = long.querySelector<HTMLButtonElement>('[data-testid="tx-more"]')!;
    expect(more.textContent).toMatch(/^show all /);
    await click(more);
    expect(long.querySelector('[data-testid="tx-folded"]')).toBeNull();
    expect(long.querySelector('pre')!.textContent).toBe(reminder);
    expect(more.getAttribute('aria-expanded')).toBe('true');
  });
});

describe('model turns: the waterfall', () => {
  it('puts the turns in a lane of their own, on the axis of the MCP calls, with the first token marked', () => {
    const store = load();
    const wf = store.waterfall('');
    const lanes = packWaterfall(wf);
    expect(lanes[0].kind).toBe('model');
    expect(lanes[0].label).toBe('claude-sonnet-4-5 · claude-code:7f1c2d9e');
    expect(
      lanes[0].bars.map((b) => [b.bar.key, b.bar.start - SAMPLE_START, b.bar.end! - SAMPLE_START, b.bar.mark! - SAMPLE_START]),
    ).toEqual([
      ['tm1', 100, 400, 240],
      ['tm2', 600, 800, 700],
    ]);
    expect(lanes.some((l) => l.bars.some((b) => b.bar.key === 'c9'))).toBe(true);
    expect(wf.start).toBe(SAMPLE_START + 5);
    expect(wf.end).toBe(SAMPLE_START + 800);
  });

  it("counts the turns apart from the MCP calls, and shades the wait for the first token from the bar's start instead of a line across its label", async () => {
    const store = load();
    await dom.render(<Waterfall store={store} sessionId="" version={store.version} onSelect={noop} live={false} />);
    const calls = store.waterfall('').bars.filter((b) => !b.model).length;
    expect(dom.container.querySelector('.wf-summary')!.textContent).toMatch(new RegExp(` · ${calls} calls · 2 model turns · `));
    const bar = dom.container.querySelector<HTMLElement>('[data-testid="waterfall-bar"][data-key="tm1"]')!;
    const wait = bar.querySelector<HTMLElement>('[data-testid="waterfall-ttft"]')!;
    // 140 ms of the turn's 300 ms: the shade covers that share of the bar, from its left edge.
    expect(wait.style.left).toBe('');
    expect(parseFloat(wait.style.width) / parseFloat(bar.style.width)).toBeCloseTo(140 / 300, 2);
  });
});
