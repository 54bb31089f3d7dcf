// A title as the command line takes it (`run --title`, `session rename`): one line of 1 to
// TITLE_MAX_LENGTH characters, checked before any journal is touched.
import { TITLE_MAX_LENGTH } from "../../runstate/records/records.js";
import { UsageError } from "../cli-errors.js";

/** `title`, or a UsageError naming `what` and what a title may be. */
export function checkedTitle(title: string, what: string): string {
  if (title.trim() === "") throw new UsageError(`${what} is empty: give a few words that name the session`);
  if (/[\n\r]/.test(title)) throw new UsageError(`${what} is more than one line: a title is shown on one`);
  if (title.length > TITLE_MAX_LENGTH) throw new UsageError(`${what} is ${title.length} characters: a title is at most ${TITLE_MAX_LENGTH}`);
  return title;
}
