// @vitest-environment happy-dom
/**
 * The Waterfall component (happy-dom, no layout: it draws for its default 1000 px width): the axis
 * spans a closed session's own 11 s however late the store's clock is, sequential calls share a
 * row, labels carry the calls' names in full, Fit zooms to the calls when the axis runs past them,
 * and bars and their labels select their call.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { TimelineStore } from '../../ui/src/state/store';
import { Waterfall } from '../../ui/src/components/Waterfall';
import type { McpscopeEvent } from '../../proxy/core/model/events';
import { EventBuilder } from './fixtures';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const MIN = 60_000;

function call(b: EventBuilder, xid: string, sid: string, id: number, name: string, takesMs: number): void {
  const x = b.exchange(xid, sid, { status: 200, carrier: 'post-sse', responseType: 'text/event-stream' });
  const request = b.message({
    sessionId: sid,
    exchangeId: xid,
    dir: 'c2s',
    kind: 'request',
    carrier: 'post-body',
    id,
    method: 'tools/call',
    name,
    jsonrpc: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } },
  });
  b.message({
    sessionId: sid,
    exchangeId: xid,
    dir: 's2c',
    kind: 'response',
    carrier: 'post-sse',
    id,
    method: 'tools/call',
    name,
    pair: request.seq,
    after: takesMs,
    jsonrpc: { jsonrpc: '2.0', id, result: { content: [] } },
  });
  b.update(x, { endedAt: b.ts });
}

const NAMES = ['list_everything_available', 'summarize_the_quarterly_report', 'send_a_rather_long_notification'];

/** s1: three sequential calls over 11 s, closed; `later`: then s2 (or nothing) 13 minutes on. */
function session({ close }: { close: boolean }): McpscopeEvent[] {
  const b = new EventBuilder();
  b.session('s1');
  NAMES.forEach((name, i) => {
    if (i > 0) b.wait(4_000);
    call(b, `x${i + 1}`, 's1', i + 1, name, 1_000);
  });
  if (close) b.session('s1', { status: 'closed', endedAt: b.ts + 2, closeReason: 'deleted' });
  b.wait(13 * MIN);
  b.session('s2');
  call(b, 'y1', 's2', 1, 'add', 5);
  return b.events;
}

let container: HTMLDivElement;
let root: Root;

beforeEach(() => {
  container = document.createElement('div');
  document.body.appendChild(container);
  root = createRoot(container);
});

afterEach(() => {
  act(() => root.unmount());
  container.remove();
});

function render(events: McpscopeEvent[], sessionId: string, selected: string[] = [], selectedKey?: string) {
  const store = new TimelineStore();
  store.ingest(events);
  act(() =>
    root.render(
      <Waterfall
        store={store}
        sessionId={sessionId}
        version={store.version}
        selectedKey={selectedKey}
        onSelect={(k) => selected.push(k)}
        live={false}
      />,
    ),
  );
  return store;
}

const px = (v: string) => Number.parseFloat(v);

/** Where the rightmost bar ends, as a fraction of the plot's visible width (1000 px, less the labels and a margin). */
function rightmostBarEnd(): number {
  const canvas = container.querySelector<HTMLElement>('.wf-canvas')!;
  const scroller = container.querySelector<HTMLElement>('.wf-scroll')!;
  const labelW = px(canvas.style.getPropertyValue('--wf-label-w'));
  const viewW = 1000 - labelW - 24;
  const ends = [...container.querySelectorAll<HTMLElement>('[data-testid="waterfall-bar"]')].map(
    (el) => px(el.style.left) + px(el.style.width),
  );
  return (Math.max(...ends) - labelW - scroller.scrollLeft) / viewW;
}

const fit = () => [...container.querySelectorAll<HTMLButtonElement>('.wf-toolbar button')].find((b) => b.textContent === 'Fit')!;

describe('Waterfall', () => {
  it('draws a closed session on its own 11 s, not on an axis running to the latest event 13 minutes later', () => {
    render(session({ close: true }), 's1');
    expect(rightmostBarEnd()).toBeGreaterThan(0.95);
    expect(container.querySelector('.wf-summary')?.textContent).toBe('1 lanes · 3 streams · 3 calls · 11.0 s');
    // The calls fill the view already: nothing to fit.
    expect(fit().disabled).toBe(true);
  });

  it('puts sequential calls on one row and names each call in full on the row label and on or beside its bar', () => {
    render(session({ close: true }), 's1');
    const lanes = container.querySelectorAll<HTMLElement>('[data-testid="waterfall-lane"]');
    expect(lanes).toHaveLength(1);
    expect(lanes[0].dataset.streams).toBe('3');
    expect(container.querySelectorAll('[data-testid="waterfall-bar"]')).toHaveLength(3);
    const title = lanes[0].querySelector<HTMLElement>('.wf-lane-label')!.title;
    for (const name of NAMES) expect(title).toContain(`tools/call ${name}`);
    // Bars too short to hold their names have them beside, in full where there is room before the
    // next bar; the last one, at the axis end, gets what room there is (here: its tool's name,
    // inside its bar).
    const labels = [...container.querySelectorAll<HTMLElement>('[data-testid="waterfall-bar-label"]')];
    expect(labels.map((l) => l.textContent)).toEqual(NAMES.slice(0, 2).map((n) => `tools/call ${n}`));
    for (const l of labels) expect(px(l.style.maxWidth)).toBeGreaterThanOrEqual((l.textContent ?? '').length * 5.5);
    const bars = [...container.querySelectorAll<HTMLElement>('[data-testid="waterfall-bar"]')];
    expect(bars[2].querySelector('.wf-bar-label')?.textContent).toBe(NAMES[2]);
    expect(bars[2].title).toContain(`tools/call ${NAMES[2]}`);
    // A label never runs into the next bar.
    expect(px(labels[1].style.left) + px(labels[1].style.maxWidth)).toBeLessThan(px(bars[2].style.left));
    for (const l of labels) expect(l.title).toContain(l.textContent!);
  });

  it('lets an open session run on to the latest event, and fits the calls on Fit', () => {
    render(session({ close: false }), 's1');
    // 11 s of calls on a 13-minute axis.
    expect(rightmostBarEnd()).toBeLessThan(0.05);
    expect(fit().disabled).toBe(false);
    act(() => fit().click());
    expect(rightmostBarEnd()).toBeGreaterThan(0.9);
    expect(fit().disabled).toBe(true);
    const zoomOut = container.querySelector<HTMLButtonElement>('button[title^="Zoom out"]')!;
    act(() => zoomOut.click());
    expect(fit().disabled).toBe(false);
  });

  it('selects a call from its bar or its label, and marks the selected bar', () => {
    const selected: string[] = [];
    const store = render(session({ close: true }), 's1', selected);
    const bars = [...container.querySelectorAll<HTMLElement>('[data-testid="waterfall-bar"]')];
    act(() => bars[1].click());
    act(() => container.querySelectorAll<HTMLElement>('[data-testid="waterfall-bar-label"]')[0].click());
    expect(selected).toEqual([bars[1].dataset.key, bars[0].dataset.key]);
    act(() =>
      root.render(
        <Waterfall
          store={store}
          sessionId="s1"
          version={store.version}
          selectedKey={bars[2].dataset.key}
          onSelect={() => undefined}
          live={false}
        />,
      ),
    );
    expect(container.querySelector('.wf-bar.selected')?.getAttribute('data-key')).toBe(bars[2].dataset.key);
  });

  it('stacks concurrent calls on rows of their own', () => {
    const b = new EventBuilder();
    b.session('s1');
    const xa = b.exchange('xa', 's1', { status: 200, carrier: 'post-sse' });
    const a = b.message({
      exchangeId: 'xa',
      dir: 'c2s',
      kind: 'request',
      carrier: 'post-body',
      id: 1,
      method: 'tools/call',
      name: 'slow',
      jsonrpc: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } },
    });
    call(b, 'xb', 's1', 2, 'fast', 10);
    b.message({
      exchangeId: 'xa',
      dir: 's2c',
      kind: 'response',
      carrier: 'post-sse',
      id: 1,
      method: 'tools/call',
      name: 'slow',
      pair: a.seq,
      after: 500,
      jsonrpc: { jsonrpc: '2.0', id: 1, result: {} },
    });
    b.update(xa, { endedAt: b.ts });
    render(b.events, 's1');
    expect(container.querySelectorAll('[data-testid="waterfall-lane"]')).toHaveLength(2);
  });
});
