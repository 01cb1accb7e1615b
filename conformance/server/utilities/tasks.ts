/**
 * Tasks (MCP 2025-11-25 basic/utilities/tasks, and the task sentences of basic/utilities/progress).
 *
 * Legacy era, 2025-11-25 only: tasks were introduced there, and 2026-07-28 moved them out of the core
 * protocol into the `io.modelcontextprotocol/tasks` extension (2026-07-28 changelog, item 6: no
 * `tasks/result`, no `tasks/list`), so no modern check exists here.
 *
 * What needs no tool call runs for every server: the capability against the tools' `execution.taskSupport`,
 * and the protocol errors for unknown task ids and cursors (servers that declare tasks). A server that
 * declares tasks but not for tools/call processing a task-augmented tools/call normally needs a tool call. Creating a task runs a tool, which may have side effects, so the rest
 * needs --call-tools, as every other tool call of the suite does. It runs on a session of its own: up to
 * three slow calls (a duration-like argument set to about 1.5 s) and four quick ones of tools that declare
 * `optional` or `required` task support, each polled with tasks/get and read with tasks/result, then a
 * cancelled one. Every wait is one step (`--timeout`) at most, so a task that never ends is a failure
 * after the step, never a hang.
 */
import { errorText } from '../../../src/util/error-text.js';
import {
  BOTH_TRANSPORTS,
  brief,
  type Check,
  CouldNotTell,
  fail,
  LEGACY_ONLY,
  NotApplicable,
  pass,
} from '../check.js';
import { resultIssues } from '../helpers/helpers.js';
import type { CheckContext } from '../run/context.js';
import { isObject, type JsonObject, type RequestId, type Session } from '../run/session.js';
import { listedTools, requireCallTools, toolListing, validArguments } from '../server-features/tools.js';
import { SLOW_MS, slowArguments } from './cancellation.js';

const TASKS = 'MCP 2025-11-25 basic/utilities/tasks';
const PROGRESS = 'MCP 2025-11-25 basic/utilities/progress';
const base = {
  section: 'tasks',
  versions: ['2025-11-25'],
  transports: BOTH_TRANSPORTS,
  eras: LEGACY_ONLY,
} as const;

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
/** Valid next statuses (the spec's "valid paths"); a status may also stay as it is. */
const NEXT: Record<string, readonly string[]> = {
  working: ['input_required', 'completed', 'failed', 'cancelled'],
  input_required: ['working', 'completed', 'failed', 'cancelled'],
};
const UNKNOWN_TASK = 'furfly-conformance-no-such-task';
const POLL_MS = 100;
const TTL_MS = 60_000;
/** RFC 3339 date-time (the profile of ISO 8601 the specification links). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

type Support = 'optional' | 'required';

function taskSupport(tool: JsonObject): string | undefined {
  const execution = tool.execution;
  return isObject(execution) && typeof execution.taskSupport === 'string' ? execution.taskSupport : undefined;
}

/** The tasks capability, or NotApplicable: only a server that declares it is judged on task behaviour. */
function requireTasks(ctx: CheckContext): JsonObject {
  return ctx.requireCapability('tasks');
}

function toolCallTasksDeclared(ctx: CheckContext): boolean {
  const tasks = ctx.capabilities.tasks;
  const requests = isObject(tasks) ? tasks.requests : undefined;
  return isObject(requests) && isObject(requests.tools) && isObject(requests.tools.call);
}

function errorCodeOf(message: JsonObject | undefined): unknown {
  return message && isObject(message.error) ? message.error.code : undefined;
}

function resultOf(message: JsonObject | undefined): JsonObject | null {
  return message && isObject(message.result) ? message.result : null;
}

/** A task object the server returned for one of our tasks, with where it came from. */
interface Seen {
  via: string;
  task: JsonObject;
}

interface TaskRun {
  tool: string;
  support: Support;
  args: JsonObject;
  kind: 'quick' | 'slow' | 'cancel';
  requestId: RequestId;
  token: string;
  create?: JsonObject;
  createError?: string;
  taskId?: string;
  seen: Seen[];
  /** The tool called without a task (optional support only), for comparison with tasks/result. */
  direct?: JsonObject;
  result?: JsonObject;
  resultError?: string;
  /** How many task observations (`seen`) had come in when tasks/result answered. */
  seenBeforeResult?: number;
  /** The tasks/get sent right after tasks/result answered. */
  afterResult?: JsonObject;
  cancel?: JsonObject;
  cancelError?: string;
  /** tasks/get right after tasks/cancel, and again after the work would have finished. */
  afterCancel: JsonObject[];
}

interface Scenario {
  session: Session;
  runs: TaskRun[];
  /** tasks/get of one task with the related-task meta of another. */
  truth?: { asked: string; named: string; reply?: JsonObject; error?: string };
  /** tasks/cancel of a task already terminal. */
  cancelTerminal?: { taskId: string; status: string; reply?: JsonObject; error?: string };
  /** tasks/list, every page (undefined when tasks.list is not declared). */
  list?: { ids: string[]; tasks: JsonObject[]; error?: string };
  /** A task-augmented call of a tool without task support. */
  forbidden?: { tool: string; reply?: JsonObject; error?: string };
}

const created = (runs: readonly TaskRun[]): TaskRun[] => runs.filter((run) => run.taskId !== undefined);

function recordTask(run: TaskRun, via: string, task: unknown): void {
  if (isObject(task)) run.seen.push({ via, task });
}

async function ask(session: Session, method: string, params: JsonObject, timeoutMs?: number) {
  try {
    return {
      message: (await session.requestUntyped(method, params, timeoutMs ? { timeoutMs } : {})).message,
    };
  } catch (error) {
    return { error: errorText(error) };
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function createTask(session: Session, run: TaskRun): Promise<void> {
  const params = {
    name: run.tool,
    arguments: run.args,
    task: { ttl: TTL_MS },
    _meta: { progressToken: run.token },
  };
  try {
    run.create = (await session.requestUntyped('tools/call', params, { id: run.requestId })).message;
  } catch (error) {
    run.createError = errorText(error);
    return;
  }
  const result = resultOf(run.create);
  const task = result && isObject(result.task) ? result.task : null;
  if (task && typeof task.taskId === 'string') {
    run.taskId = task.taskId;
    recordTask(run, 'CreateTaskResult', task);
  }
}

async function getTask(session: Session, run: TaskRun, via: string): Promise<JsonObject | undefined> {
  const { message } = await ask(session, 'tasks/get', { taskId: run.taskId });
  const result = resultOf(message);
  if (result) recordTask(run, via, result);
  return message;
}

/** tasks/result right away, tasks/get polled beside it until it answers (one step at most). */
async function awaitResult(ctx: CheckContext, session: Session, run: TaskRun, poll: boolean): Promise<void> {
  let answered = false;
  const result = ask(session, 'tasks/result', { taskId: run.taskId }, ctx.timeoutMs).then((outcome) => {
    answered = true;
    run.seenBeforeResult = run.seen.length;
    return outcome;
  });
  if (poll) {
    const deadline = performance.now() + ctx.timeoutMs;
    while (!answered && performance.now() < deadline) {
      await getTask(session, run, 'tasks/get');
      await sleep(POLL_MS);
    }
  }
  const outcome = await result;
  if (outcome.message) run.result = outcome.message;
  else run.resultError = outcome.error;
  run.afterResult = await getTask(session, run, 'tasks/get after tasks/result');
}

function scenario(ctx: CheckContext): Promise<Scenario> {
  return ctx.memo('tasks.scenario', async () => {
    requireCallTools(ctx);
    const tasks = requireTasks(ctx);
    if (!toolCallTasksDeclared(ctx))
      throw new NotApplicable('the server does not declare tasks.requests.tools.call');
    const tools = (await listedTools(ctx)).filter((tool) => {
      const support = taskSupport(tool);
      return support === 'optional' || support === 'required';
    });
    if (tools.length === 0)
      throw new NotApplicable('no listed tool declares execution.taskSupport "optional" or "required"');
    const { session } = await ctx.openInitialized('suite');
    const runs: TaskRun[] = [];
    const newRun = (tool: JsonObject, args: JsonObject, kind: TaskRun['kind']): TaskRun => {
      const requestId = `furfly-task-call-${runs.length + 1}`;
      const run: TaskRun = {
        tool: String(tool.name),
        support: taskSupport(tool) as Support,
        args,
        kind,
        requestId,
        token: `furfly-task-progress-${runs.length + 1}`,
        seen: [],
        afterCancel: [],
      };
      runs.push(run);
      return run;
    };
    // Tools with a duration-like argument run slowly on purpose (never with a random duration).
    const slowable = tools
      .map((tool) => ({ tool, args: slowArguments(ctx, tool) }))
      .filter((entry): entry is { tool: JsonObject; args: JsonObject } => entry.args !== null);
    const slow = slowable.slice(0, 3);
    const quick = tools
      .filter((tool) => !slowable.some((entry) => entry.tool === tool))
      .map((tool) => ({ tool, args: validArguments(tool.inputSchema, ctx.version) }))
      .filter((entry): entry is { tool: JsonObject; args: JsonObject } => isObject(entry.args))
      .slice(0, 4);

    // Slow tasks, side by side: tasks/result must wait while tasks/get shows them working.
    await Promise.all(
      slow.map(async ({ tool, args }) => {
        const run = newRun(tool, args, 'slow');
        await createTask(session, run);
        if (run.taskId) await awaitResult(ctx, session, run, true);
      }),
    );
    // Quick tasks, each also called without a task when that is allowed, to compare the results.
    for (const { tool, args } of quick) {
      const run = newRun(tool, args, 'quick');
      if (run.support === 'optional') {
        const direct = await ask(session, 'tools/call', { name: run.tool, arguments: args });
        if (direct.message) run.direct = direct.message;
      }
      await createTask(session, run);
      if (run.taskId) await awaitResult(ctx, session, run, false);
    }

    const result: Scenario = { session, runs };
    // A tool without task support called as a task (one without a duration-like argument, if any).
    const plain = (await listedTools(ctx))
      .filter((tool) => {
        const support = taskSupport(tool);
        return (support === undefined || support === 'forbidden') && slowArguments(ctx, tool) === null;
      })
      .map((tool) => ({ tool, args: validArguments(tool.inputSchema, ctx.version) }))
      .find((entry) => isObject(entry.args));
    if (plain) {
      const reply = await ask(session, 'tools/call', {
        name: plain.tool.name,
        arguments: plain.args as JsonObject,
        task: { ttl: TTL_MS },
      });
      result.forbidden = {
        tool: String(plain.tool.name),
        ...(reply.message ? { reply: reply.message } : { error: reply.error }),
      };
    }
    const done = created(runs);
    const [first, second] = done;
    if (first?.taskId && second?.taskId) {
      const truth: NonNullable<Scenario['truth']> = { asked: second.taskId, named: first.taskId };
      const reply = await ask(session, 'tasks/get', {
        taskId: second.taskId,
        _meta: { [RELATED_TASK]: { taskId: first.taskId } },
      });
      if (reply.message) truth.reply = reply.message;
      else truth.error = reply.error;
      recordTask(second, 'tasks/get with related-task meta', resultOf(truth.reply));
      result.truth = truth;
    }
    if (isObject(tasks.cancel)) {
      const terminal = done.find((run) => {
        const status = resultOf(run.afterResult)?.status;
        return typeof status === 'string' && TERMINAL.has(status);
      });
      if (terminal?.taskId) {
        const status = String(resultOf(terminal.afterResult)?.status);
        const reply = await ask(session, 'tasks/cancel', { taskId: terminal.taskId });
        result.cancelTerminal = reply.message
          ? { taskId: terminal.taskId, status, reply: reply.message }
          : { taskId: terminal.taskId, status, ...(reply.error ? { error: reply.error } : {}) };
      }
    }
    // Terminal must stay terminal: every task once more.
    for (const run of done) await getTask(session, run, 'a later tasks/get');
    if (isObject(tasks.list)) result.list = await listTasks(session);
    // Last, so that its wait does not delay the rest: a slow task cancelled while it runs.
    const cancelTarget = slow[0];
    if (isObject(tasks.cancel) && cancelTarget) {
      const run = newRun(cancelTarget.tool, cancelTarget.args, 'cancel');
      await createTask(session, run);
      if (run.taskId) {
        const reply = await ask(session, 'tasks/cancel', { taskId: run.taskId });
        if (reply.message) run.cancel = reply.message;
        else run.cancelError = reply.error;
        recordTask(run, 'tasks/cancel', resultOf(run.cancel));
        const now = await getTask(session, run, 'tasks/get after tasks/cancel');
        if (now) run.afterCancel.push(now);
        // Long enough for the work to have finished had it not been stopped.
        await sleep(SLOW_MS + 500);
        const later = await getTask(session, run, 'tasks/get after the work would have ended');
        if (later) run.afterCancel.push(later);
      }
    }
    return result;
  });
}

async function listTasks(session: Session): Promise<NonNullable<Scenario['list']>> {
  const list: NonNullable<Scenario['list']> = { ids: [], tasks: [] };
  let cursor: unknown;
  for (let page = 0; page < 100; page++) {
    const reply = await ask(session, 'tasks/list', cursor === undefined ? {} : { cursor });
    const result = resultOf(reply.message);
    if (!result || !Array.isArray(result.tasks)) {
      list.error = reply.error ?? `tasks/list answered ${brief(reply.message)}`;
      return list;
    }
    for (const task of result.tasks)
      if (isObject(task)) {
        list.tasks.push(task);
        if (typeof task.taskId === 'string') list.ids.push(task.taskId);
      }
    if (typeof result.nextCursor !== 'string') return list;
    cursor = result.nextCursor;
  }
  return list;
}

/** The scenario's tasks, or NotApplicable when none could be created (tasks.create-result says why). */
async function createdRuns(ctx: CheckContext): Promise<{ scene: Scenario; runs: TaskRun[] }> {
  const scene = await scenario(ctx);
  const runs = created(scene.runs);
  if (runs.length === 0) throw new NotApplicable('no task was created (see tasks.create-result)');
  return { scene, runs };
}

const describeRun = (run: TaskRun) => `${JSON.stringify(run.tool)} (${run.kind})`;

/** What tasks/result should equal: the result or error of the call without a task, `_meta` aside. */
function comparable(message: JsonObject): unknown {
  if (isObject(message.error)) return { error: message.error.code };
  const { _meta, ...rest } = resultOf(message) ?? {};
  return { result: rest };
}

export const tasksChecks: Check[] = [
  {
    ...base,
    id: 'tasks.capability-declared',
    level: 'MUST',
    title: 'a server whose tools support tasks declares tasks.requests.tools.call',
    requirement:
      'Servers and clients that support task-augmented requests MUST declare a tasks capability during initialization.',
    source: `${TASKS} (Capabilities)`,
    // Judges servers without the capability too: that is exactly what it looks for.
    async run(ctx) {
      const tools = (await listedTools(ctx)).filter((tool) => {
        const support = taskSupport(tool);
        return support === 'optional' || support === 'required';
      });
      if (tools.length === 0)
        throw new NotApplicable(
          'nothing to judge: no tool declares execution.taskSupport optional or required',
        );
      if (!toolCallTasksDeclared(ctx))
        return fail(
          `${tools.length} tool(s) support tasks, but the capability is not declared`,
          'capabilities.tasks.requests.tools.call',
          `capabilities.tasks = ${brief(ctx.capabilities.tasks)}; e.g. ${JSON.stringify(tools[0]?.name)} declares ${brief(tools[0]?.execution)}`,
        );
      return pass(`${tools.length} tool(s) support tasks`);
    },
  },
  {
    ...base,
    id: 'tasks.undeclared-normal',
    level: 'MUST',
    title:
      'a server that supports tasks but not for tools/call processes a task-augmented tools/call normally (--call-tools)',
    requirement:
      'Receivers that do not declare the task capability for a request type MUST process requests of that type normally, ignoring any task-augmentation metadata if present.',
    source: `${TASKS} (Behavior Requirements: "These requirements apply to all parties that support receiving task-augmented requests"; Task Support and Handling)`,
    // Binds only a server that supports receiving task-augmented requests, which it declares with
    // `capabilities.tasks` (Capabilities: such parties MUST declare it). Without it the same page tells the
    // sender it SHOULD NOT create tasks, so the suite asks nothing. The request types that can carry a
    // task are those whose params the schema extends with `task` (TaskAugmentedRequestParams); of a
    // server's, that is tools/call alone. `ping` or `tools/list` never are, so they are not probed.
    async run(ctx) {
      const session = ctx.session();
      if (!isObject(ctx.capabilities.tasks))
        throw new NotApplicable(
          'not bound: the server declares no tasks capability, and this rule applies to "parties that support receiving task-augmented requests" (a client SHOULD NOT create tasks when capabilities.tasks is absent)',
        );
      if (toolCallTasksDeclared(ctx))
        throw new NotApplicable(
          'nothing to judge: tools/call is the only server request type that can carry a task, and the server declares task support for it',
        );
      const tools = isObject(ctx.capabilities.tools) ? await toolListing(ctx) : null;
      if (!tools || tools.error)
        throw new NotApplicable('nothing to judge: no tool listing to pick a tool from');
      requireCallTools(ctx);
      const tool = tools.items.find((candidate) =>
        isObject(validArguments(candidate.inputSchema, ctx.version)),
      );
      if (!tool) throw new NotApplicable('nothing to judge: no tool whose arguments the suite can make up');
      const params = {
        name: tool.name,
        arguments: validArguments(tool.inputSchema, ctx.version) as JsonObject,
        task: { ttl: TTL_MS },
      };
      const reply = await ask(session, 'tools/call', params);
      if (!reply.message)
        throw new CouldNotTell(
          'tools/call with task params got no response',
          'its ordinary response',
          reply.error,
        );
      const result = resultOf(reply.message);
      // An error is a way of processing too (a tool may fail); only a task made of the call is judged.
      if (!result) return pass(`tools/call ${JSON.stringify(tool.name)} answered with an error, not a task`);
      if (isObject(result.task) || !Array.isArray(result.content))
        return fail(
          `tools/call with task params was not processed normally, though the server declares no task support for tools/call`,
          'its ordinary CallToolResult (content), the task params ignored',
          brief(result),
        );
      return pass(`tools/call ${JSON.stringify(tool.name)} with task params got its ordinary result`);
    },
  },
  {
    ...base,
    id: 'tasks.protocol-errors',
    level: 'MUST',
    title: 'an unknown task id and an invalid tasks/list cursor get -32602',
    requirement:
      'Receivers MUST return standard JSON-RPC errors for the following protocol error cases: Invalid or nonexistent taskId in tasks/get, tasks/result, or tasks/cancel: -32602 (Invalid params); Invalid or nonexistent cursor in tasks/list: -32602 (Invalid params).',
    source: `${TASKS} (Error Handling, Protocol Errors)`,
    async run(ctx) {
      const tasks = requireTasks(ctx);
      const session = ctx.session();
      const probes: { method: string; params: JsonObject }[] = [
        { method: 'tasks/get', params: { taskId: UNKNOWN_TASK } },
        { method: 'tasks/result', params: { taskId: UNKNOWN_TASK } },
      ];
      if (isObject(tasks.cancel)) probes.push({ method: 'tasks/cancel', params: { taskId: UNKNOWN_TASK } });
      if (isObject(tasks.list))
        probes.push({ method: 'tasks/list', params: { cursor: 'furfly:not-a-cursor' } });
      for (const { method, params } of probes) {
        const reply = await ask(session, method, params);
        if (!reply.message) return fail(`${method} got no response`, '-32602', reply.error);
        if (errorCodeOf(reply.message) !== -32602)
          return fail(
            `${method} with ${brief(params)} was not refused with -32602`,
            '-32602',
            brief(reply.message),
          );
      }
      return pass(probes.map((probe) => probe.method).join(', '));
    },
  },
  {
    ...base,
    id: 'tasks.required-needs-task',
    level: 'MUST',
    title: 'a tool that requires a task is refused with -32601 when called without one (--call-tools)',
    requirement:
      'If execution.taskSupport is "required", clients MUST invoke the tool as a task. Servers MUST return a -32601 (Method not found) error if a client does not attempt to do so.',
    source: `${TASKS} (Capabilities, Tool-Level Negotiation)`,
    async run(ctx) {
      requireCallTools(ctx);
      requireTasks(ctx);
      if (!toolCallTasksDeclared(ctx))
        throw new NotApplicable('the server does not declare tasks.requests.tools.call');
      const required = (await listedTools(ctx)).filter((tool) => taskSupport(tool) === 'required');
      if (required.length === 0) throw new NotApplicable('nothing to judge: no tool requires a task');
      for (const tool of required.slice(0, 3)) {
        const args = validArguments(tool.inputSchema, ctx.version);
        const reply = await ask(ctx.session(), 'tools/call', {
          name: tool.name,
          arguments: isObject(args) ? args : {},
        });
        if (!reply.message)
          return fail(`${JSON.stringify(tool.name)} got no response`, '-32601', reply.error);
        if (errorCodeOf(reply.message) !== -32601)
          return fail(
            `${JSON.stringify(tool.name)} requires a task but was served without one`,
            '-32601 (Method not found)',
            brief(reply.message),
          );
      }
      return pass(`${required.length} tool(s) require a task`);
    },
  },
  {
    ...base,
    id: 'tasks.create-result',
    level: 'MUST',
    title: 'a task-augmented tool call is answered with a CreateTaskResult (--call-tools)',
    requirement:
      'Receivers that accept a task-augmented request MUST return a CreateTaskResult as the response. Task IDs MUST be a string value.',
    source: `${TASKS} (Behavior Requirements, Result Retrieval; Task ID Requirements)`,
    async run(ctx) {
      const { runs } = await scenario(ctx);
      let accepted = 0;
      for (const run of runs) {
        if (!run.create)
          return fail(
            `the task-augmented call of ${describeRun(run)} got no response`,
            'a CreateTaskResult',
            run.createError,
          );
        const result = resultOf(run.create);
        if (!result) continue; // refused: not accepted, so no CreateTaskResult is owed
        const task = isObject(result.task) ? result.task : null;
        const problem = !task
          ? 'no `task` object'
          : typeof task.taskId !== 'string'
            ? `taskId ${brief(task.taskId)} is not a string`
            : typeof task.status !== 'string' || !STATUSES.has(task.status)
              ? `status ${brief(task.status)} is not a task status`
              : null;
        if (problem)
          return fail(
            `the task-augmented call of ${describeRun(run)}: ${problem}`,
            'a CreateTaskResult {task: Task}',
            brief(result),
          );
        accepted++;
      }
      if (accepted === 0)
        throw new CouldNotTell(`every task-augmented call was refused: ${brief(runs[0]?.create)}`);
      return pass(`${accepted} task(s) created`);
    },
  },
  {
    ...base,
    id: 'tasks.ids',
    level: 'MUST',
    title: 'task ids are unique and generated by the server (--call-tools)',
    requirement:
      'Task IDs MUST be generated by the receiver when creating a task. Task IDs MUST be unique among all tasks controlled by the receiver.',
    source: `${TASKS} (Behavior Requirements, Task ID Requirements)`,
    async run(ctx) {
      const { runs } = await createdRuns(ctx);
      const seen = new Map<string, TaskRun>();
      for (const run of runs) {
        const id = run.taskId as string;
        const earlier = seen.get(id);
        if (earlier)
          return fail(
            `two tasks share the id ${JSON.stringify(id)}`,
            'a new id for every task',
            `${describeRun(earlier)} and ${describeRun(run)}`,
          );
        seen.set(id, run);
        if (id === String(run.requestId) || id === run.token)
          return fail(
            `the task id of ${describeRun(run)} is a value the client sent`,
            'an id the server generated',
            JSON.stringify(id),
          );
      }
      return pass(`${runs.length} distinct id(s)`);
    },
  },
  {
    ...base,
    id: 'tasks.begin-working',
    level: 'MUST',
    title: 'a new task starts in the working status (--call-tools)',
    requirement: 'Tasks MUST begin in the working status when created.',
    source: `${TASKS} (Behavior Requirements, Task Status Lifecycle)`,
    async run(ctx) {
      const { runs } = await createdRuns(ctx);
      for (const run of runs) {
        const status = run.seen[0]?.task.status;
        if (status !== 'working')
          return fail(
            `the task of ${describeRun(run)} was created ${brief(status)}`,
            '"working"',
            brief(run.seen[0]?.task),
          );
      }
      return pass();
    },
  },
  {
    ...base,
    id: 'tasks.transitions',
    level: 'MUST',
    title: 'task statuses change only along the valid paths; terminal ones stay (--call-tools)',
    requirement:
      'Receivers MUST only transition tasks through the following valid paths: From working: may move to input_required, completed, failed, or cancelled; From input_required: may move to working, completed, failed, or cancelled. Tasks with a completed, failed, or cancelled status are in a terminal state and MUST NOT transition to any other status.',
    source: `${TASKS} (Behavior Requirements, Task Status Lifecycle)`,
    async run(ctx) {
      // The cancelled task's path is tasks.cancel-stays' to judge.
      const runs = (await createdRuns(ctx)).runs.filter((run) => run.kind !== 'cancel');
      let steps = 0;
      for (const run of runs) {
        let previous: Seen | undefined;
        for (const seen of run.seen) {
          const status = String(seen.task.status);
          const before = previous ? String(previous.task.status) : undefined;
          if (before !== undefined && status !== before && !(NEXT[before] ?? []).includes(status))
            return fail(
              `the task of ${describeRun(run)} went from ${before} to ${status}`,
              TERMINAL.has(before) ? `${before} for good` : `one of ${(NEXT[before] ?? []).join(', ')}`,
              `${seen.via}: ${brief(seen.task)}`,
            );
          previous = seen;
          steps++;
        }
      }
      return pass(`${steps} status observation(s) of ${runs.length} task(s)`);
    },
  },
  {
    ...base,
    id: 'tasks.timestamps',
    level: 'MUST',
    title: 'every task carries createdAt and lastUpdatedAt as ISO 8601 timestamps (--call-tools)',
    requirement:
      'Receivers MUST include a createdAt ISO 8601-formatted timestamp in all task responses to indicate when the task was created. Receivers MUST include a lastUpdatedAt ISO 8601-formatted timestamp in all task responses to indicate when the task was last updated.',
    source: `${TASKS} (Behavior Requirements, TTL and Resource Management)`,
    async run(ctx) {
      const { scene, runs } = await createdRuns(ctx);
      const all = [
        ...runs.flatMap((run) => run.seen),
        ...(scene.list?.tasks ?? []).map((task) => ({ via: 'tasks/list', task })),
      ];
      for (const { via, task } of all)
        for (const field of ['createdAt', 'lastUpdatedAt']) {
          const value = task[field];
          if (typeof value !== 'string' || !RFC3339.test(value) || Number.isNaN(Date.parse(value)))
            return fail(
              `${via}: ${field} is not an ISO 8601 timestamp`,
              'e.g. 2025-11-25T10:30:00Z',
              brief(task),
            );
        }
      return pass(`${all.length} task object(s)`);
    },
  },
  {
    ...base,
    id: 'tasks.get-ttl',
    level: 'MUST',
    title: 'tasks/get states the actual ttl, or null (--call-tools)',
    requirement:
      'Receivers MUST include the actual ttl duration (or null for unlimited) in tasks/get responses.',
    source: `${TASKS} (Behavior Requirements, TTL and Resource Management)`,
    async run(ctx) {
      const { runs } = await createdRuns(ctx);
      let count = 0;
      for (const run of runs)
        for (const { via, task } of run.seen) {
          if (!via.startsWith('tasks/get') && !via.startsWith('a later tasks/get')) continue;
          count++;
          if (!(task.ttl === null || (typeof task.ttl === 'number' && task.ttl >= 0)))
            return fail(
              `${via} of ${describeRun(run)} has no ttl`,
              'ttl: a number of ms, or null',
              brief(task),
            );
        }
      if (count === 0) throw new NotApplicable('no tasks/get was answered with a task');
      return pass(`${count} tasks/get result(s)`);
    },
  },
  {
    ...base,
    id: 'tasks.result-blocks',
    level: 'MUST',
    title: 'tasks/result of a running task answers only once the task is terminal (--call-tools)',
    requirement:
      'When a receiver receives a tasks/result request for a task in any other non-terminal status (working or input_required), it MUST block the response until the task reaches a terminal status.',
    source: `${TASKS} (Behavior Requirements, Result Retrieval)`,
    async run(ctx) {
      const runs = (await createdRuns(ctx)).runs.filter(
        (run) => run.kind === 'slow' && run.seen[0]?.task.status === 'working',
      );
      if (runs.length === 0)
        throw new NotApplicable('no slow task (a tool with a duration-like argument) was running when asked');
      for (const run of runs) {
        if (!run.result)
          return fail(
            `tasks/result of ${describeRun(run)} got no answer within the step (${ctx.timeoutMs} ms): the task never reached a terminal status, or its result never came`,
            'the result once the task is terminal',
            run.resultError,
          );
        // A poll that saw the task terminal before the answer came settles it.
        const before = run.seen.slice(0, run.seenBeforeResult ?? 0);
        if (before.some((seen) => TERMINAL.has(String(seen.task.status)))) continue;
        const after = resultOf(run.afterResult)?.status;
        if (typeof after !== 'string' || !TERMINAL.has(after))
          return fail(
            `tasks/result of ${describeRun(run)} answered while the task was still ${brief(after)}`,
            'no answer before a terminal status',
            brief(run.result),
          );
      }
      return pass(`${runs.length} slow task(s)`);
    },
  },
  {
    ...base,
    id: 'tasks.result-exact',
    level: 'MUST',
    title: 'tasks/result returns exactly what the call would have returned (--call-tools)',
    requirement:
      'For tasks in a terminal status, receivers MUST return from tasks/result exactly what the underlying request would have returned, whether that is a successful result or a JSON-RPC error.',
    source: `${TASKS} (Behavior Requirements, Result Retrieval; Error Handling, Task Execution Errors)`,
    async run(ctx) {
      const { runs } = await createdRuns(ctx);
      let compared = 0;
      for (const run of runs) {
        if (!run.result || run.kind === 'cancel') continue;
        const result = resultOf(run.result);
        if (result) {
          const issues = resultIssues(ctx, 'tools/call', result);
          if (issues.length > 0)
            return fail(
              `tasks/result of ${describeRun(run)} is not a CallToolResult`,
              'the tool call result',
              issues.join('; '),
            );
        }
        if (!run.direct) continue;
        compared++;
        const expected = comparable(run.direct);
        const actual = comparable(run.result);
        if (JSON.stringify(expected) !== JSON.stringify(actual))
          return fail(
            `tasks/result of ${describeRun(run)} differs from the same call without a task`,
            brief(expected),
            brief(actual),
          );
      }
      if (compared === 0 && !runs.some((run) => run.result))
        throw new NotApplicable('no tasks/result was answered (see tasks.result-blocks)');
      return pass(`${compared} result(s) compared with the call without a task`);
    },
  },
  {
    ...base,
    id: 'tasks.result-related-meta',
    level: 'MUST',
    title: 'the tasks/result response names its task in _meta (--call-tools)',
    requirement:
      'The tasks/result operation MUST include this metadata in its response, as the result structure itself does not contain the task ID.',
    source: `${TASKS} (Data Types, Related Task Metadata)`,
    async run(ctx) {
      const runs = (await createdRuns(ctx)).runs.filter((run) => resultOf(run.result));
      if (runs.length === 0) throw new NotApplicable('no tasks/result was answered with a result');
      for (const run of runs) {
        const meta = resultOf(run.result)?._meta;
        const related = isObject(meta) ? meta[RELATED_TASK] : undefined;
        if (!isObject(related) || related.taskId !== run.taskId)
          return fail(
            `tasks/result of ${describeRun(run)} does not name its task`,
            `_meta["${RELATED_TASK}"].taskId = ${JSON.stringify(run.taskId)}`,
            brief(meta ?? null),
          );
      }
      return pass(`${runs.length} result(s)`);
    },
  },
  {
    ...base,
    id: 'tasks.taskid-source',
    level: 'MUST',
    title: 'tasks/get follows its taskId param, not related-task metadata (--call-tools)',
    requirement:
      'For the tasks/get, tasks/result, and tasks/cancel operations, the taskId parameter in the request MUST be used as the source of truth for identifying the target task. Requestors SHOULD NOT include io.modelcontextprotocol/related-task metadata in these requests, and receivers MUST ignore such metadata if present in favor of the RPC method parameter.',
    source: `${TASKS} (Behavior Requirements, Associating Task-Related Messages)`,
    async run(ctx) {
      const { scene } = await createdRuns(ctx);
      const truth = scene.truth;
      if (!truth) throw new NotApplicable('fewer than two tasks were created');
      if (!truth.reply)
        return fail('tasks/get with related-task meta got no response', 'the task', truth.error);
      const answered = resultOf(truth.reply)?.taskId;
      if (answered !== truth.asked)
        return fail(
          'tasks/get answered for the task named in _meta, not for its taskId param',
          `task ${JSON.stringify(truth.asked)}`,
          brief(truth.reply),
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'tasks.list-complete',
    level: 'MUST',
    title: 'tasks/list, followed cursor by cursor, lists every task tasks/get knows (--call-tools)',
    requirement:
      'Receivers MUST include a nextCursor in the response if more tasks are available. If a task is retrievable via tasks/get for a requestor, it MUST be retrievable via tasks/list for that requestor.',
    source: `${TASKS} (Behavior Requirements, Task Listing)`,
    async run(ctx) {
      const { scene, runs } = await createdRuns(ctx);
      const list = scene.list;
      if (!list) throw new NotApplicable('the server does not declare tasks.list');
      if (list.error) return fail('tasks/list failed', 'every page of the list', list.error);
      const retrievable = runs.filter(
        (run) => run.kind !== 'cancel' && resultOf(run.seen.length ? run.afterResult : undefined),
      );
      const missing = retrievable.find((run) => !list.ids.includes(run.taskId as string));
      if (missing)
        return fail(
          `the task of ${describeRun(missing)} is retrievable with tasks/get but not listed`,
          JSON.stringify(missing.taskId),
          `${list.ids.length} listed: ${brief(list.ids, 200)}`,
        );
      return pass(`${retrievable.length} task(s) found among ${list.ids.length}`);
    },
  },
  {
    ...base,
    id: 'tasks.cancel-terminal',
    level: 'MUST',
    title: 'tasks/cancel of a finished task is refused with -32602 (--call-tools)',
    requirement:
      'Receivers MUST reject cancellation requests for tasks already in a terminal status (completed, failed, or cancelled) with error code -32602 (Invalid params).',
    source: `${TASKS} (Behavior Requirements, Task Cancellation)`,
    async run(ctx) {
      const { scene } = await createdRuns(ctx);
      const probe = scene.cancelTerminal;
      if (!probe)
        throw new NotApplicable('the server does not declare tasks.cancel, or no task was seen terminal');
      if (!probe.reply) return fail('tasks/cancel got no response', '-32602', probe.error);
      if (errorCodeOf(probe.reply) !== -32602)
        return fail(
          `tasks/cancel of a ${probe.status} task was not refused with -32602`,
          '-32602',
          brief(probe.reply),
        );
      return pass(`a ${probe.status} task`);
    },
  },
  {
    ...base,
    id: 'tasks.cancel',
    level: 'MUST',
    title: 'tasks/cancel answers with the task already cancelled (--call-tools)',
    requirement:
      'Upon receiving a valid cancellation request, receivers SHOULD attempt to stop the task execution and MUST transition the task to cancelled status before sending the response.',
    source: `${TASKS} (Behavior Requirements, Task Cancellation)`,
    async run(ctx) {
      const run = (await createdRuns(ctx)).runs.find((candidate) => candidate.kind === 'cancel');
      if (!run)
        throw new NotApplicable('the server does not declare tasks.cancel, or no slow task to cancel');
      if (!run.cancel) return fail('tasks/cancel got no response', 'the cancelled task', run.cancelError);
      const result = resultOf(run.cancel);
      if (!result) {
        if (errorCodeOf(run.cancel) === -32602 && TERMINAL.has(String(run.seen[0]?.task.status)))
          throw new CouldNotTell('the task had already ended when it was cancelled');
        return fail(`tasks/cancel of a running task was refused`, 'the cancelled task', brief(run.cancel));
      }
      const after = resultOf(run.afterCancel[0])?.status;
      if (result.status !== 'cancelled' || after !== 'cancelled')
        return fail(
          'the task was not cancelled when tasks/cancel answered',
          'status "cancelled" in the response and in the next tasks/get',
          `response ${brief(result.status)}, then ${brief(after)}`,
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'tasks.cancel-stays',
    level: 'MUST',
    title: 'a cancelled task stays cancelled after its work would have ended (--call-tools)',
    requirement:
      'Once a task is cancelled, it MUST remain in cancelled status even if execution continues to completion or fails.',
    source: `${TASKS} (Behavior Requirements, Task Cancellation)`,
    async run(ctx) {
      const run = (await createdRuns(ctx)).runs.find((candidate) => candidate.kind === 'cancel');
      if (!run || resultOf(run.cancel)?.status !== 'cancelled')
        throw new NotApplicable('no task was cancelled (see tasks.cancel)');
      const later = run.afterCancel[1];
      if (!later)
        throw new NotApplicable(
          'the task was not readable after the wait (a server MAY delete cancelled tasks)',
        );
      const result = resultOf(later);
      if (!result) return pass('the cancelled task was deleted, which a server MAY do');
      if (result.status !== 'cancelled')
        return fail(
          `the cancelled task became ${brief(result.status)}`,
          '"cancelled" for good',
          brief(result),
        );
      return pass();
    },
  },
  {
    ...base,
    id: 'tasks.forbidden-refused',
    level: 'SHOULD',
    title: 'a task-augmented call of a tool without task support gets -32601 (--call-tools)',
    requirement:
      'If execution.taskSupport is not present or "forbidden", clients MUST NOT attempt to invoke the tool as a task. Servers SHOULD return a -32601 (Method not found) error if a client attempts to do so.',
    source: `${TASKS} (Capabilities, Tool-Level Negotiation)`,
    async run(ctx) {
      const probe = (await scenario(ctx)).forbidden;
      if (!probe) throw new NotApplicable('nothing to judge: every listed tool supports tasks');
      if (!probe.reply)
        throw new CouldNotTell(
          `the task-augmented call of ${JSON.stringify(probe.tool)} got no response`,
          '-32601',
          probe.error,
        );
      if (errorCodeOf(probe.reply) !== -32601)
        return fail(
          `${JSON.stringify(probe.tool)} supports no tasks, yet its task-augmented call was not refused with -32601`,
          '-32601 (Method not found)',
          brief(probe.reply),
        );
      return pass(JSON.stringify(probe.tool));
    },
  },
  {
    ...base,
    id: 'tasks.failed-status-message',
    level: 'SHOULD',
    title: 'tasks/get of a failed task explains the failure in statusMessage (--call-tools)',
    requirement:
      'The tasks/get response SHOULD include a statusMessage field with diagnostic information about the failure.',
    source: `${TASKS} (Error Handling, Task Execution Errors)`,
    async run(ctx) {
      const failed = (await createdRuns(ctx)).runs.flatMap((run) =>
        run.seen.filter((seen) => seen.via.includes('tasks/get') && seen.task.status === 'failed'),
      );
      if (failed.length === 0) throw new NotApplicable('nothing to judge: no task failed');
      const bare = failed.find(
        (seen) => typeof seen.task.statusMessage !== 'string' || seen.task.statusMessage === '',
      );
      if (bare)
        return fail(
          'a failed task has no statusMessage',
          'statusMessage with diagnostic information',
          brief(bare.task),
        );
      return pass(`${failed.length} tasks/get result(s) of failed tasks`);
    },
  },
  {
    ...base,
    id: 'tasks.progress-stops',
    level: 'MUST',
    title: 'progress for a task stops once the task is terminal (--call-tools)',
    requirement:
      'Progress notifications for tasks MUST stop after the task reaches a terminal status (completed, failed, or cancelled).',
    source: `${PROGRESS} (Behavior Requirements)`,
    async run(ctx) {
      const { scene, runs } = await createdRuns(ctx);
      const log = scene.session.log;
      let progress = 0;
      let stray: { run: TaskRun; message: JsonObject } | undefined;
      for (const run of runs) {
        const ended = terminalAt(log, run.taskId as string);
        for (const [at, entry] of log.entries()) {
          const message = entry.message;
          if (entry.direction !== 'in' || !isObject(message) || message.method !== 'notifications/progress')
            continue;
          if (!isObject(message.params) || message.params.progressToken !== run.token) continue;
          progress++;
          if (ended !== null && at > ended && !stray) stray = { run, message };
        }
      }
      if (stray)
        return fail(
          `progress for the task of ${describeRun(stray.run)} came after it was terminal`,
          'no progress after a terminal status',
          brief(stray.message),
        );
      if (progress === 0) throw new NotApplicable('nothing to judge: no progress came for any task');
      return pass(`${progress} progress notification(s)`);
    },
  },
];

/** Where the log first shows the task terminal: a tasks/get, tasks/cancel or status notification, or null. */
function terminalAt(log: Session['log'], taskId: string): number | null {
  const requests = new Map<string, string>();
  for (const [at, entry] of log.entries()) {
    const message = entry.message;
    if (!isObject(message)) continue;
    if (entry.direction === 'out') {
      if (typeof message.method === 'string' && isObject(message.params) && message.params.taskId === taskId)
        requests.set(String(message.id), message.method);
      continue;
    }
    const asked = requests.get(String(message.id));
    const task =
      message.method === 'notifications/tasks/status'
        ? message.params
        : asked === 'tasks/get' || asked === 'tasks/cancel'
          ? message.result
          : asked === 'tasks/result' && 'result' in message
            ? { taskId, status: 'completed' }
            : undefined;
    if (isObject(task) && task.taskId === taskId && TERMINAL.has(String(task.status))) return at;
  }
  return null;
}
