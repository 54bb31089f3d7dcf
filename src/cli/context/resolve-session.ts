// A session named on the command line by its id or by its title: `--resume`, `session
// show` and `session rename` take either, and a title that names more than one session
// is refused with the candidates listed, never guessed between.
import { RunStateError } from "../../runstate/errors.js";
import { assertRunId, isValidRunId } from "../../runstate/records/run-id.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { AmbiguousTitleError } from "../cli-errors.js";

/**
 * The id of the session `text` names: a session with that id, else the one whose title
 * is `text`, else the one whose title is `text` in any case, else the one whose title
 * holds it (any case). ERR_NOT_FOUND when none does
 * (ERR_INVALID_ID when `text` could not be an id), AmbiguousTitleError when more than one does.
 */
export async function resolveSession(store: Store, text: string): Promise<string> {
  let notFound: unknown;
  if (isValidRunId(text)) {
    try {
      return (await store.summarize(text, { digest: false })).runId;
    } catch (error) {
      if (!(error instanceof RunStateError && error.code === "ERR_NOT_FOUND")) throw error;
      notFound = error;
    }
  }
  const titled = (await store.list()).filter((summary) => summary.digest?.title !== undefined);
  const lower = text.toLowerCase();
  const tiers = [(title: string) => title === text, (title: string) => title.toLowerCase() === lower, (title: string) => title.toLowerCase().includes(lower)];
  const matches = tiers.map((fits) => titled.filter((summary) => fits(summary.digest?.title ?? ""))).find((found) => found.length > 0) ?? [];
  const [only] = matches;
  if (only !== undefined && matches.length === 1) return only.runId;
  if (matches.length > 1) throw new AmbiguousTitleError(text, candidates(matches));
  // Neither an id nor a title: said as an unknown id, or as an invalid one (which no session can have).
  if (notFound === undefined) assertRunId(text);
  throw notFound;
}

function candidates(matches: RunSummary[]): string {
  const newest = [...matches].sort((a, b) => (a.updated < b.updated ? 1 : -1));
  const shown = newest.slice(0, 5).map((summary) => `${summary.runId} (${JSON.stringify(summary.digest?.title)})`);
  return `${shown.join(", ")}${newest.length > shown.length ? ` and ${newest.length - shown.length} more` : ""}`;
}
