// What a stored session is, besides its conversation: `session show`'s header and JSON, and
// what an HTTP handler returns for one session. The journal is tallied as it is read, so a
// session of any size is shown in bounded memory; the conversation is read apart from it.
import { ledgerOf, type Ledger } from "../ledger/ledger.js";
import type { PriceTable } from "../ledger/prices.js";
import { storedDigest, treeCostFor, type TreeCost } from "../ledger/tree-ledger.js";
import type { ApprovalDecisionPayload, ApprovalRequestPayload } from "../runstate/records/records.js";
import type { RunSummary, Store } from "../runstate/store/store.js";
import type { RunDigest } from "../runstate/views/run-digest.js";
import { tallyRecords, type RunTally } from "../runstate/views/run-tally.js";
import { countedDecision, uncountedDecisions, type UncountedDecision } from "../trust/counted-decisions.js";
import { installationKeys } from "../trust/installation-keys.js";
import { trustedKeys } from "../trust/keyring.js";
import { foreignReason } from "../trust/session-trust.js";

/** A parked call and the decision on it that counts here, if one does. */
export interface ShownApproval {
  /** The parked call's approval request. */
  request: ApprovalRequestPayload;
  /** The decision on it that counts here, else undefined. */
  decision: ApprovalDecisionPayload | undefined;
}

/** One session as `showSession` gives it. */
export interface ShownSession {
  /** Its summary as the store lists it. */
  summary: RunSummary;
  /** The fold of its records up to `tally.lastSeq`, without the messages. */
  tally: RunTally;
  /** Its title, origin, bytes and tokens: the store's digest, or one read from its journal. */
  digest: RunDigest;
  /** The prices it was costed with: the shipped table's, under those `options.prices` gave. */
  prices: PriceTable;
  /** Its tokens and cost by model. */
  ledger: Ledger;
  /** With child sessions: each one's cost and the total; else undefined. */
  tree: TreeCost | undefined;
  /** Why the session is foreign here (docs/security.md), else undefined. */
  foreign: string | undefined;
  /** The parked calls of its pending batch, each with the decision that counts. */
  approvals: ShownApproval[];
  /** Decisions journaled in its pending batch that do not count here, and why. */
  uncounted: UncountedDecision[];
}

/** How `showSession` prices a session and checks its decisions. */
export interface ShowSessionOptions {
  /** The prices over the shipped table, given the session's summary (its recorded agent.yaml is `summary.meta?.config`). */
  prices?: (summary: RunSummary) => PriceTable | Promise<PriceTable>;
  /** Where the keys that sign decisions are found (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Reads the session `runId` of `store`: its state, its cost and what of it counts here (ERR_NOT_FOUND when there is none). */
export async function showSession(store: Store, runId: string, options: ShowSessionOptions = {}): Promise<ShownSession> {
  const tally = await tallyRecords(runId, store.readRecords(runId));
  const summary = await store.summarize(runId);
  const digest = await storedDigest(store, summary);
  const prices = (await options.prices?.(summary)) ?? {};
  const tree = await treeCostFor(store, summary, digest, prices);
  const foreign = foreignReason(tally.meta, digest.imported, installationKeys(store, { env: options.env ?? process.env }));
  const keyring = trustedKeys(options.env);
  const batch = tally.pending === undefined ? undefined : { runId, pending: tally.pending };
  const approvals =
    batch === undefined
      ? []
      : [...batch.pending.approvals.values()].map(({ request }) => ({ request, decision: countedDecision(batch, request.tool_use_id, keyring) }));
  const uncounted = batch === undefined ? [] : uncountedDecisions(batch, keyring);
  return { summary, tally, digest, prices, ledger: ledgerOf([digest], prices), tree, foreign, approvals, uncounted };
}
