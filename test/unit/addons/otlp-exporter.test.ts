/**
 * proxy/addons/telemetry/otlp-exporter.ts with model turns, through the real OpenTelemetry SDK to a
 * stand-in collector on 127.0.0.1 (port 0): a turn's `chat` span ends before the tools/call it chose
 * begins, and that call's span is still its child in the trace (the exporter keeps ended turn
 * spans' contexts; without them the call would start a trace of its own).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startOtlpExport } from '../../../proxy/addons/telemetry/otlp-exporter.js';
import { resolveOtlpOptions } from '../../../proxy/addons/telemetry/otlp-options.js';
import { exportRedactor } from '../../../proxy/files/export/export-common.js';
import { EventStore } from '../../../proxy/recorder/store/event-store.js';
import type { UnsequencedEvent } from '../../../proxy/core/model/events.js';
import { sampleAgentEvents } from '../../support/model-turn-sample.js';
import { startOtlpReceiver } from '../../support/otlp-receiver.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});

describe('OTLP export of model turns', () => {
  it('sends a chat span per turn, and the tools/call the turn chose as its child', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const config = resolveOtlpOptions({ url: receiver.url }, { OTEL_BSP_SCHEDULE_DELAY: '20' })!;
    const store = new EventStore();
    const otlp = await startOtlpExport(store, config, { redactor: exportRedactor() });
    cleanups.push(() => otlp.close());
    // Batch by batch, as the recorder commits: the turn's span has ended (and left the open map) before the call starts.
    for (const e of sampleAgentEvents()) {
      const { seq: _seq, ...rest } = e;
      store.append(rest as UnsequencedEvent);
      store.commit();
    }
    const spans = await receiver.until((r) => {
      const chat = r.spans.find((s) => s.name === 'chat claude-sonnet-4-5' && s.attributes['mcpscope.model_turn'] === 'm1');
      const call = r.spans.find((s) => s.name === 'tools/call echo');
      return chat && call ? { chat, call } : undefined;
    });
    expect(spans.chat.kind).toBe(3);
    expect(spans.chat.attributes).toMatchObject({ 'gen_ai.provider.name': 'anthropic', 'gen_ai.usage.input_tokens': 31_338 });
    expect(spans.chat.attributes['gen_ai.response.finish_reasons']).toEqual(['tool_use']);
    expect(spans.call.traceId).toBe(spans.chat.traceId);
    expect(spans.call.parentSpanId).toBe(spans.chat.spanId);
    expect(spans.call.startNs).toBeGreaterThan(spans.chat.endNs);
  });
});
