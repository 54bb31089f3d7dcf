// `session show --json` written as it is read: the run is tallied in one pass, then its
// messages are read again and written one at a time, so a journal of any size prints in
// bounded memory, with the fields and their order of the folded state (session-json.ts).
import type { RunSummary, Store } from "../runstate/store.js";
import { HistoryStream, ModelView, type CompletedMessage } from "../runstate/message-stream.js";
import type { RunTally } from "../runstate/run-tally.js";
import type { PacedOutput } from "./paced-output.js";
import { stateJson } from "./session-json.js";

const MESSAGES_LAST = '  "messages": []\n}';

/**
 * Writes the state as `JSON.stringify(stateJson(fold), null, 2)` would, reading the run's
 * records up to the tally's last; the fields of `more` go before the messages.
 */
export async function writeStateJson(store: Store, tally: RunTally, summary: RunSummary, out: PacedOutput, more: Record<string, unknown> = {}): Promise<void> {
  const { messages, ...state } = stateJson({ ...tally, messages: [] }, summary);
  const head = JSON.stringify({ ...state, ...more, messages }, null, 2);
  if (!head.endsWith(MESSAGES_LAST)) throw new Error("stateJson must end with its messages, which are written last as they are read");
  await out.write(`${head.slice(0, -MESSAGES_LAST.length)}  "messages": [`);
  const history = new HistoryStream();
  const view = new ModelView(tally.compactions);
  let written = 0;
  const write = async (completed: readonly CompletedMessage[]) => {
    for (const message of completed.flatMap((each) => view.take(each))) {
      await out.write(`${written++ === 0 ? "\n" : ",\n"}${JSON.stringify(message, null, 2).replace(/^/gm, "    ")}`);
    }
  };
  for await (const record of store.readRecords(tally.meta.run_id)) {
    if (record.seq > tally.lastSeq) break;
    await write(history.push(record));
  }
  await write(history.end());
  await out.write(written === 0 ? "]\n}\n" : "\n  ]\n}\n");
  await out.flush();
}
