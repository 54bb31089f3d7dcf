// `fisk-ai run --resume` without an id: on a terminal, a numbered list of the sessions a
// resume could continue, newest first, to choose from: id, status, age and title (else
// prompt) in columns, each line cut to the terminal's width.
import { createInterface } from "node:readline/promises";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { InterruptedError, UsageError } from "../cli-errors.js";
import { table, widthOf } from "../text/ledger.js";
import { nameText } from "../../transcript/session-name.js";
import { resumableSessions } from "../../session/list-sessions.js";
import { ageText, statusText } from "../text/session-list.js";

const SHOWN = 20;

/** Offers the sessions started in `here`, or every session when it is undefined (--all). */
export async function pickSession(store: Store, stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream, here: string | undefined): Promise<string> {
  if (!stdin.isTTY || !stderr.isTTY) {
    throw new UsageError("--resume needs a session id when there is no terminal to pick one on: 'fisk-ai session ls' lists them, or use --continue");
  }
  const sessions = (await resumableSessions(store, { here })).slice(0, SHOWN);
  if (sessions.length === 0) {
    throw new UsageError(
      here === undefined
        ? "there is no session to resume: 'fisk-ai session ls' lists them all"
        : `there is no session to resume in ${here}: 'fisk-ai run --resume --all' offers the sessions of every directory`,
    );
  }
  stderr.write(pickerTable(sessions, Date.now(), widthOf(stderr)));
  const prompt = createInterface({ input: stdin, output: stderr });
  // Ctrl-C at the question chooses nothing, as Ctrl-C does elsewhere: exit 130.
  const interrupt = new AbortController();
  prompt.on("SIGINT", () => interrupt.abort());
  try {
    const asked = prompt.question(`Resume which session? [1-${sessions.length}] `, { signal: interrupt.signal });
    const answer = (
      await asked.catch((error: unknown) => {
        if (interrupt.signal.aborted) throw new InterruptedError("interrupted: no session chosen");
        throw error;
      })
    ).trim();
    const chosen = sessions[Number(answer) - 1];
    if (!/^\d+$/.test(answer) || chosen === undefined) throw new UsageError(`no session chosen (${JSON.stringify(answer)})`);
    return chosen.runId;
  } finally {
    prompt.close();
  }
}

/** The numbered rows under a header, their columns lined up, no line wider than `width`. */
function pickerTable(sessions: readonly RunSummary[], now: number, width: number): string {
  const numberWidth = String(sessions.length).length;
  const rows = sessions.map((session, index) => [
    String(index + 1).padStart(numberWidth),
    session.runId,
    statusText(session),
    ageText(now - Date.parse(session.updated)),
    nameText(session),
  ]);
  return table([["#".padStart(numberWidth), "ID", "STATUS", "AGE", "TITLE/PROMPT"], ...rows], width);
}
