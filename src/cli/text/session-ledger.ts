// The ledger as `session show` gives it: the session's tokens and cost by model, and
// with --json every model call priced. Prices are agent.yaml's `pricing:` over the
// shipped table; a model with no price gets its tokens and "no price".
import { ledgerOf, pricedCalls, type Ledger } from "../../ledger/ledger.js";
import type { ChildCost, TreeCost } from "../../ledger/tree-ledger.js";
import { PRICES_AS_OF, type PriceTable } from "../../ledger/prices.js";
import type { RunDigest, TokenUsage } from "../../runstate/views/run-digest.js";
import { counted } from "../../transcript/counted.js";
import { costText, dollarsText } from "./ledger.js";
import { STREAMED, type StreamedArray } from "./show-json.js";
import { configPathFrom } from "../context/stores.js";

/**
 * agent.yaml's prices (--config, else ./agent.yaml when there is one), else none: the
 * shipped table alone. An agent.yaml found only in the working directory may not be one
 * the user means for this: if it does not load, the shipped table is used.
 */
export async function pricesFrom(configFlag: string | undefined): Promise<PriceTable> {
  const path = configPathFrom(configFlag);
  return path === undefined ? {} : pricingOf(path, configFlag !== undefined);
}

/**
 * One session's prices: its own agent.yaml's (the one it started with, `recorded`), then
 * --config's, then the shipped table. Never the working directory's agent.yaml, so a session
 * costs the same wherever `show` runs. The recorded one may be gone or changed: if it does
 * not load, it gives no prices.
 */
export async function sessionPrices(configFlag: string | undefined, recorded: string | undefined): Promise<PriceTable> {
  const flagged = configFlag === undefined ? {} : await pricingOf(configFlag, true);
  return recorded === undefined ? flagged : { ...flagged, ...(await pricingOf(recorded, false)) };
}

/** The `pricing:` of the agent.yaml at `path`; one that does not load is an error when `required`, else no prices. */
async function pricingOf(path: string, required: boolean): Promise<PriceTable> {
  const { loadAgentConfig } = await import("../../config/agent-config.js");
  try {
    return loadAgentConfig(path).pricing;
  } catch (error) {
    if (required) throw error;
    return {};
  }
}

/** The show's lines of a tree's cost: each session below, indented by depth, those a fork shares, and the total. */
export function treeLines(tree: TreeCost): [string, string][] {
  const line = (child: ChildCost, note = "") => `${"  ".repeat(child.depth - 1)}${child.runId} (${child.status})${note}: ${ledgerText(child.ledger)}`;
  const sessions = tree.children.length + 1;
  return [
    ...tree.children.map((child): [string, string] => ["child", line(child)]),
    ...tree.shared.map((child): [string, string] => ["shared child", line(child, ", counted in the session this was forked from")]),
    ["total cost", `${ledgerText(tree.total)} over this session and ${counted(sessions - 1, "child session")}`],
  ];
}

/** A ledger's cost and tokens on one line. */
function ledgerText(ledger: Ledger): string {
  const cost =
    ledger.lines.length === 0
      ? dollarsText(0)
      : costText(
          ledger.cost,
          ledger.unpriced,
          ledger.lines.some((line) => line.cost !== undefined),
        );
  return `${cost} for ${usageText(ledger.usage)}`;
}

/** The tree's cost as `show --json` gives it: the sessions below, those shared, and the total. */
export function treeJson(tree: TreeCost) {
  const cost = (ledger: Ledger) => (ledger.lines.some((line) => line.cost !== undefined) || ledger.lines.length === 0 ? ledger.cost : null);
  const child = ({ runId, depth, status, ledger }: ChildCost) => ({
    id: runId,
    depth,
    status,
    ...usageJson(ledger.usage),
    cost_usd: cost(ledger),
    unpriced: ledger.unpriced,
  });
  return {
    children: tree.children.map(child),
    shared_children: tree.shared.map(child),
    total: { sessions: tree.children.length + 1, ...usageJson(tree.total.usage), cost_usd: cost(tree.total), unpriced: tree.total.unpriced },
  };
}

/** The show's lines of the ledger: one per model and kind, then the total. */
export function ledgerLines(ledger: Ledger, digest: RunDigest): [string, string][] {
  const fields: [string, string][] = ledger.lines.map((line) => [
    line.kind === "agent" ? `cost ${line.model}` : `cost ${line.model} (compaction)`,
    `${line.cost === undefined ? "no price" : dollarsText(line.cost)} for ${usageText(line.usage)}`,
  ]);
  const anyPriced = ledger.lines.some((line) => line.cost !== undefined);
  fields.push(["cost", ledger.lines.length === 0 ? dollarsText(0) : costText(ledger.cost, ledger.unpriced, anyPriced)]);
  if (digest.origin !== undefined) {
    fields.push([
      "copied",
      `records 2 to ${digest.origin.through_seq} from ${digest.origin.run_id} (${digest.origin.kind}), counted there: ${usageText(digest.copied)}`,
    ]);
  }
  return fields;
}

function usageText(usage: TokenUsage): string {
  return `${usage.calls} call${usage.calls === 1 ? "" : "s"}: ${tokensText(usage.inTokens, usage.outTokens, usage.cacheReadTokens, usage.cacheWriteTokens)}`;
}

/** Token counts as show, the ledger, stats and the HTML page name them: one name, "cache write" (Anthropic's, and the pricing key's), for tokens written to the prompt cache. */
export function tokensText(inTokens: number, outTokens: number, cacheReadTokens: number, cacheWriteTokens: number): string {
  return `in ${inTokens}, out ${outTokens}, cache read ${cacheReadTokens}, cache write ${cacheWriteTokens}`;
}

/**
 * The `ledger` field of `show --json`, from the session's digest: totals by model, and
 * every call. Its `calls` are STREAMED: `ledgerCalls` writes them as the records are read.
 */
export function ledgerJson(digest: RunDigest, prices: PriceTable) {
  const ledger = ledgerOf([digest], prices);
  return {
    prices_as_of: PRICES_AS_OF,
    cost_usd: ledger.lines.some((line) => line.cost !== undefined) || ledger.lines.length === 0 ? ledger.cost : null,
    unpriced: ledger.unpriced,
    models: ledger.lines.map((line) => ({ model: line.model, kind: line.kind, ...usageJson(line.usage), cost_usd: line.cost ?? null })),
    copied:
      digest.origin === undefined
        ? null
        : { from: digest.origin.run_id, through_seq: digest.origin.through_seq, kind: digest.origin.kind, ...usageJson(digest.copied) },
    calls: STREAMED,
  };
}

/** The ledger's `calls`, one for each model call the records hold, priced. */
export function ledgerCalls({ origin }: RunDigest, prices: PriceTable): StreamedArray {
  const originSeq = origin === undefined ? 0 : origin.through_seq + 1;
  return async function* (records) {
    for await (const call of pricedCalls(records, prices, originSeq)) {
      yield { seq: call.seq, kind: call.kind, model: call.model, copied: call.copied, ...usageJson(call.usage), cost_usd: call.cost ?? null };
    }
  };
}

/** Token counts as the JSON shapes name them. */
export function usageJson(usage: TokenUsage) {
  return {
    calls: usage.calls,
    in_tokens: usage.inTokens,
    out_tokens: usage.outTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
  };
}
