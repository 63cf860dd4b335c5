// @vitest-environment happy-dom
/**
 * A message nested 10,000 levels deep (a capture file, or a `raw` text the UI parses itself:
 * proxy/core/model/feed-form.ts) in JsonView, the detail pane and DiffView: nothing throws (a throw
 * in a render takes the whole page down), and past MAX_TREE_DEPTH levels the JSON is offered as
 * text instead of a tree.
 */
import { describe, expect, it, vi } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { fromFeed } from '../../proxy/core/model/feed-form';
import type { MessageEvent } from '../../proxy/core/model/events';
import { TimelineStore } from '../../ui/src/state/store';
import { MAX_TREE_DEPTH, jsonPretty, jsonText } from '../../ui/src/state/format';
import { diffSessions } from '../../ui/src/state/session-diff';
import { JsonView } from '../../ui/src/components/JsonView';
import { DetailPane } from '../../ui/src/components/DetailPane';
import { DiffView } from '../../ui/src/components/DiffView';
import { EventBuilder } from './fixtures';

const dom = mountPoint();
const noop = () => undefined;
const DEPTH = 10_000;
const deepText = (n = DEPTH) => `${'[{"a":'.repeat(n)}1${'}]'.repeat(n)}`;
const deepValue = (n = DEPTH): unknown => JSON.parse(deepText(n));
/** `[[[…1…]]]`: String() of it recurses too (the old fallback after a failed JSON.stringify). */
const deepArrays = (n = DEPTH) => `${'['.repeat(n)}1${']'.repeat(n)}`;

/** Session s1 answers tools/call deep with a deep result; s2 with a shallow one (so the diff has a change to write). */
function deepSessions(rawOnly: boolean) {
  const b = new EventBuilder();
  for (const sid of ['s1', 's2']) {
    b.session(sid);
    const req = b.message({
      sessionId: sid,
      dir: 'c2s',
      kind: 'request',
      carrier: 'stdio',
      id: 1,
      method: 'tools/call',
      name: 'deep',
      jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'deep' } },
    });
    const res = b.message({
      sessionId: sid,
      dir: 's2c',
      kind: 'response',
      carrier: 'stdio',
      id: 1,
      pair: req.seq,
      noRaw: true,
      jsonrpc: { jsonrpc: '2.0', id: 1, result: {} },
    });
    if (sid === 's1') {
      const text = `{"jsonrpc":"2.0","id":1,"result":{"deep":${deepArrays()}}}`;
      if (rawOnly) {
        // As on the feed: `raw` without `jsonrpc`, parsed in the browser when first read.
        delete (res as Partial<MessageEvent>).jsonrpc;
        res.raw = text;
        fromFeed(res);
      } else res.jsonrpc = JSON.parse(text);
      res.size = text.length;
    } else res.jsonrpc = { jsonrpc: '2.0', id: 1, result: { deep: 1 } };
  }
  const store = new TimelineStore();
  store.ingest(b.events);
  return store;
}

describe('a message nested 10,000 levels deep', () => {
  it('JsonView draws the first levels as a tree and the rest as a node that shows its text', async () => {
    await dom.render(<JsonView value={deepValue()} openDepth={Infinity} />);
    const deep = dom.$('jv-deep')!;
    expect(deep.textContent).toContain(`nested deeper than ${MAX_TREE_DEPTH} levels — show as text`);
    // Tree lines only down to the limit, not 20,000 of them.
    expect(dom.container.querySelectorAll('.jv-line').length).toBeLessThan(4 * MAX_TREE_DEPTH);
    // Deep lines stop moving right: at 64 levels of 14 px they would be out of a narrow pane, and the pane blank.
    const pads = [...dom.container.querySelectorAll<HTMLElement>('.jv-line')].map((el) => parseFloat(el.style.paddingLeft) || 0);
    expect(Math.max(...pads)).toBeLessThanOrEqual(120);
    await act(async () => deep.click());
    // The text sits under the line it opens from, not at the pane's left edge.
    expect(parseFloat(dom.$('jv-deep-text')!.style.marginLeft)).toBeGreaterThanOrEqual(parseFloat(deep.style.paddingLeft));
    // Level 64 is the 33rd array from the root: its text, clipped at first.
    const whole = deepText(DEPTH - MAX_TREE_DEPTH / 2);
    expect(dom.$('jv-deep-text')!.textContent).toMatch(/^\[\{"a":\[\{"a":.*… show the remaining \d+(\.\d)? KB$/);
    await act(async () => dom.$('jv-deep-text')!.querySelector('button')!.click());
    expect(dom.$('jv-deep-text')!.textContent).toBe(whole);
  });

  it('the detail pane shows it, its Raw tab and Copy JSON work', async () => {
    const store = deepSessions(false);
    const writeText = vi.fn(async () => undefined);
    vi.stubGlobal('navigator', { clipboard: { writeText } });
    await dom.render(<DetailPane store={store} row={store.row('c2')!} version={store.version} onSelect={noop} onClose={noop} />);
    expect(dom.$('detail')!.querySelector('.jv-response')).not.toBeNull();
    await act(async () => dom.$('detail-tab-raw')!.click());
    const raw = [...dom.$('detail')!.querySelectorAll('.raw')].map((el) => el.textContent).join('\n');
    expect(raw).toContain(`"deep":${'['.repeat(200)}`);
    await act(async () => dom.$('copy-json')!.click());
    expect(writeText).toHaveBeenCalledTimes(1);
    expect(JSON.parse((writeText.mock.calls[0] as unknown[])[0] as string)).toBeTruthy();
  });

  it('DiffView compares it (parsed in the browser from `raw`, as fromFeed does) with a shallow answer and writes the change', async () => {
    const store = deepSessions(true);
    expect(diffSessions(store, 's1', 's2')[0].changes[0].text).toBe(`result.deep: ${'['.repeat(79)}… → 1`);
    await dom.render(
      <DiffView
        store={store}
        version={store.version}
        sessions={store.sessionList()}
        left="s1"
        right="s2"
        onChange={noop}
        onOpenCall={noop}
        onExit={noop}
      />,
    );
    const row = dom.$('diff-row')!;
    expect(row.dataset.diff).toBe('changed');
    expect(row.querySelector('.dc-before')!.textContent).toBe(`${'['.repeat(159)}…`);
  });
});

describe('jsonText and jsonPretty', () => {
  it('write any depth, compact past MAX_TREE_DEPTH', () => {
    const v = deepValue(5_000);
    expect(jsonText(v)).toBe(deepText(5_000));
    expect(jsonText(v, 10)).toBe('[{"a":[{"…');
    expect(jsonPretty(v)).toBe(deepText(5_000));
    expect(jsonPretty(deepValue(1))).toBe('[\n  {\n    "a": 1\n  }\n]');
    expect(jsonText({ n: 10n })).toBe('{"n":"10"}');
  });
});
