// `session show --json` written as it is read: the run is tallied in one pass, then the
// arrays that grow with it (the messages, the ledger's calls) are written one item at a
// time from passes of their own, so a journal of any size prints in bounded memory, with
// the fields and their order of the folded state (session-json.ts).
import type { JournalRecord } from "../../runstate/records/records.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import { HistoryStream } from "../../runstate/views/message-stream.js";
import { ModelView } from "../../runstate/views/model-view.js";
import type { RunTally } from "../../runstate/views/run-tally.js";
import type { PacedOutput } from "./paced-output.js";
import { stateJson } from "./session-json.js";
import { trustedKeys } from "../../trust/keyring.js";

/** A field written as an array whose items a pass over the records gives, one at a time. */
export type StreamedArray = (records: AsyncIterable<JournalRecord>) => AsyncIterable<unknown>;

/** What stands for a streamed array in the JSON text until it is written: no JSON value holds a NUL. */
const PLACEHOLDER = (name: string) => `\u0000${name}\u0000`;

/**
 * Writes the state as `JSON.stringify(stateJson(fold), null, 2)` would, reading the run's
 * records up to the tally's last; the fields of `more` go before the messages, and an
 * array in them given as a StreamedArray (a field of an object in `more`) is written as
 * it is read.
 */
export async function writeStateJson(
  store: Store,
  tally: RunTally,
  summary: RunSummary,
  out: PacedOutput,
  more: Record<string, unknown> = {},
  streamed: Record<string, StreamedArray> = {},
): Promise<void> {
  const { messages: _, ...state } = stateJson({ ...tally, messages: [] }, summary, trustedKeys());
  const arrays: Record<string, StreamedArray> = { ...streamed, messages: (records) => modelMessages(tally, records) };
  const text = JSON.stringify(
    { ...state, ...more, messages: PLACEHOLDER("messages") },
    (key, value: unknown) => (value === STREAMED ? PLACEHOLDER(key) : value),
    2,
  );
  // Each placeholder stands alone as a string value on its line: `<indent>"name": "\u0000name\u0000"`.
  const pieces = text.split(/"\\u0000([a-z_]+)\\u0000"/);
  for (let index = 0; index < pieces.length; index++) {
    const piece = pieces[index] as string;
    if (index % 2 === 0) {
      await out.write(piece);
      continue;
    }
    const stream = arrays[piece];
    if (stream === undefined) throw new Error(`no stream for the field ${piece}`);
    const indent = `${/\n( *)"[a-z_]+": $/.exec(pieces[index - 1] as string)?.[1] ?? ""}  `;
    await writeArray(stream(recordsThrough(store, tally)), indent, out);
  }
  await out.write("\n");
  await out.flush();
}

/** Marks a field of `more` whose array is streamed under the same name in `streamed`. */
export const STREAMED: unique symbol = Symbol("streamed");

async function writeArray(items: AsyncIterable<unknown>, indent: string, out: PacedOutput): Promise<void> {
  let written = 0;
  for await (const item of items) {
    await out.write(`${written++ === 0 ? "[\n" : ",\n"}${JSON.stringify(item, null, 2).replace(/^/gm, indent)}`);
  }
  await out.write(written === 0 ? "[]" : `\n${indent.slice(2)}]`);
}

async function* recordsThrough(store: Store, tally: RunTally): AsyncIterable<JournalRecord> {
  for await (const record of store.readRecords(tally.meta.run_id)) {
    if (record.seq > tally.lastSeq) return;
    yield record;
  }
}

/** The messages the model is sent, as the fold gives them, completed one at a time. */
async function* modelMessages(tally: RunTally, records: AsyncIterable<JournalRecord>): AsyncIterable<unknown> {
  const history = new HistoryStream();
  const view = new ModelView(tally.compactions);
  for await (const record of records) for (const { message, seq } of history.push(record)) yield* view.take(message, seq);
  for (const { message, seq } of history.end()) yield* view.take(message, seq);
  yield* view.end();
}
