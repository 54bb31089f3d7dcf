// Tokens, cost and latency of each side of a replay: the recording's from its ledger (its
// agent calls; the summarizing calls of its compactions are not repeated by a replay), the
// replay's from the calls it made, priced by the same table.
import { callsOf } from "../ledger/ledger.js";
import { costOf, priceOf, type PriceTable } from "../ledger/prices.js";
import type { ModelUsage } from "../llm/model-provider.js";
import { turnUsage, type TokenUsage } from "../runstate/views/run-digest.js";
import type { Recording } from "./recording.js";
import type { ReplayUsage } from "./replay-report.js";

export function noUsage(model: string): ReplayUsage {
  return { model, modelCalls: 0, inTokens: 0, outTokens: 0, cacheReadTokens: 0, cacheCreateTokens: 0, cost: undefined, latencyMs: 0 };
}

/** The recording's agent calls, priced. */
export function recordedUsage(recording: Recording, prices: PriceTable): ReplayUsage {
  const usage = noUsage(recording.meta.fingerprint.model);
  for (const call of callsOf(recording.records, prices)) if (call.kind === "agent") addTokens(usage, call.usage, call.cost);
  usage.latencyMs = recording.segments.flat().reduce((sum, turn) => sum + (turn.latencyMs ?? 0), 0);
  return usage;
}

/** Adds one call of the replay to `usage`. */
export function addCall(usage: ReplayUsage, call: ModelUsage, latencyMs: number, prices: PriceTable): void {
  const tokens = turnUsage(call);
  const price = priceOf(usage.model, prices);
  addTokens(usage, tokens, price === undefined ? undefined : costOf(tokens, price));
  usage.latencyMs += latencyMs;
}

/** A side's cost stays undefined until a call with a price is added. */
function addTokens(usage: ReplayUsage, tokens: TokenUsage, cost: number | undefined): void {
  usage.modelCalls += tokens.calls;
  usage.inTokens += tokens.inTokens;
  usage.outTokens += tokens.outTokens;
  usage.cacheReadTokens += tokens.cacheReadTokens;
  usage.cacheCreateTokens += tokens.cacheWriteTokens;
  if (cost !== undefined) usage.cost = (usage.cost ?? 0) + cost;
}
