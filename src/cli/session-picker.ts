// `fisk-ai run --resume` without an id: on a terminal, a numbered list of the sessions a
// resume could continue, newest first, to choose from.
import { createInterface } from "node:readline/promises";
import type { Store } from "../runstate/store/store.js";
import { UsageError } from "./cli-errors.js";
import { resumableSessions, statusText, timeText } from "./session-list.js";

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
  sessions.forEach((session, index) => {
    const prompt = (session.meta?.prompt ?? "").replace(/\s+/g, " ").slice(0, 60);
    stderr.write(`${String(index + 1).padStart(3)}  ${session.runId}  ${statusText(session)}  ${timeText(session.updated)}  ${prompt}\n`);
  });
  const prompt = createInterface({ input: stdin, output: stderr });
  try {
    const answer = (await prompt.question(`Resume which session? [1-${sessions.length}] `)).trim();
    const chosen = sessions[Number(answer) - 1];
    if (!/^\d+$/.test(answer) || chosen === undefined) throw new UsageError(`no session chosen (${JSON.stringify(answer)})`);
    return chosen.runId;
  } finally {
    prompt.close();
  }
}
