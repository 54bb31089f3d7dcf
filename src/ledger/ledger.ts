// The ledger: tokens and their cost, by model, over one session or many. It reads run
// digests (what a store keeps beside each summary), so a ledger of a whole store reads
// no journal. Records a fork or an import copied are the original's: a digest does not
// count them, so they are counted once however many copies there are.
import { addUsage, callOf, emptyUsage, type LedgerCall, type RunDigest, type TokenUsage } from "../runstate/views/run-digest.js";
import { PROTOCOLS, type JournalRecord } from "../runstate/records/records.js";
import { costOf, priceOf, type PriceTable } from "./prices.js";

/** The calls of one model and kind, and their cost. */
export interface LedgerLine {
  /** The model. */
  model: string;
  /** `agent`: the agent's own calls; `compaction`: the summarizing calls of compactions. */
  kind: LedgerCall["kind"];
  /** Their tokens. */
  usage: TokenUsage;
  /** What they cost in US dollars, or undefined when the model has no price. */
  cost: number | undefined;
}

/** Tokens and cost summed over some sessions. */
export interface Ledger {
  /** One line a model and kind, the most expensive first (unpriced ones last, by tokens). */
  lines: LedgerLine[];
  /** Every line's tokens summed. */
  usage: TokenUsage;
  /** The cost of the lines that have a price, in US dollars. */
  cost: number;
  /** The models with calls but no price: their tokens are in `usage`, and no cost is made up for them. */
  unpriced: string[];
}

/** The ledger of `digests`, priced by `prices` (agent.yaml's) over the shipped table. */
export function ledgerOf(digests: Iterable<RunDigest>, prices: PriceTable = {}): Ledger {
  const byKey = new Map<string, { model: string; kind: LedgerCall["kind"]; usage: TokenUsage }>();
  const add = (kind: LedgerCall["kind"], usages: Record<string, TokenUsage>) => {
    for (const [model, usage] of Object.entries(usages)) {
      const key = `${kind}\u0000${model}`;
      let line = byKey.get(key);
      if (line === undefined) byKey.set(key, (line = { model, kind, usage: emptyUsage() }));
      addUsage(line.usage, usage);
    }
  };
  for (const digest of digests) {
    add("agent", digest.calls);
    add("compaction", digest.compactions);
  }
  return priced([...byKey.values()], prices);
}

/** One model call of a session's ledger, priced. */
export interface PricedCall extends LedgerCall {
  /** What it cost in US dollars, or undefined when its model has no price. */
  cost: number | undefined;
  /** Its record was copied from another session (before an origin record): that session's ledger counts it. */
  copied: boolean;
}

/** Each model call a run's records hold, with its cost: the ledger of one session, call by call. */
export function callsOf(records: readonly JournalRecord[], prices: PriceTable = {}): PricedCall[] {
  const first = records[0];
  const model = first?.protocol === PROTOCOLS.meta ? first.meta.fingerprint.model : "";
  const originSeq = records.findLast((record) => record.protocol === PROTOCOLS.origin)?.seq ?? 0;
  return records.flatMap((record) => pricedCall(record, model, prices, originSeq) ?? []);
}

/**
 * callsOf over records as they are read, holding none of them: for a journal of any size.
 * `originSeq` is the seq of the run's latest origin record (0 for none), which its digest knows.
 */
export async function* pricedCalls(records: AsyncIterable<JournalRecord>, prices: PriceTable, originSeq: number): AsyncIterable<PricedCall> {
  let model = "";
  for await (const record of records) {
    if (record.protocol === PROTOCOLS.meta) model = record.meta.fingerprint.model;
    const call = pricedCall(record, model, prices, originSeq);
    if (call !== undefined) yield call;
  }
}

/** The call a record made, priced; every record before the latest origin was copied from another session. */
export function pricedCall(record: JournalRecord, model: string, prices: PriceTable, originSeq: number): PricedCall | undefined {
  const call = callOf(record, model);
  if (call === undefined) return undefined;
  const price = priceOf(call.model, prices);
  return { ...call, cost: price === undefined ? undefined : costOf(call.usage, price), copied: record.seq < originSeq };
}

function priced(lines: { model: string; kind: LedgerCall["kind"]; usage: TokenUsage }[], prices: PriceTable): Ledger {
  const usage = emptyUsage();
  let cost = 0;
  const unpriced = new Set<string>();
  const result = lines.map((line): LedgerLine => {
    addUsage(usage, line.usage);
    const price = priceOf(line.model, prices);
    if (price === undefined) {
      unpriced.add(line.model);
      return { ...line, cost: undefined };
    }
    const lineCost = costOf(line.usage, price);
    cost += lineCost;
    return { ...line, cost: lineCost };
  });
  result.sort((a, b) => (b.cost ?? -1) - (a.cost ?? -1) || tokensOf(b.usage) - tokensOf(a.usage) || a.model.localeCompare(b.model));
  return { lines: result, usage, cost, unpriced: [...unpriced].sort() };
}

/** Every tier summed. */
export function tokensOf(usage: TokenUsage): number {
  return usage.inTokens + usage.outTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
