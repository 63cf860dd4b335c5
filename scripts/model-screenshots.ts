/**
 * The agent view's screenshots (issue 27), for scripts/screenshots.ts: the hand-made agent loop of
 * test/support/model-turn-sample.ts (Claude Code → the Anthropic Messages API → tools/call echo →
 * the next turn) recorded into a running mcpscope's store, as the recorder would, then shown in
 * its UI: docs/images/model-turn.png (turn m1 selected, its Model tab) and
 * docs/images/context-cost.png (the Context view). Needs `npm run build` (the UI from dist/).
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startMcpscope } from '../proxy/mcpscope.js';
import type { McpRef, McpscopeEvent, UnsequencedEvent } from '../proxy/model/events.js';
import { sampleAgentEvents } from '../test/support/model-turn-sample.js';

/** The sample's events without their seqs, their cross-references moved by `shift` (when the store already held events). */
function unsequenced(shift: number): UnsequencedEvent[] {
  const move = (ref: McpRef | undefined) => (ref ? { ...ref, seq: ref.seq + shift } : ref);
  return sampleAgentEvents().map((e): UnsequencedEvent => {
    const { seq: _seq, ...rest } = e as McpscopeEvent & { seq?: number };
    if (rest.type === 'message' && rest.pair !== undefined) return { ...rest, pair: rest.pair + shift } as UnsequencedEvent;
    if (rest.type === 'model-turn') {
      const turn = {
        ...rest.turn,
        toolCalls: rest.turn.toolCalls.map((c) => ({ ...c, mcpCall: move(c.mcpCall), mcpResult: move(c.mcpResult) })),
        toolResults: rest.turn.toolResults.map((r) => ({ ...r, mcpResult: move(r.mcpResult) })),
      };
      return { ...rest, turn } as UnsequencedEvent;
    }
    return rest as UnsequencedEvent;
  });
}

export async function shootModelViews(browser: Browser, images: string): Promise<void> {
  // Nothing is proxied: the store is given the sample, the UI shows it.
  const scope = await startMcpscope({ target: 'http://127.0.0.1:9/mcp', port: 0, uiPort: 0 });
  try {
    const shift = scope.store.peekSeq() - 1;
    for (const e of unsequenced(shift)) scope.store.append(e);
    scope.store.commit();
    const page = await browser.newPage({ viewport: { width: 1720, height: 940 } });
    await page.goto(scope.ui!.url);
    await page.locator('[data-testid="row"][data-key="tm1"] .c-time').click();
    await page.getByTestId('model-tab').waitFor();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(images, 'model-turn.png') });
    await page.getByTestId('context-open').click();
    await page.getByTestId('context-panel').waitFor();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(images, 'context-cost.png') });
    await page.close();
  } finally {
    await scope.close();
  }
}
