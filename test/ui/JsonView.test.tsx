// @vitest-environment happy-dom
/**
 * JsonView's `highlight` (issue 19): the parts of a message that JSON pointers name (a spec
 * violation's path) are opened and marked, wherever they sit; a pointer to a member the message
 * does not have marks its nearest ancestor.
 */
import { describe, expect, it } from 'vitest';
import { act } from 'react';
import { mountPoint } from './dom';
import { JsonView } from '../../ui/src/components/JsonView';

const dom = mountPoint();

/** The marked lines: their pointers and their text. */
const marked = () =>
  [...dom.container.querySelectorAll<HTMLElement>('[data-testid="jv-hl"]')].map((el) => ({
    path: el.getAttribute('data-path'),
    text: el.textContent,
    hl: el.classList.contains('jv-hl'),
  }));

const call = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'add', arguments: { a: '2', b: 3 } },
};

describe('JsonView highlight', () => {
  it('marks the line a pointer names, and only that line', async () => {
    await dom.render(<JsonView value={call} highlight={['/params/arguments/a']} />);
    expect(marked()).toEqual([{ path: '/params/arguments/a', text: '"a": "2",', hl: true }]);
    // Its neighbours are plain.
    const lines = [...dom.container.querySelectorAll('.jv-line')].map((el) => el.textContent);
    expect(lines).toContain('"b": 3');
    expect(dom.container.querySelectorAll('.jv-hl').length).toBe(1);
  });

  it('marks nothing without pointers, or with what is not a pointer', async () => {
    await dom.render(<JsonView value={call} />);
    expect(marked()).toEqual([]);
    await dom.render(<JsonView value={call} highlight={[]} />);
    expect(marked()).toEqual([]);
    await dom.render(<JsonView value={call} highlight={['params/arguments/a']} />);
    expect(marked()).toEqual([]);
  });

  it('marks a member the message lacks on its nearest ancestor', async () => {
    const result = { jsonrpc: '2.0', id: 3, result: { structured: true } };
    await dom.render(<JsonView value={result} highlight={['/result/content']} />);
    expect(marked()).toEqual([{ path: '/result', text: expect.stringContaining('"result": {'), hl: true }]);
    // An empty object is marked as its one line.
    await dom.render(<JsonView value={{ result: {} }} highlight={['/result/content/0/type']} />);
    expect(marked()).toEqual([{ path: '/result', text: '"result": {}', hl: true }]);
    // Nothing of the path exists: the whole message.
    await dom.render(<JsonView value={call} highlight={['/error/code']} label="request" />);
    expect(marked().map((m) => m.path)).toEqual(['']);
  });

  it('opens the way to a part deeper than it opens by default, and marks array members and escaped names', async () => {
    const value = {
      result: {
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png', 'a/b~c': { deep: { deeper: 1 } } },
        ],
      },
    };
    await dom.render(<JsonView value={value} openDepth={0} highlight={['/result/content/1/a~1b~0c/deep/deeper']} />);
    expect(marked()).toEqual([{ path: '/result/content/1/a~1b~0c/deep/deeper', text: '"deeper": 1', hl: true }]);
    // The first content block is off the way: it stays collapsed.
    const collapsed = [...dom.container.querySelectorAll('.jv-collapsed')].map((el) => el.textContent);
    expect(collapsed).toEqual(['▸0: { type: "text", text: "one" }2 keys,']);

    // Several at once, a container among them (marked as its opening line).
    await dom.remount();
    await dom.render(<JsonView value={value} openDepth={0} highlight={['/result/content/1', '/result/content/0/text']} />);
    expect(marked().map((m) => m.path)).toEqual(['/result/content/0/text', '/result/content/1']);
  });

  it('opens the way to a part marked later (a violation that came after the message was shown)', async () => {
    const value = { result: { content: [{ type: 'text', text: 'one' }, { type: 'image' }] } };
    await dom.render(<JsonView value={value} openDepth={0} highlight={['/result/content/1/type']} />);
    expect(marked().map((m) => m.path)).toEqual(['/result/content/1/type']);
    // The same view, now with a part inside the block it left collapsed.
    await dom.render(<JsonView value={value} openDepth={0} highlight={['/result/content/1/type', '/result/content/0/text']} />);
    expect(marked().map((m) => m.path)).toEqual(['/result/content/0/text', '/result/content/1/type']);
  });

  it('opens a container with many members on the way (which would start collapsed)', async () => {
    const args: Record<string, number> = {};
    for (let i = 0; i < 80; i++) args[`k${i}`] = i;
    await dom.render(<JsonView value={{ params: { arguments: args } }} highlight={['/params/arguments/k70']} />);
    expect(marked()).toEqual([{ path: '/params/arguments/k70', text: '"k70": 70,', hl: true }]);
  });

  it('shows a marked member past the first page of a long array or object', async () => {
    const tools = Array.from({ length: 250 }, (_, i) => ({ name: `tool${i}`, inputSchema: { type: 'object' } }));
    await dom.render(<JsonView value={{ result: { tools } }} highlight={['/result/tools/180/inputSchema/type']} />);
    expect(marked()).toEqual([{ path: '/result/tools/180/inputSchema/type', text: '"type": "object"', hl: true }]);
    const props: Record<string, number> = {};
    for (let i = 0; i < 150; i++) props[`p${i}`] = i;
    await dom.render(<JsonView value={{ props }} highlight={['/props/p120']} />);
    expect(marked()).toEqual([{ path: '/props/p120', text: '"p120": 120,', hl: true }]);
  });

  it('marks each of several pointers, and follows the pointers it is given next', async () => {
    await dom.render(<JsonView value={call} highlight={['/params/arguments/a', '/params/arguments/b', '/params/name']} />);
    expect(marked().map((m) => m.path)).toEqual(['/params/name', '/params/arguments/a', '/params/arguments/b']);
    await dom.render(<JsonView value={call} highlight={['/method']} />);
    expect(marked().map((m) => m.path)).toEqual(['/method']);
    // A click still folds a marked part's ancestors.
    const params = [...dom.container.querySelectorAll<HTMLElement>('.jv-open')].find((el) => el.textContent === '▾"params": {')!;
    await act(async () => params.click());
    expect(dom.container.textContent).not.toContain('"arguments"');
  });
});
