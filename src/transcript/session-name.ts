// What names a session to a person, in a list, a tree or a page.
import type { RunSummary } from "../runstate/store/store.js";

/** What names a session to a person: its title where it has one, else its prompt, on one line. */
export function nameText(summary: RunSummary): string {
  return oneLine(summary.problem ?? summary.digest?.title ?? summary.meta?.prompt ?? "");
}

/** Text on one line; most is already, and the test costs less than the rewrite. */
export function oneLine(text: string): string {
  return /\s\s|[^\S ]|^\s|\s$/.test(text) ? text.replace(/\s+/g, " ").trim() : text;
}
