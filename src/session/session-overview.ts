// What one session is at a glance, for a client that shows it: its summary, what each
// model call cost and the total, the sessions its calls started, and the calls waiting
// for a decision.
import { waitingCalls, type WaitingCall } from "../agent/waiting-calls.js";
import { ledgerOf, pricedCalls, type Ledger, type PricedCall } from "../ledger/ledger.js";
import type { PriceTable } from "../ledger/prices.js";
import { sessionsOf, treeOf } from "../ledger/session-tree.js";
import { storedDigest } from "../ledger/tree-ledger.js";
import type { RunStatus, RunSummary, Store } from "../runstate/store/store.js";
import { installationKeys } from "../trust/installation-keys.js";

/** A session below another, and how far below. */
export interface ChildSession {
  runId: string;
  status: RunStatus;
  /** 1 for a child, 2 for a grandchild, ... */
  depth: number;
}

/** One session at a glance. */
export interface SessionOverview {
  summary: RunSummary;
  /** Each model call, priced: the cost turn by turn. */
  calls: PricedCall[];
  /** The session's own calls summed. */
  total: Ledger;
  /** The sessions below it, each after its parent. */
  children: ChildSession[];
  /** The calls waiting for a decision. */
  waiting: WaitingCall[];
}

/** Session `runId` at a glance; ERR_NOT_FOUND for no such session. */
export async function sessionOverview(store: Store, runId: string, prices: PriceTable = {}): Promise<SessionOverview> {
  const summary = await store.summarize(runId);
  const digest = await storedDigest(store, summary);
  const calls: PricedCall[] = [];
  for await (const call of pricedCalls(store.readRecords(runId), prices, digest.origin === undefined ? 0 : digest.origin.through_seq + 1)) calls.push(call);
  const tree = treeOf(await store.list(), runId);
  const children = (tree?.children ?? []).flatMap(sessionsOf).map(({ summary: child, depth }) => ({ runId: child.runId, status: child.status, depth }));
  const waiting = summary.status === "awaiting_approval" ? waitingCalls(await store.load(runId), installationKeys(store).trusted) : [];
  return { summary, calls, total: ledgerOf([digest], prices), children, waiting };
}
