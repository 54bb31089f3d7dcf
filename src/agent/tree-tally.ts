// A session's max_tokens bounds its whole tree (docs/sub-agents.md): its budget counts its own
// tokens (its journal's counters) and those of every session below it, and a child stops as
// soon as its own budget or any session's above it is used up. What the sessions below spent
// is read from their journals when a run starts or resumes; after that each child passes up
// what it journals, as it journals it, so the tally is always what the journals hold.
import { childTokens } from "../ledger/tree-budget.js";
import type { Counters, RunState } from "../runstate/views/fold.js";
import type { Store } from "../runstate/store/store.js";
import type { TreeBudget } from "../tools/tool.js";

/** The tokens a budget counts: every tier of a run's model calls, and the summarizing calls of its compactions, which cost as much. */
export function totalTokens(counters: Counters): number {
  return (
    counters.inTokens + counters.outTokens + counters.cacheReadTokens + counters.cacheCreateTokens + counters.compactionInTokens + counters.compactionOutTokens
  );
}

export class TreeTally {
  /** What the sessions below this one spent. */
  #below: number;
  /** This run's own tokens already passed up to the sessions above it. */
  #reported: number;

  private constructor(
    readonly runId: string,
    readonly maxTokens: number,
    readonly above: TreeBudget | undefined,
    below: number,
    reported: number,
  ) {
    this.#below = below;
    this.#reported = reported;
  }

  /**
   * The tally of a run as its journal stands. Only a run that made tool calls can have
   * children, so only such a run reads the store's sessions for them.
   */
  static async of(store: Store | undefined, state: RunState, maxTokens: number, above: TreeBudget | undefined): Promise<TreeTally> {
    const madeCalls =
      state.pending !== undefined || state.messages.some((message) => message.role === "user" && message.content.some((block) => block.type === "tool_result"));
    const below = store === undefined || !madeCalls ? 0 : await childTokens(store, state.runId);
    return new TreeTally(state.runId, maxTokens, above, below, totalTokens(state.counters));
  }

  /** The tokens this session and those below it spent. */
  spent(counters: Counters): number {
    return totalTokens(counters) + this.#below;
  }

  /** Why this session's own budget is used up (its tokens and its tree's), or undefined. */
  ownExhausted(counters: Counters): string | undefined {
    const spent = this.spent(counters);
    if (spent < this.maxTokens) return undefined;
    const below = this.#below === 0 ? "" : ` (${this.#below} of them by its child sessions)`;
    return `token budget reached: ${spent} of ${this.maxTokens} tokens used${below}`;
  }

  /** Why the run must stop before its next model call: its own budget, or that of a session above it, is used up. */
  exhausted(counters: Counters): string | undefined {
    return this.ownExhausted(counters) ?? this.above?.exhausted();
  }

  /** Passes up what this run journaled since it last did, to count against the budgets above it. */
  report(counters: Counters): void {
    const total = totalTokens(counters);
    if (total > this.#reported) this.above?.spent(total - this.#reported);
    this.#reported = total;
  }

  /** The budget the children of this run run under: `state` is this run's as it stands. */
  budgetBelow(state: () => RunState): TreeBudget {
    return {
      spent: (tokens) => {
        this.#below += tokens;
        this.above?.spent(tokens);
      },
      exhausted: () => {
        const spent = this.spent(state().counters);
        if (spent >= this.maxTokens)
          return `token budget of session ${this.runId} reached: ${spent} of ${this.maxTokens} tokens used by it and the sessions below it`;
        return this.above?.exhausted();
      },
    };
  }
}
