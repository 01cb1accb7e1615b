/**
 * spec-breaker defects of 2025-11-25 tasks (basic/utilities/tasks): each breaks one requirement that
 * one check of conformance/server/utilities/tasks.ts judges, and nothing else. Most rewrite a response
 * on its way out; the rest switch a behaviour of the task store (`tasks` in SessionHooks).
 */
import { ErrorCode, isObject, type JsonRpcRequest } from '../protocol.js';
import type { SessionHooks } from '../session.js';

type Response = Record<string, unknown>;
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** Rewrites the responses to one method; everything else is left alone. */
function rewrite(method: string, change: (response: Response, request: JsonRpcRequest) => Response) {
  return (request: JsonRpcRequest, response: Response): string =>
    JSON.stringify(request.method === method ? change(structuredClone(response), request) : response);
}

function withResult(response: Response, change: (result: Response) => void): Response {
  if (isObject(response.result)) change(response.result);
  return response;
}

/** How often tasks/get has answered for a completed task, by task id (task-reopens). */
const completedReads = new Map<string, number>();

export const TASK_DEFECTS = {
  /** Tools declare task support, but the tasks capability is missing. */
  'tasks-no-capability': {
    encodeResponse: rewrite('initialize', (r) =>
      withResult(r, (result) => {
        if (isObject(result.capabilities)) delete result.capabilities.tasks;
      }),
    ),
  },
  /**
   * The tasks capability without `requests` (tasks/list and tasks/cancel only) and no `execution` on
   * tools, yet a tools/call with task params becomes a task (a CreateTaskResult) instead of an ordinary
   * call. A server that declares tasks is bound to process undeclared request types normally.
   */
  'tasks-undeclared': {
    encodeResponse(request, response) {
      const clone = structuredClone(response);
      if (request.method === 'initialize')
        withResult(clone, (result) => {
          if (isObject(result.capabilities) && isObject(result.capabilities.tasks))
            delete result.capabilities.tasks.requests;
        });
      if (request.method === 'tools/list')
        withResult(clone, (result) => {
          for (const tool of Array.isArray(result.tools) ? result.tools : [])
            if (isObject(tool)) delete tool.execution;
        });
      return JSON.stringify(clone);
    },
  },
  /** tasks/get, tasks/result and tasks/cancel of an unknown task id get -32603 instead of -32602. */
  'tasks-unknown-id-32603': {
    encodeResponse(request, response) {
      const error = response.error;
      if (!request.method.startsWith('tasks/') || !isObject(error) || error.code !== ErrorCode.InvalidParams)
        return JSON.stringify(response);
      if (!String(error.message).includes('Task not found')) return JSON.stringify(response);
      return JSON.stringify({ ...response, error: { ...error, code: ErrorCode.InternalError } });
    },
  },
  /** echo is listed with taskSupport "required", but a call without a task is still served. */
  'tasks-required-served-plain': {
    encodeResponse: rewrite('tools/list', (r) =>
      withResult(r, (result) => {
        for (const tool of Array.isArray(result.tools) ? result.tools : [])
          if (isObject(tool) && tool.name === 'echo') tool.execution = { taskSupport: 'required' };
      }),
    ),
  },
  /** A task-augmented call is answered with the task's fields at the top level, not as `{task}`. */
  'tasks-flat-create-result': {
    encodeResponse: rewrite('tools/call', (r) =>
      withResult(r, (result) => {
        if (!isObject(result.task)) return;
        const task = result.task;
        delete result.task;
        Object.assign(result, task);
      }),
    ),
  },
  /** Task ids are `task-<tool name>`: a second task of a tool reuses the first one's id. */
  'tasks-id-per-tool': { tasks: { idPerTool: true } },
  /** Task ids come from a counter (task-1, task-2, …), guessable by anyone. */
  'tasks-sequential-ids': { tasks: { sequentialIds: true } },
  /** The CreateTaskResult says the new task is `input_required`, though it is working. */
  'tasks-begin-input-required': {
    encodeResponse: rewrite('tools/call', (r) =>
      withResult(r, (result) => {
        if (isObject(result.task)) result.task.status = 'input_required';
      }),
    ),
  },
  /** A completed task is reported `working` again from the second tasks/get that finds it completed. */
  'tasks-reopens': {
    encodeResponse: rewrite('tasks/get', (r) =>
      withResult(r, (result) => {
        if (result.status !== 'completed' || typeof result.taskId !== 'string') return;
        const reads = (completedReads.get(result.taskId) ?? 0) + 1;
        completedReads.set(result.taskId, reads);
        if (reads >= 2) result.status = 'working';
      }),
    ),
  },
  /** tasks/get gives createdAt as milliseconds since 1970, not an ISO 8601 timestamp. */
  'tasks-epoch-created-at': {
    encodeResponse: rewrite('tasks/get', (r) =>
      withResult(r, (result) => {
        if (typeof result.createdAt === 'string') result.createdAt = Date.parse(result.createdAt);
      }),
    ),
  },
  /** tasks/get leaves out ttl. */
  'tasks-get-no-ttl': {
    encodeResponse: rewrite('tasks/get', (r) =>
      withResult(r, (result) => {
        delete result.ttl;
      }),
    ),
  },
  /** tasks/result of a task still running answers at once with -32602 instead of waiting. */
  'tasks-result-no-wait': { tasks: { resultWithoutWaiting: true } },
  /** Tasks never finish: tasks/result waits for ever (the suite must give up after its step). */
  'tasks-never-finish': { tasks: { neverFinish: true } },
  /** tasks/result of a task whose tool reported isError answers -32603 instead of that result. */
  'tasks-result-error-for-is-error': {
    encodeResponse: rewrite('tasks/result', (r) => {
      if (!isObject(r.result) || r.result.isError !== true) return r;
      return {
        jsonrpc: '2.0',
        id: r.id,
        error: { code: ErrorCode.InternalError, message: 'the tool failed' },
      };
    }),
  },
  /** tasks/result leaves out the related-task `_meta`. */
  'tasks-result-no-related-meta': {
    encodeResponse: rewrite('tasks/result', (r) =>
      withResult(r, (result) => {
        if (isObject(result._meta)) delete result._meta[RELATED_TASK];
      }),
    ),
  },
  /** tasks/get with related-task `_meta` looks up the task named there instead of its taskId param. */
  'tasks-related-meta-wins': {
    beforeRequest(request) {
      const meta = request.params?._meta;
      const related = isObject(meta) ? meta[RELATED_TASK] : undefined;
      if (request.method === 'tasks/get' && isObject(related) && typeof related.taskId === 'string')
        (request.params as Record<string, unknown>).taskId = related.taskId;
    },
  },
  /** tasks/list leaves out the newest task. */
  'tasks-list-incomplete': {
    encodeResponse: rewrite('tasks/list', (r) =>
      withResult(r, (result) => {
        if (Array.isArray(result.tasks) && result.tasks.length > 0) result.tasks.pop();
      }),
    ),
  },
  /** tasks/cancel of a task already terminal succeeds (the task comes back unchanged). */
  'tasks-cancel-terminal-accepted': { tasks: { cancelTerminal: true } },
  /** tasks/cancel answers with the task still working; it becomes cancelled just after. */
  'tasks-cancel-after-response': { tasks: { cancelAfterResponse: true } },
  /** A cancelled task whose work goes on becomes completed when the work ends. */
  'tasks-cancel-not-final': { tasks: { cancelNotFinal: true } },
  /** Not a MUST: a task-augmented call of `add` (no task support) is served as an ordinary call. */
  'tasks-forbidden-served': {
    beforeRequest(request) {
      if (request.method === 'tools/call' && request.params?.name === 'add') delete request.params.task;
    },
  },
  /** Not a MUST: tasks/get of a failed task has no statusMessage. */
  'tasks-failed-no-message': {
    encodeResponse: rewrite('tasks/get', (r) =>
      withResult(r, (result) => {
        if (result.status === 'failed') delete result.statusMessage;
      }),
    ),
  },
  /** One more progress notification with the task's token once the task is terminal. */
  'tasks-progress-after-end': { tasks: { progressAfterTerminal: true } },
} satisfies Record<string, SessionHooks>;
