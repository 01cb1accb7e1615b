/**
 * Every check of the suite. The runner orders them by section; within a section, as listed here.
 *
 * The checks live where the specification defines their rule: `basic/` (lifecycle, versioning, JSON-RPC
 * messages, `_meta`, multi round-trip requests), `transports/` (stdio, Streamable HTTP),
 * `server-features/` (tools, resources, prompts), `utilities/` (logging, completion, pagination,
 * progress, cancellation, tasks, caching, subscriptions), `client-features/` (what the server asks of
 * the client: elicitation, sampling, roots) and `authorization/`. Each check declares the eras it
 * judges (`eras`); a file may hold checks of either era. The list below keeps the order reports have
 * always had, so a report of the same server reads the same.
 */
import { authorizationChecks } from './authorization/authorization.js';
import { discoverChecks } from './basic/discover.js';
import { extensionChecks } from './basic/extensions.js';
import { jsonrpcChecks } from './basic/jsonrpc.js';
import { lifecycleChecks } from './basic/lifecycle.js';
import { messagesChecks } from './basic/messages.js';
import { mrtrChecks } from './basic/mrtr.js';
import { baseChecks } from './basic/per-request-meta.js';
import { runJudgedChecks } from './basic/run-judged.js';
import { statelessnessChecks } from './basic/statelessness.js';
import { traceContextChecks } from './basic/trace-context.js';
import { versioningChecks } from './basic/versioning.js';
import type { Check } from './check.js';
import { clientRequestsChecks } from './client-features/client-requests.js';
import { elicitationSecretsChecks } from './client-features/elicitation-secrets.js';
import { elicitationUrlSecretsChecks } from './client-features/elicitation-url-secrets.js';
import { inputRequestsChecks } from './client-features/input-requests.js';
import { contentFormatsChecks } from './server-features/content-formats.js';
import { modernContentFormatsChecks } from './server-features/content-formats-modern.js';
import { promptsChecks } from './server-features/prompts.js';
import { resourcesChecks } from './server-features/resources.js';
import { modernResourcesChecks } from './server-features/resources-modern.js';
import { stableSetChecks } from './server-features/stable-sets.js';
import { toolHeaderChecks } from './server-features/tool-headers.js';
import { securityChecks } from './server-features/tool-security.js';
import { toolsChecks } from './server-features/tools.js';
import { moreToolsChecks } from './server-features/tools-more.js';
import { stdioChecks } from './transports/stdio.js';
import { httpChecks } from './transports/streamable-http.js';
import { modernHttpHeaderChecks } from './transports/streamable-http-headers.js';
import { modernHttpChecks } from './transports/streamable-http-modern.js';
import { httpStreamChecks } from './transports/streamable-http-streams.js';
import { cachingChecks } from './utilities/caching.js';
import { cachingPagesChecks } from './utilities/caching-pages.js';
import { cancellationChecks } from './utilities/cancellation.js';
import { completionChecks } from './utilities/completion.js';
import { listenScopeChecks } from './utilities/listen-scope.js';
import { loggingChecks } from './utilities/logging.js';
import { modernLoggingChecks } from './utilities/logging-modern.js';
import { loggingSecretsChecks } from './utilities/logging-secrets.js';
import { progressChecks } from './utilities/progress.js';
import { subscriptionsChecks } from './utilities/subscriptions.js';
import { taskIdEntropyChecks } from './utilities/task-id-entropy.js';
import { tasksChecks } from './utilities/tasks.js';

export const ALL_CHECKS: readonly Check[] = [
  ...lifecycleChecks,
  ...jsonrpcChecks,
  ...stdioChecks,
  ...httpChecks,
  ...httpStreamChecks,
  ...authorizationChecks,
  ...toolsChecks,
  ...resourcesChecks,
  ...promptsChecks,
  ...securityChecks,
  ...moreToolsChecks,
  ...messagesChecks,
  ...cancellationChecks,
  ...progressChecks,
  ...loggingChecks,
  ...completionChecks,
  // Checks written for the modern era (2026-07-28), each declaring `eras: MODERN_ONLY`.
  ...discoverChecks,
  ...versioningChecks,
  ...baseChecks,
  ...modernHttpChecks,
  ...modernResourcesChecks,
  ...stableSetChecks,
  ...mrtrChecks,
  ...subscriptionsChecks,
  ...cachingChecks,
  ...modernLoggingChecks,
  ...modernContentFormatsChecks,
  ...inputRequestsChecks,
  // Requirements without a legacy counterpart (conformance for both generations, #16).
  ...toolHeaderChecks,
  ...extensionChecks,
  ...statelessnessChecks,
  ...runJudgedChecks,
  ...modernHttpHeaderChecks,
  ...cachingPagesChecks,
  ...listenScopeChecks,
  // Encoded content and server-to-client request shapes (conformance/server/shapes), legacy era.
  ...contentFormatsChecks,
  ...clientRequestsChecks,
  // Secrets asked for in form-mode elicitation, both eras (heuristic on field names).
  ...elicitationSecretsChecks,
  // Credentials in URL-mode elicitation URLs (own requests and -32042 errors), 2025-11-25.
  ...elicitationUrlSecretsChecks,
  // Credentials or secrets in log messages, both eras (heuristic on credential formats and names).
  ...loggingSecretsChecks,
  // W3C trace context in the _meta of server messages, modern era.
  ...traceContextChecks,
  ...tasksChecks,
  // Guessable task ids (counters, clocks) in runs without credentials, 2025-11-25.
  ...taskIdEntropyChecks,
];
