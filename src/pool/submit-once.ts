// Submitting a run at most once per key: the key names the session (a hash of its scope
// and the key), so the store's own refusal of an existing id is what keeps a retried
// request from starting a second run, across restarts and servers, with nothing kept
// beside the sessions. The key is kept as long as its session is.
import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { newRunMeta } from "../agent/agent-loop.js";
import { agentSpec } from "../agent/agent-spec.js";
import { isRunStateError } from "../runstate/errors.js";
import { submitRun, type SubmitRunOptions, type SubmitStart } from "./submit-run.js";

/** The id of the session an idempotency key starts in `scope` (a tenant): the same for the same key, another for another scope. */
export function idempotentRunId(scope: string, key: string): string {
  return `k${createHash("sha256").update(scope).update("\n").update(key).digest("hex").slice(0, 40)}`;
}

/** What submitOnce did: started the run, found the one an earlier submission started, or found another run under that id. */
export type SubmittedOnce = { runId: string; outcome: "started" | "replayed" | "conflict" };

/**
 * Submits `start` under `start.runId` unless that session exists: then it is `replayed`
 * when it was started with the same agent and prompt, else a `conflict`.
 */
export async function submitOnce(options: SubmitRunOptions, start: SubmitStart & { runId: string }): Promise<SubmittedOnce> {
  try {
    return { runId: await submitRun(options, start), outcome: "started" };
  } catch (error) {
    if (!isRunStateError(error, "ERR_EXISTS")) throw error;
  }
  const { meta } = await options.store.summarize(start.runId, { digest: false });
  const wanted = newRunMeta(agentSpec(options.agent), { prompt: start.prompt });
  const same = meta !== undefined && meta.prompt === start.prompt && isDeepStrictEqual(meta.fingerprint, wanted.fingerprint);
  return { runId: start.runId, outcome: same ? "replayed" : "conflict" };
}
