// Random journals written the way the agent loop writes them (SPEC section 7), for
// generated tests of fold. Everything is driven by a seeded PRNG so that a failing
// seed reproduces the exact same journal.
import type { JournalRecord } from "../../src/index.js";
import {
  PROTOCOLS,
  RECORD_VERSION,
  type AssistantMessage,
  type RecordEntry,
  type TerminalReason,
  type ToolResultBlock,
  type ToolUseBlock,
  type UserMessage,
} from "../../src/journal.js";

/** mulberry32: tiny, fast, and good enough to drive a simulation. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Derives well-spread per-run seeds from one base seed, so runs do not share streams. */
export function deriveSeed(baseSeed: number, runIndex: number): number {
  let h = (baseSeed ^ Math.imul(runIndex + 1, 0x9e3779b9)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export class Rng {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(0, items.length - 1)] as T;
  }

  shuffled<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy;
  }
}

const WORDS = ["list", "the", "files", "check", "build", "deploy", "why", "fails", "logs", "again", "ok", "ünïcode", "🐟"];

function sentence(rng: Rng): string {
  return Array.from({ length: rng.int(1, 6) }, () => rng.pick(WORDS)).join(" ");
}

/** Appends records with consecutive seqs, as a Journal does. */
class JournalWriter {
  readonly records: JournalRecord[] = [];

  add(entry: RecordEntry): void {
    this.records.push({ seq: this.records.length + 1, ...entry } as JournalRecord);
  }

  terminal(reason: TerminalReason, rng: Rng): void {
    this.add({ protocol: PROTOCOLS.terminal, terminal: rng.chance(0.5) ? { reason } : { reason, message: sentence(rng) } });
  }

  followUp(rng: Rng): void {
    const message: UserMessage = {
      role: "user",
      content: Array.from({ length: rng.int(1, 2) }, () => ({ type: "text" as const, text: sentence(rng) })),
    };
    this.add({ protocol: PROTOCOLS.user, user: { message } });
  }
}

/** Probabilities of the loop's side roads; tuned so every kind of event shows up often. */
const P = {
  interactive: 0.4,
  suspendAtBoundary: 0.12,
  stayStopped: 0.2,
  modelCallFails: 0.08,
  budgetBeforeTools: 0.1,
  crashBeforeEachTool: 0.05,
  skipIteration: 0.1,
  cacheFieldPresent: 0.7,
  remoteTool: 0.3,
  toolError: 0.2,
};

export interface SimulatedRun {
  seed: number;
  interactive: boolean;
  records: JournalRecord[];
}

/**
 * One run as the agent loop journals it: meta, then iterations of an assistant turn
 * followed by its tool results in completion order, with suspends, budget stops,
 * failed model calls, chat follow-ups and crashes sprinkled in at the points where the
 * loop can produce them.
 */
export function simulateRun(seed: number, runIndex: number): SimulatedRun {
  const rng = new Rng(seed);
  const journal = new JournalWriter();
  const interactive = rng.chance(P.interactive);
  journal.add({
    protocol: PROTOCOLS.meta,
    meta: {
      version: RECORD_VERSION,
      run_id: `run-${runIndex}-${seed.toString(36)}`,
      created: new Date(Date.UTC(2025, 0, 1) + (seed % 1_000_000) * 1000).toISOString(),
      fingerprint: {
        ...(rng.chance(0.5) ? { provider: rng.pick(["anthropic", "openai", "script"]) } : {}),
        model: rng.pick(["claude-sonnet-4-5", "gpt-4.1", "scripted"]),
        system_hash: seed.toString(16).padStart(64, "0"),
        tools_hash: (seed ^ 0xffff).toString(16).padStart(64, "0"),
        thinking_mode: rng.pick(["off", "adaptive", "budget:4096"]),
        max_tokens: 200000,
        max_iterations: 50,
      },
      prompt: sentence(rng),
      ...(interactive ? { interactive: true } : {}),
    },
  });

  let iteration = 0;
  let toolIds = 0;
  const turns = rng.int(1, 14);
  for (let turn = 0; turn < turns; turn++) {
    // Loop boundary: the conversation ends on a user message and a model call is due.
    if (rng.chance(P.suspendAtBoundary)) {
      journal.terminal("suspended", rng);
      if (rng.chance(P.stayStopped)) return { seed, interactive, records: journal.records };
      // Otherwise resumed: the loop appends after the `suspended` record.
    }
    if (rng.chance(P.modelCallFails)) {
      journal.terminal("error", rng);
      if (interactive && rng.chance(0.6)) journal.followUp(rng);
      else if (rng.chance(P.stayStopped)) return { seed, interactive, records: journal.records };
      continue;
    }

    // The last planned turn is usually the final answer; when it asks for tools the
    // loop runs into its iteration cap after them.
    const toolCount = turn === turns - 1 && rng.chance(0.8) ? 0 : rng.pick([0, 1, 1, 2, 3, 4]);
    const toolUses: ToolUseBlock[] = Array.from({ length: toolCount }, () => ({
      type: "tool_use",
      id: `toolu_${runIndex}_${toolIds++}`,
      name: rng.pick(["shell", "read_file", "search"]),
      input: { arg: sentence(rng), n: rng.int(0, 9) },
    }));
    journal.add({ protocol: PROTOCOLS.assistant, assistant: assistantTurn(rng, iteration, toolUses) });
    iteration += rng.chance(P.skipIteration) ? 2 : 1;

    if (toolUses.length === 0) {
      if (!interactive) {
        journal.terminal("completed", rng);
        return { seed, interactive, records: journal.records };
      }
      // A chat waits for input: it may be completed or ended (suspended), and a
      // later follow-up reopens it.
      if (rng.chance(0.5)) journal.terminal(rng.pick(["completed", "suspended"]), rng);
      if (turn === turns - 1) return { seed, interactive, records: journal.records };
      journal.followUp(rng);
      continue;
    }

    if (rng.chance(P.budgetBeforeTools)) {
      journal.terminal("budget", rng);
      if (rng.chance(P.stayStopped)) return { seed, interactive, records: journal.records };
      // Resumed with a larger budget: the pending batch is completed first.
    }
    for (const use of rng.shuffled(toolUses)) {
      if (rng.chance(P.crashBeforeEachTool)) return { seed, interactive, records: journal.records };
      journal.add({ protocol: PROTOCOLS.tool_result, tool_result: toolResult(rng, use.id) });
    }
  }
  // Out of planned turns after a batch (or a failed call): the iteration cap, or a crash.
  if (rng.chance(0.5)) journal.terminal("max_iterations", rng);
  return { seed, interactive, records: journal.records };
}

function assistantTurn(rng: Rng, iteration: number, toolUses: ToolUseBlock[]) {
  const content: AssistantMessage["content"] = [];
  if (rng.chance(0.4)) content.push({ type: "thinking", thinking: sentence(rng), signature: `sig-${rng.int(0, 1e9)}` });
  if (rng.chance(0.1)) content.push({ type: "redacted_thinking", data: `opaque-${rng.int(0, 1e9)}` });
  // A turn always carries something: text whenever there is nothing else to say.
  if (content.length === 0 || toolUses.length === 0 || rng.chance(0.5)) content.push({ type: "text", text: sentence(rng) });
  content.push(...toolUses);
  const optionalCount = () => (rng.chance(P.cacheFieldPresent) ? rng.int(0, 50_000) : undefined);
  const cacheRead = optionalCount();
  const cacheCreate = optionalCount();
  return {
    iteration,
    message: { role: "assistant" as const, content },
    stop_reason: toolUses.length > 0 ? "tool_use" : "end_turn",
    in_tokens: rng.int(0, 20_000),
    out_tokens: rng.int(0, 4_000),
    ...(cacheRead === undefined ? {} : { cache_read_tokens: cacheRead }),
    ...(cacheCreate === undefined ? {} : { cache_create_tokens: cacheCreate }),
  };
}

function toolResult(rng: Rng, toolUseId: string) {
  const result: ToolResultBlock = {
    type: "tool_result",
    tool_use_id: toolUseId,
    content: rng.chance(0.5) ? sentence(rng) : [{ type: "text", text: sentence(rng) }],
    ...(rng.chance(P.toolError) ? { is_error: true } : {}),
  };
  return { tool_use_id: toolUseId, result, ...(rng.chance(P.remoteTool) ? { remote: true } : {}) };
}
