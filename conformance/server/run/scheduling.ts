/**
 * Which checks of a run may overlap, and how their results are told as a sequential run tells them.
 *
 * Most checks share one conversation (the shared session, memoised scenarios, the run log) and run one
 * after the other in report order, the checks over the whole run last. Over stdio most of a run's time
 * goes into waiting for fresh server processes to start (a node server needs 0.1 to 0.2 s on a quiet
 * machine, several times that on a loaded one), once for each check that needs a process of its own. So,
 * over stdio and unless `--verbose` asks for transcripts:
 * - the eras of a dual-era server run beside each other (each has its own processes and run log);
 * - within an era, `isolated` checks (check.ts) run beside the sequential ones, at most
 *   ISOLATED_AT_ONCE at a time in the whole run, and the checks over the whole run wait for both.
 *
 * Nothing a check judges depends on this. Progress events come in the order of a sequential run
 * (InOrder); results keep report order (the runner sorts them); an isolated check sees the shared
 * session alive or gone as it stood at the check's place in the sequential order (SharedGate).
 *
 * Over HTTP a fresh session is one more session on the one server process the other checks talk to,
 * and opening it costs little: HTTP runs stay sequential. So do `--verbose` runs: a stdio transcript is
 * the stretch of the run log written while its check ran, which holds only when one check runs at a time.
 */
import type { Check } from '../check.js';
import type { CheckResult } from '../report/model.js';
import type { TransportKind } from './target.js';

/**
 * How many isolated checks of a run may run at once. Starting a process is mostly CPU work; four keeps
 * two cores busy while some of the four wait for a reply, and keeps a loaded machine's step timeouts
 * (each starts when its request is written) from being eaten by a crowd of starting processes.
 */
export const ISOLATED_AT_ONCE = 4;

/** Whether checks of a run may overlap at all (see the module comment). */
export function overlapAllowed(transport: TransportKind, verbose: boolean): boolean {
  return transport === 'stdio' && !verbose;
}

/**
 * Tells start and result events in index order, whatever order the work happens in: the start of
 * item n once item n-1's result is told, its result after its start. A sequential run tells the same
 * sequence, so a progress display (or a test) cannot tell the difference.
 */
export class InOrder<E> {
  private readonly slots = new Map<number, { start?: E; end?: E }>();
  private next = 0;
  private startTold = false;

  constructor(private readonly tell: (event: E) => void) {}

  started(index: number, event: E): void {
    this.slot(index).start = event;
    this.flush();
  }

  finished(index: number, event: E): void {
    this.slot(index).end = event;
    this.flush();
  }

  private slot(index: number): { start?: E; end?: E } {
    let slot = this.slots.get(index);
    if (!slot) {
      slot = {};
      this.slots.set(index, slot);
    }
    return slot;
  }

  private flush(): void {
    for (;;) {
      const slot = this.slots.get(this.next);
      if (!slot) return;
      if (!this.startTold) {
        if (slot.start === undefined) return;
        this.startTold = true;
        this.tell(slot.start);
      }
      if (slot.end === undefined) return;
      this.slots.delete(this.next);
      this.next++;
      this.startTold = false;
      this.tell(slot.end);
    }
  }
}

/** At most `limit` pieces of work at once; the rest wait in the order they asked. */
export class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.free = Math.max(1, limit);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resume) => this.waiting.push(resume));
    try {
      return await work();
    } finally {
      // The slot passes straight to the next in line, or becomes free.
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}

/**
 * Whether the shared session is gone, as an isolated check at position p would have seen it in a
 * sequential run: after the last sequential check before p (its "anchor") ended. Positions are indices
 * in the era's run order; -1 is the start of the era.
 *
 * While the anchor has not ended yet, a session that is gone now was gone then too (gone is for good);
 * one that lives now may still die before the anchor ends, so the answer "alive" is provisional, and
 * `correction` says, once the anchor has ended, whether the check should have been skipped after all.
 */
export class SharedGate {
  private readonly after = new Map<number, string | null>();
  private readonly waiting = new Map<number, (() => void)[]>();
  private readonly provisional = new Set<number>();
  private closed = false;

  constructor(
    /** Why the shared session is gone right now, or null while it lives. */
    private readonly goneNow: () => string | null,
    /** Positions of the era's sequential checks, ascending. */
    private readonly sequential: readonly number[],
  ) {
    this.passed(-1);
  }

  /** The sequential check at `position` has ended (or, for -1, the era begins). */
  passed(position: number): void {
    this.after.set(position, this.goneNow());
    for (const wake of this.waiting.get(position) ?? []) wake();
    this.waiting.delete(position);
  }

  /** The sequential checks stopped (done, or the run was aborted): nobody waits for an anchor any more. */
  close(): void {
    this.closed = true;
    for (const wakes of this.waiting.values()) for (const wake of wakes) wake();
    this.waiting.clear();
  }

  /** What `ctx.session()` of the isolated check at `position` should consider: null while alive. */
  goneFor(position: number): string | null {
    const anchor = this.anchorOf(position);
    if (this.after.has(anchor)) return this.after.get(anchor) ?? null;
    const now = this.goneNow();
    if (now === null) this.provisional.add(position);
    return now;
  }

  /**
   * Once the anchor has ended: why the check at `position` should have found the shared session gone,
   * when it went on believing it alive; null when its result stands.
   */
  async correction(position: number): Promise<string | null> {
    if (!this.provisional.has(position)) return null;
    const anchor = this.anchorOf(position);
    if (!this.after.has(anchor) && !this.closed) {
      await new Promise<void>((wake) => {
        const list = this.waiting.get(anchor) ?? [];
        list.push(wake);
        this.waiting.set(anchor, list);
      });
    }
    return this.after.get(anchor) ?? null;
  }

  private anchorOf(position: number): number {
    let anchor = -1;
    for (const sequential of this.sequential) {
      if (sequential >= position) break;
      anchor = sequential;
    }
    return anchor;
  }
}

/** One era's checks and how to run them. */
export interface EraSchedule {
  /** The era's checks in run order (the checks over the whole run last); a position is an index here. */
  checks: readonly Check[];
  overlap: boolean;
  /** Shared by every era of the run. */
  slots: Slots;
  signal?: AbortSignal;
  /** Why the era's shared session is gone right now, or null while it lives. */
  sharedGone: () => string | null;
  /** Runs one check; an isolated check's view of the context asks `sharedGone` instead of the session. */
  run(check: Check, sharedGone?: () => string | null): Promise<CheckResult>;
  started(position: number, check: Check): void;
  finished(position: number, check: Check, result: CheckResult): void;
}

/** Runs an era's checks; the results come back by position (run order). */
export async function runEra(era: EraSchedule): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const one = async (position: number, gate?: SharedGate): Promise<void> => {
    const check = era.checks[position] as Check;
    era.signal?.throwIfAborted();
    era.started(position, check);
    let result = await era.run(check, gate ? () => gate.goneFor(position) : undefined);
    const gone = gate ? await gate.correction(position) : null;
    if (gone !== null) result = skippedAsGone(result, gone);
    results[position] = result;
    era.finished(position, check, result);
  };

  const positions = era.checks.map((_, position) => position);
  if (!era.overlap) {
    for (const position of positions) await one(position);
    return results;
  }
  const whole = (position: number) => era.checks[position]?.judgesWholeRun === true;
  const isolated = positions.filter((p) => !whole(p) && era.checks[p]?.isolated === true);
  const sequential = positions.filter((p) => !whole(p) && era.checks[p]?.isolated !== true);
  const gate = new SharedGate(era.sharedGone, sequential);
  const inTurn = async () => {
    try {
      for (const position of sequential) {
        await one(position);
        gate.passed(position);
      }
    } finally {
      gate.close();
    }
  };
  await allDone([inTurn(), ...isolated.map((position) => era.slots.run(() => one(position, gate)))]);
  for (const position of positions.filter(whole)) await one(position);
  return results;
}

/** Waits for every piece of work to settle (none is left running), then fails with the first failure. */
export async function allDone(work: readonly Promise<unknown>[]): Promise<void> {
  const settled = await Promise.allSettled(work);
  const failure = settled.find((outcome) => outcome.status === 'rejected');
  if (failure) throw (failure as PromiseRejectedResult).reason;
}

/** The result a check gets when its first `ctx.session()` finds the shared session gone. */
function skippedAsGone(result: CheckResult, reason: string): CheckResult {
  const { expected: _expected, actual: _actual, wire: _wire, ...rest } = result;
  return { ...rest, status: 'skip', message: `the shared session is gone (${reason})` };
}
