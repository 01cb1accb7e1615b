/**
 * Tasks (MCP 2025-11-25 basic/utilities/tasks) for the legacy era: task-augmented `tools/call`, and
 * `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel`. One store per session, so a task belongs to
 * the connection (stdio process, HTTP session) that created it.
 *
 * The schemas of furfly do not define the task messages yet, so the shapes are written out here from the
 * specification's Data Types section. 2026-07-28 moved tasks into an extension; modern requests never
 * reach this store.
 */
import { ErrorCode, isObject, RpcError } from './protocol.js';

export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
export type TaskSupport = 'forbidden' | 'optional' | 'required';

export interface Task {
  taskId: string;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds from creation the task is kept; null means unlimited. */
  ttl: number | null;
  pollInterval?: number;
}

export const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const TERMINAL: ReadonlySet<TaskStatus> = new Set(['completed', 'failed', 'cancelled']);
/** The longest ttl granted (a requested one above it is lowered, which the specification allows). */
const MAX_TTL_MS = 3_600_000;
const DEFAULT_TTL_MS = 300_000;
const POLL_INTERVAL_MS = 100;

export const isTerminal = (status: TaskStatus): boolean => TERMINAL.has(status);

/** Breaks the spec-breaker switches of test-servers/lib/defects/tasks.ts need (nothing by default). */
export interface TaskDefects {
  /** tasks/result of a task still running answers at once with -32602 instead of waiting. */
  resultWithoutWaiting?: boolean;
  /** tasks/cancel of a task in a terminal status succeeds (the task is returned unchanged). */
  cancelTerminal?: boolean;
  /** tasks/cancel answers with the task still `working`; it becomes `cancelled` only afterwards. */
  cancelAfterResponse?: boolean;
  /** A cancelled task whose work finishes anyway becomes `completed`. */
  cancelNotFinal?: boolean;
  /** Task ids are `task-<tool name>`: two tasks of one tool share an id. */
  idPerTool?: boolean;
  /** Task ids from a counter (`task-1`, `task-2`, …): guessable. */
  sequentialIds?: boolean;
  /** One more progress notification with the task's token after the task reached a terminal status. */
  progressAfterTerminal?: boolean;
  /** Tasks stay `working` for ever: their work never runs. */
  neverFinish?: boolean;
}

/** What the underlying request ended with: exactly one of result and error. */
type Outcome = { result: Record<string, unknown> } | { error: RpcError };

interface Entry {
  task: Task;
  outcome?: Outcome;
  controller: AbortController;
  settled: Promise<void>;
  settle(): void;
  progressToken?: string | number;
}

export interface TaskWork {
  toolName: string;
  ttl: unknown;
  progressToken?: string | number;
  /** Runs the tool; its signal aborts on tasks/cancel or when the session ends. */
  run(signal: AbortSignal): Promise<Record<string, unknown>>;
}

export class TaskStore {
  private readonly entries = new Map<string, Entry>();
  /** How many tasks this store created (the `tasks-sequential-ids` defect numbers them). */
  private created = 0;

  constructor(
    /** Where status notifications and late progress go (the session's own channel). */
    private readonly notify: (method: string, params: Record<string, unknown>) => void,
    private readonly defects: TaskDefects = {},
  ) {}

  /** Accepts a task-augmented request: the task starts `working`, the work runs on after the response. */
  create(work: TaskWork): { task: Task } {
    const now = new Date().toISOString();
    const ttl =
      typeof work.ttl === 'number' && Number.isFinite(work.ttl) && work.ttl >= 0
        ? Math.min(work.ttl, MAX_TTL_MS)
        : DEFAULT_TTL_MS;
    this.created += 1;
    const taskId = this.defects.idPerTool
      ? `task-${work.toolName}`
      : this.defects.sequentialIds
        ? `task-${this.created}`
        : `furfly-task-${crypto.randomUUID()}`;
    const task: Task = {
      taskId,
      status: 'working',
      statusMessage: 'The operation is now in progress.',
      createdAt: now,
      lastUpdatedAt: now,
      ttl,
      pollInterval: POLL_INTERVAL_MS,
    };
    let settle = () => {};
    const settled = new Promise<void>((resolve) => {
      settle = resolve;
    });
    const entry: Entry = { task, controller: new AbortController(), settled, settle };
    if (work.progressToken !== undefined) entry.progressToken = work.progressToken;
    this.entries.set(taskId, entry);
    if (this.defects.neverFinish) return { task: { ...task } };
    void work.run(entry.controller.signal).then(
      (result) => this.finish(entry, { result }, result.isError === true ? 'failed' : 'completed'),
      (error: unknown) => {
        const rpc = error instanceof RpcError ? error : new RpcError(ErrorCode.InternalError, 'tool failed');
        this.finish(entry, { error: rpc }, 'failed');
      },
    );
    return { task: { ...task } };
  }

  /** Answers one of the tasks/* methods, or returns undefined for any other method. */
  async handle(
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    switch (method) {
      case 'tasks/get':
        return { ...this.find(params).task };
      case 'tasks/result':
        return this.result(this.find(params));
      case 'tasks/cancel':
        return this.cancel(this.find(params));
      default:
        return undefined;
    }
  }

  /** Every task of this session, newest last (tasks/list pages over it). */
  list(): Task[] {
    return [...this.entries.values()].map((entry) => ({ ...entry.task }));
  }

  /** Ends every running task's work (the session is gone). */
  close(): void {
    for (const entry of this.entries.values()) entry.controller.abort(new Error('session closed'));
  }

  private find(params: Record<string, unknown>): Entry {
    const entry = typeof params.taskId === 'string' ? this.entries.get(params.taskId) : undefined;
    if (!entry) throw new RpcError(ErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    return entry;
  }

  private async result(entry: Entry): Promise<Record<string, unknown>> {
    if (!isTerminal(entry.task.status)) {
      if (this.defects.resultWithoutWaiting)
        throw new RpcError(ErrorCode.InvalidParams, 'Task has not finished yet');
      await entry.settled;
    }
    const outcome = entry.outcome;
    if (!outcome) throw new RpcError(ErrorCode.InternalError, 'The task was cancelled before it finished');
    if ('error' in outcome) throw outcome.error;
    const meta = isObject(outcome.result._meta) ? outcome.result._meta : {};
    return { ...outcome.result, _meta: { ...meta, [RELATED_TASK]: { taskId: entry.task.taskId } } };
  }

  private cancel(entry: Entry): Record<string, unknown> {
    if (isTerminal(entry.task.status) && !this.defects.cancelTerminal)
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Cannot cancel task: already in terminal status '${entry.task.status}'`,
      );
    if (isTerminal(entry.task.status)) return { ...entry.task };
    if (this.defects.cancelAfterResponse) {
      const before = { ...entry.task };
      setImmediate(() => this.cancelNow(entry));
      return before;
    }
    this.cancelNow(entry);
    return { ...entry.task };
  }

  private cancelNow(entry: Entry): void {
    this.update(entry, 'cancelled', 'The task was cancelled by request.');
    // cancelNotFinal lets the work run on, so that it can (wrongly) complete the task later.
    if (!this.defects.cancelNotFinal) entry.controller.abort(new Error('task cancelled'));
    entry.settle();
  }

  private finish(entry: Entry, outcome: Outcome, status: TaskStatus): void {
    const cancelled = entry.task.status === 'cancelled';
    if (cancelled && !this.defects.cancelNotFinal) return;
    if (!cancelled && isTerminal(entry.task.status)) return;
    entry.outcome = outcome;
    const message =
      'error' in outcome
        ? `The request failed: ${outcome.error.message}`
        : status === 'failed'
          ? 'The tool reported an error (isError).'
          : 'The operation completed.';
    this.update(entry, status, message);
    entry.settle();
    if (this.defects.progressAfterTerminal && entry.progressToken !== undefined)
      this.notify('notifications/progress', {
        progressToken: entry.progressToken,
        progress: 1_000_000,
        message: 'after the task ended',
      });
  }

  private update(entry: Entry, status: TaskStatus, statusMessage: string): void {
    entry.task.status = status;
    entry.task.statusMessage = statusMessage;
    entry.task.lastUpdatedAt = new Date().toISOString();
    // The optional status notification carries the whole task and, as the spec advises, no related-task meta.
    this.notify('notifications/tasks/status', { ...entry.task });
  }
}
