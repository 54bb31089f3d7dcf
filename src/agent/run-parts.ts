// Where a process's part of a run begins, which the resume that journals it and a tracer
// that names its span before it starts (for the MCP servers' trace context) both ask.
import type { RunState } from "../runstate/views/fold.js";

/**
 * The seq of the first record a resume of a run in `state` journals, which names its part:
 * the one after the journal's last, or 1 when no process took the run anywhere yet (a
 * submitted run no model call has touched, which goes on with its first part).
 */
export function partFirstSeq(state: Pick<RunState, "nextIteration" | "terminal" | "lastSeq">): number {
  return state.nextIteration > 0 || state.terminal !== undefined ? state.lastSeq + 1 : 1;
}
