/**
 * The MCP message types the code is typed against, from the generated method map (`npm run gen`).
 *
 * Why one version's types for a client that speaks several: every version is validated against its own
 * generated validators when a message arrives, and the newest version's shapes are a superset of the
 * older ones for everything the code reads (later versions only added optional members such as `title`,
 * `icons`, `structuredContent`). So code typed against the newest version handles the older messages too,
 * and a new protocol version is a change of the one import below plus what its differences demand.
 */
import type { NotificationTypes, RequestTypes } from '../generated/mcp/2025-11-25/methods.js';
import type * as T from '../generated/mcp/2025-11-25/types.js';
import type {
  InputRequestTypes,
  NotificationTypes as ModernNotificationTypes,
  RequestTypes as ModernRequestTypes,
} from '../generated/mcp/2026-07-28/methods.js';

export type {
  CallToolResult,
  ClientCapabilities,
  ContentBlock,
  EmbeddedResource,
  GetPromptResult,
  Implementation,
  InitializeResult,
  ListToolsResult,
  ProgressNotificationParams,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ServerCapabilities,
  TextContent,
  Tool,
} from '../generated/mcp/2025-11-25/types.js';

type Side = 'client' | 'server';

/** The methods of a map that `side` sends (a method both sides send belongs to both). */
type SentBy<Map, S extends Side> = {
  [M in keyof Map as Map[M] extends { sender: S | 'both' } ? M : never]: Map[M];
};

/** Requests a client sends to a server: method -> `{ params, result }`. */
export type ClientRequests = SentBy<RequestTypes, 'client'>;
/** Requests a server sends to a client: method -> `{ params, result }`. */
export type ServerRequests = SentBy<RequestTypes, 'server'>;
/** Notifications a client sends to a server: method -> `{ params }`. */
export type ClientNotifications = SentBy<NotificationTypes, 'client'>;
/** Notifications a server sends to a client: method -> `{ params }`. */
export type ServerNotifications = SentBy<NotificationTypes, 'server'>;

/** The params and result types of a request method, e.g. `ResultOf<'tools/call'>`. */
export type ParamsOf<M extends keyof RequestTypes> = RequestTypes[M]['params'];
export type ResultOf<M extends keyof RequestTypes> = RequestTypes[M]['result'];

/** A content block as it is handed on: one of the known kinds, or an unknown kind a newer server sent. */
export type AnyContentBlock = T.ContentBlock | { type: string; [key: string]: unknown };

/*
 * The modern era (2026-07-28): a different message set, not a superset of the legacy one (no initialize,
 * params always carry `_meta`, results carry `resultType`), so it has its own maps and type namespace.
 * `import type * as Modern from '.../2026-07-28/types.js'` for its definitions (Modern.DiscoverResult, ...).
 */

/** Requests a client sends to a modern server: method -> `{ params, result }` (result may be an InputRequiredResult). */
export type ModernClientRequests = SentBy<ModernRequestTypes, 'client'>;
/** Requests a modern server sends: none (it asks for input with an InputRequiredResult instead). */
export type ModernServerRequests = SentBy<ModernRequestTypes, 'server'>;
/** Notifications a client sends to a modern server (only `notifications/cancelled`). */
export type ModernClientNotifications = SentBy<ModernNotificationTypes, 'client'>;
/** Notifications a modern server sends: progress, log messages, and the subscriptions/listen stream's. */
export type ModernServerNotifications = SentBy<ModernNotificationTypes, 'server'>;
/** What a modern server may ask of the client inside an InputRequiredResult: method -> `{ params, result }`. */
export type ModernInputRequests = InputRequestTypes;

export type ModernParamsOf<M extends keyof ModernRequestTypes> = ModernRequestTypes[M]['params'];
export type ModernResultOf<M extends keyof ModernRequestTypes> = ModernRequestTypes[M]['result'];
