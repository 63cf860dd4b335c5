/**
 * The methods of protocol version 2026-07-28 (stateless Streamable HTTP), with the schemas the
 * official SDK publishes for it: `@modelcontextprotocol/core` (SDK v2), whose zod schemas know
 * `server/discover`, `subscriptions/listen`, the `_meta` a stateless request carries and the
 * `resultType` of a result. Sessions that negotiated an earlier version use methods.ts (SDK v1).
 */
import * as core from '@modelcontextprotocol/core';
import { METHODS, note, req, type MethodSpec, type ZodLike } from './methods.js';

export const STATELESS_VERSION = '2026-07-28';

/** The 2026-07-28 schema of a method: v1's entry (sender, section) with core's schemas. */
function from2026(method: string, schema: ZodLike, result?: ZodLike): MethodSpec {
  const v1 = METHODS.get(method);
  if (!v1) throw new Error(`methods-2026: ${method} is not in methods.ts`);
  return { ...v1, schema, result };
}

export const METHODS_2026: ReadonlyMap<string, MethodSpec> = new Map<string, MethodSpec>([
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
  ['ping', from2026('ping', core.PingRequestSchema, core.EmptyResultSchema)],
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
  ['resources/subscribe', from2026('resources/subscribe', core.SubscribeRequestSchema, core.EmptyResultSchema)],
  ['resources/unsubscribe', from2026('resources/unsubscribe', core.UnsubscribeRequestSchema, core.EmptyResultSchema)],
  ['logging/setLevel', from2026('logging/setLevel', core.SetLevelRequestSchema, core.EmptyResultSchema)],
  ['completion/complete', from2026('completion/complete', core.CompleteRequestSchema, core.CompleteResultSchema)],
  ['tasks/get', from2026('tasks/get', core.GetTaskRequestSchema, core.GetTaskResultSchema)],
  ['tasks/result', from2026('tasks/result', core.GetTaskPayloadRequestSchema)],
  ['tasks/list', from2026('tasks/list', core.ListTasksRequestSchema, core.ListTasksResultSchema)],
  ['tasks/cancel', from2026('tasks/cancel', core.CancelTaskRequestSchema, core.CancelTaskResultSchema)],
  ['notifications/cancelled', from2026('notifications/cancelled', core.CancelledNotificationSchema)],
  ['notifications/progress', from2026('notifications/progress', core.ProgressNotificationSchema)],
  ['notifications/message', from2026('notifications/message', core.LoggingMessageNotificationSchema)],
  ['notifications/resources/updated', from2026('notifications/resources/updated', core.ResourceUpdatedNotificationSchema)],
  ['notifications/resources/list_changed', from2026('notifications/resources/list_changed', core.ResourceListChangedNotificationSchema)],
  ['notifications/tools/list_changed', from2026('notifications/tools/list_changed', core.ToolListChangedNotificationSchema)],
  ['notifications/prompts/list_changed', from2026('notifications/prompts/list_changed', core.PromptListChangedNotificationSchema)],
  ['notifications/tasks/status', from2026('notifications/tasks/status', core.TaskStatusNotificationSchema)],
  // Server→client requests travel inside input_required results in 2026-07-28 (their shapes: elicitation/create, sampling/createMessage, roots/list).
  ['elicitation/create', from2026('elicitation/create', core.ElicitRequestSchema, core.ElicitResultSchema)],
  ['sampling/createMessage', from2026('sampling/createMessage', core.CreateMessageRequestSchema, core.CreateMessageResultSchema)],
  ['roots/list', from2026('roots/list', core.ListRootsRequestSchema, core.ListRootsResultSchema)],
]);

/** The method table of a protocol version. */
export function methodsFor(version: string | undefined): ReadonlyMap<string, MethodSpec> {
  return version !== undefined && version >= STATELESS_VERSION ? METHODS_2026 : METHODS;
}
