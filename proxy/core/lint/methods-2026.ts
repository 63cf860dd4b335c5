/**
 * The methods of protocol version 2026-07-28 (stateless Streamable HTTP), with the schemas the
 * official SDK publishes for it: `@modelcontextprotocol/core` (SDK v2), whose zod schemas know
 * `server/discover`, `subscriptions/listen`, the `_meta` a stateless request carries and the
 * `resultType` of a result. Sessions that negotiated an earlier version use methods.ts (SDK v1).
 */
import * as core from '@modelcontextprotocol/core';
import { METHODS, note, req, type MethodSpec, type ZodLike } from './methods.js';

import { STATELESS_VERSION } from '../model/protocol-version.js';

/** The 2026-07-28 schema of a method: v1's entry (sender, section) with core's schemas. */
function from2026(method: string, schema: ZodLike, result?: ZodLike): MethodSpec {
  const v1 = METHODS.get(method);
  if (!v1) throw new Error(`methods-2026: ${method} is not in methods.ts`);
  return { ...v1, schema, result };
}

/**
 * The methods of 2026-07-28, as the SDK v2's own registry of that revision lists them
 * (`rev2026-07-28/registry.ts` in @modelcontextprotocol/client): requests tools/call, tools/list,
 * prompts/get, prompts/list, resources/list, resources/templates/list, resources/read,
 * completion/complete, server/discover, subscriptions/listen; notifications cancelled, progress,
 * message, resources/updated, the three list_changed and subscriptions/acknowledged.
 */
const CURRENT: [string, MethodSpec][] = [
  ['server/discover', req('client', 'server/discovery', core.DiscoverRequestSchema, core.DiscoverResultSchema, STATELESS_VERSION)],
  [
    'subscriptions/listen',
    req(
      'client',
      'basic/utilities/subscriptions',
      core.SubscriptionsListenRequestSchema,
      core.SubscriptionsListenResultSchema,
      STATELESS_VERSION,
    ),
  ],
  [
    'notifications/subscriptions/acknowledged',
    note('server', 'basic/utilities/subscriptions', core.SubscriptionsAcknowledgedNotificationSchema, STATELESS_VERSION),
  ],
  ['tools/list', from2026('tools/list', core.ListToolsRequestSchema, core.ListToolsResultSchema)],
  ['tools/call', from2026('tools/call', core.CallToolRequestSchema, core.CallToolResultSchema)],
  ['prompts/list', from2026('prompts/list', core.ListPromptsRequestSchema, core.ListPromptsResultSchema)],
  ['prompts/get', from2026('prompts/get', core.GetPromptRequestSchema, core.GetPromptResultSchema)],
  ['resources/list', from2026('resources/list', core.ListResourcesRequestSchema, core.ListResourcesResultSchema)],
  [
    'resources/templates/list',
    from2026('resources/templates/list', core.ListResourceTemplatesRequestSchema, core.ListResourceTemplatesResultSchema),
  ],
  ['resources/read', from2026('resources/read', core.ReadResourceRequestSchema, core.ReadResourceResultSchema)],
  ['completion/complete', from2026('completion/complete', core.CompleteRequestSchema, core.CompleteResultSchema)],
  ['notifications/cancelled', from2026('notifications/cancelled', core.CancelledNotificationSchema)],
  ['notifications/progress', from2026('notifications/progress', core.ProgressNotificationSchema)],
  ['notifications/message', from2026('notifications/message', core.LoggingMessageNotificationSchema)],
  ['notifications/resources/updated', from2026('notifications/resources/updated', core.ResourceUpdatedNotificationSchema)],
  ['notifications/resources/list_changed', from2026('notifications/resources/list_changed', core.ResourceListChangedNotificationSchema)],
  ['notifications/tools/list_changed', from2026('notifications/tools/list_changed', core.ToolListChangedNotificationSchema)],
  ['notifications/prompts/list_changed', from2026('notifications/prompts/list_changed', core.PromptListChangedNotificationSchema)],
];

/**
 * 2026-07-28's table: its own methods, and every earlier method it dropped (ping, logging/setLevel,
 * resources/subscribe, tasks, the server→client requests, which now travel inside input_required
 * results…) marked `until`, so that a session of that version sending one is told so. `initialize`
 * stays unmarked: it is how any version is negotiated.
 */
export const METHODS_2026: ReadonlyMap<string, MethodSpec> = new Map<string, MethodSpec>([
  ...CURRENT,
  ...[...METHODS]
    .filter(([method]) => method !== 'initialize' && !CURRENT.some(([m]) => m === method))
    .map(([method, spec]): [string, MethodSpec] => [method, { ...spec, until: STATELESS_VERSION }]),
]);

/** The method table of a protocol version. */
export function methodsFor(version: string | undefined): ReadonlyMap<string, MethodSpec> {
  return version !== undefined && version >= STATELESS_VERSION ? METHODS_2026 : METHODS;
}
