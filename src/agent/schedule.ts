/**
 * Which tool calls of one model response may run at the same time. Consecutive calls to
 * concurrency-safe tools form one parallel group; every other call is a group of its own. Groups run
 * in call order, so a write the model asked for before a read is done before that read starts.
 */
export interface CallGroup<T> {
  parallel: boolean;
  calls: T[];
}

export function groupCalls<T>(calls: readonly T[], isConcurrencySafe: (call: T) => boolean): CallGroup<T>[] {
  const groups: CallGroup<T>[] = [];
  for (const call of calls) {
    const safe = isConcurrencySafe(call);
    const last = groups.at(-1);
    if (safe && last?.parallel) last.calls.push(call);
    else groups.push({ parallel: safe, calls: [call] });
  }
  return groups;
}
