/** Every check of the suite. The runner orders them by section; within a section, as listed here. */
import { authorizationChecks } from './authorization.js';
import type { Check } from './check.js';
import { clientRequestsChecks } from './client-requests.js';
import { contentFormatsChecks } from './content-formats.js';
import { elicitationSecretsChecks } from './elicitation-secrets.js';
import { elicitationUrlSecretsChecks } from './elicitation-url-secrets.js';
import { httpChecks } from './http.js';
import { httpStreamChecks } from './http-streams.js';
import { jsonrpcChecks } from './jsonrpc.js';
import { lifecycleChecks } from './lifecycle.js';
import { loggingSecretsChecks } from './logging-secrets.js';
import { messagesChecks } from './messages.js';
import { modernChecks } from './modern/index.js';
import { promptsChecks } from './prompts.js';
import { resourcesChecks } from './resources.js';
import { securityChecks } from './security.js';
import { stdioChecks } from './stdio.js';
import { taskIdEntropyChecks } from './task-id-entropy.js';
import { toolsChecks } from './tools.js';
import { moreToolsChecks } from './tools-more.js';
import { traceContextChecks } from './trace-context.js';
import { cancellationChecks } from './utilities-cancellation.js';
import { completionChecks } from './utilities-completion.js';
import { loggingChecks } from './utilities-logging.js';
import { progressChecks } from './utilities-progress.js';
import { tasksChecks } from './utilities-tasks.js';

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
  // The modern era (2026-07-28); each declares `eras: ['modern']`.
  ...modernChecks,
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
