// `fisk-ai session rm`: remove sessions.
import type { Options } from "../context/options.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../context/command-io.js";
import { forEachId, ids, type SessionContext } from "../context/session-context.js";

type TreeRemoval = typeof import("../../ledger/tree-removal.js");

export const options = {
  force: { flag: "--force", help: "remove a child session even though its parent can still resume into it" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const store = await sessionStore(values);
  return removeSessions(store, ids(positionals, "rm"), io, { force: values.force === true });
}

/**
 * Removes each session with its child sessions. A child alone is refused while its parent
 * can still resume into it, unless `force`; named with its parent, it goes with the parent.
 */
async function removeSessions(store: Store, runIds: string[], streams: CommandIO, options: { force: boolean }): Promise<number> {
  const [tree, { counted }] = await Promise.all([import("../../ledger/tree-removal.js"), import("../../transcript/counted.js")]);
  const summaries = await store.list();
  // A session named with one of the sessions above it goes with that one.
  const parents = new Map(summaries.map((summary) => [summary.runId, summary.meta?.parent?.run_id]));
  const aboveNamed = (runId: string) => {
    const seen = new Set<string>();
    for (let up = parents.get(runId); up !== undefined && !seen.has(up); up = parents.get(up)) {
      if (runIds.includes(up)) return true;
      seen.add(up);
    }
    return false;
  };
  const removed = new Set<string>();
  return forEachId(runIds, streams, async (runId) => {
    if (removed.has(runId) || aboveNamed(runId)) return EXIT.completed;
    const summary = summaries.find((each) => each.runId === runId);
    const refusal = summary === undefined || options.force ? undefined : await refusedChild(store, summary, tree.resumingParent);
    if (refusal !== undefined) {
      streams.stderr.write(`fisk-ai: ${refusal}\n`);
      return EXIT.childInUse;
    }
    const children = await tree.removeTree(store, runId, summaries);
    for (const id of [runId, ...children]) removed.add(id);
    streams.stdout.write(`removed ${runId}${children.length === 0 ? "" : ` and its ${counted(children.length, "child session")}`}\n`);
    return EXIT.completed;
  });
}

/** Why a child may not be removed alone: its parent can still resume into it. */
async function refusedChild(store: Store, child: RunSummary, resumingParent: TreeRemoval["resumingParent"]): Promise<string | undefined> {
  const parent = await resumingParent(store, child);
  if (parent === undefined) return undefined;
  return `session ${child.runId} is a child of session ${parent.runId}, whose call ${parent.callId} can still resume into it: remove ${parent.runId} (which removes its children), or this child alone with --force`;
}
