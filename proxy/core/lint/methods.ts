/**
 * The MCP methods the linter knows: who sends each, since which protocol version, its schema and
 * its result's schema (the official SDK's published zod schemas, `@modelcontextprotocol/sdk/types.js`),
 * and the spec section it is described in. A method not here is unknown: never a violation.
 */
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  CancelTaskRequestSchema,
  CancelTaskResultSchema,
  CancelledNotificationSchema,
  CompleteRequestSchema,
  CompleteResultSchema,
  CreateMessageRequestSchema,
  CreateMessageResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ElicitationCompleteNotificationSchema,
  EmptyResultSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  GetTaskResultSchema,
  InitializeRequestSchema,
  InitializeResultSchema,
  InitializedNotificationSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListRootsRequestSchema,
  ListRootsResultSchema,
  ListTasksRequestSchema,
  ListTasksResultSchema,
  ListToolsRequestSchema,
  ListToolsResultSchema,
  LoggingMessageNotificationSchema,
  PingRequestSchema,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  RootsListChangedNotificationSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  TaskStatusNotificationSchema,
  ToolListChangedNotificationSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** What the linter needs of a zod schema (v4, as the SDK builds them). */
export interface ZodLike {
  safeParse(value: unknown): { success: boolean; error?: { issues: readonly ZodIssueLike[] } };
}
export interface ZodIssueLike {
  code: string;
  path: readonly PropertyKey[];
  message: string;
  expected?: string;
  values?: readonly unknown[];
  errors?: readonly (readonly ZodIssueLike[])[];
}

export type Sender = 'client' | 'server' | 'both';

export interface MethodSpec {
  kind: 'request' | 'notification';
  sender: Sender;
  /** The first protocol version that has it. */
  since: string;
  /** The first protocol version that no longer has it (2026-07-28 dropped several). */
  until?: string;
  /** Spec section, without the version. */
  section: string;
  schema: ZodLike;
  result?: ZodLike;
}

const V0 = '2024-11-05';
const TASKS = '2025-11-25';

export const req = (sender: Sender, section: string, schema: ZodLike, result: ZodLike | undefined, since = V0): MethodSpec => ({
  kind: 'request',
  sender,
  since,
  section,
  schema,
  result,
});
export const note = (sender: Sender, section: string, schema: ZodLike, since = V0): MethodSpec => ({
  kind: 'notification',
  sender,
  since,
  section,
  schema,
});

export const METHODS: ReadonlyMap<string, MethodSpec> = new Map<string, MethodSpec>([
  ['initialize', req('client', 'basic/lifecycle#initialization', InitializeRequestSchema, InitializeResultSchema)],
  ['ping', req('both', 'basic/utilities/ping', PingRequestSchema, EmptyResultSchema)],
  ['tools/list', req('client', 'server/tools#listing-tools', ListToolsRequestSchema, ListToolsResultSchema)],
  ['tools/call', req('client', 'server/tools#calling-tools', CallToolRequestSchema, CallToolResultSchema)],
  ['prompts/list', req('client', 'server/prompts#listing-prompts', ListPromptsRequestSchema, ListPromptsResultSchema)],
  ['prompts/get', req('client', 'server/prompts#getting-a-prompt', GetPromptRequestSchema, GetPromptResultSchema)],
  ['resources/list', req('client', 'server/resources#listing-resources', ListResourcesRequestSchema, ListResourcesResultSchema)],
  [
    'resources/templates/list',
    req('client', 'server/resources#resource-templates', ListResourceTemplatesRequestSchema, ListResourceTemplatesResultSchema),
  ],
  ['resources/read', req('client', 'server/resources#reading-resources', ReadResourceRequestSchema, ReadResourceResultSchema)],
  ['resources/subscribe', req('client', 'server/resources#subscriptions', SubscribeRequestSchema, EmptyResultSchema)],
  ['resources/unsubscribe', req('client', 'server/resources#subscriptions', UnsubscribeRequestSchema, EmptyResultSchema)],
  ['logging/setLevel', req('client', 'server/utilities/logging#setting-log-level', SetLevelRequestSchema, EmptyResultSchema)],
  ['completion/complete', req('client', 'server/utilities/completion#requesting-completions', CompleteRequestSchema, CompleteResultSchema)],
  ['sampling/createMessage', req('server', 'client/sampling#creating-messages', CreateMessageRequestSchema, CreateMessageResultSchema)],
  [
    'elicitation/create',
    req('server', 'client/elicitation#creating-elicitation-requests', ElicitRequestSchema, ElicitResultSchema, '2025-06-18'),
  ],
  ['roots/list', req('server', 'client/roots#listing-roots', ListRootsRequestSchema, ListRootsResultSchema)],
  ['tasks/get', req('both', 'basic/utilities/tasks', GetTaskRequestSchema, GetTaskResultSchema, TASKS)],
  // tasks/result answers with the underlying request's result: only the request is checked.
  ['tasks/result', req('both', 'basic/utilities/tasks', GetTaskPayloadRequestSchema, undefined, TASKS)],
  ['tasks/list', req('both', 'basic/utilities/tasks', ListTasksRequestSchema, ListTasksResultSchema, TASKS)],
  ['tasks/cancel', req('both', 'basic/utilities/tasks', CancelTaskRequestSchema, CancelTaskResultSchema, TASKS)],
  ['notifications/initialized', note('client', 'basic/lifecycle#initialization', InitializedNotificationSchema)],
  ['notifications/cancelled', note('both', 'basic/utilities/cancellation', CancelledNotificationSchema)],
  ['notifications/progress', note('both', 'basic/utilities/progress', ProgressNotificationSchema)],
  ['notifications/roots/list_changed', note('client', 'client/roots#root-list-changes', RootsListChangedNotificationSchema)],
  ['notifications/message', note('server', 'server/utilities/logging#log-message-notifications', LoggingMessageNotificationSchema)],
  ['notifications/resources/updated', note('server', 'server/resources#subscriptions', ResourceUpdatedNotificationSchema)],
  [
    'notifications/resources/list_changed',
    note('server', 'server/resources#list-changed-notification', ResourceListChangedNotificationSchema),
  ],
  ['notifications/tools/list_changed', note('server', 'server/tools#list-changed-notification', ToolListChangedNotificationSchema)],
  ['notifications/prompts/list_changed', note('server', 'server/prompts#list-changed-notification', PromptListChangedNotificationSchema)],
  ['notifications/elicitation/complete', note('server', 'client/elicitation#url-mode', ElicitationCompleteNotificationSchema, TASKS)],
  ['notifications/tasks/status', note('both', 'basic/utilities/tasks', TaskStatusNotificationSchema, TASKS)],
]);
