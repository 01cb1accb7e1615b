/**
 * Token usage as the provider reports it. The four numbers are kept apart because they are billed
 * differently: cache reads are cheap, cache writes cost a little more than plain input.
 */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

/** One user turn: its prompt (shortened) and what all of its model requests used together. */
export interface TurnUsage {
  prompt: string;
  requests: number;
  usage: Usage;
}

/** Usage per turn for `/cost`; the session total is the sum. */
export class UsageLedger {
  private readonly turns: TurnUsage[] = [];

  record(turn: TurnUsage): void {
    this.turns.push({ ...turn, usage: { ...turn.usage } });
  }

  list(): readonly TurnUsage[] {
    return this.turns;
  }

  total(): Usage {
    return this.turns.reduce((sum, turn) => addUsage(sum, turn.usage), emptyUsage());
  }

  clear(): void {
    this.turns.length = 0;
  }
}

export function formatUsage(usage: Usage): string {
  return `input ${usage.inputTokens}, output ${usage.outputTokens}, cache read ${usage.cacheReadTokens}, cache write ${usage.cacheWriteTokens}`;
}
