// The durations a transcript shows beside calls whose records kept their times (durationText):
// a session with them, and a filter that takes them out, for tests of something else over
// sessions run for real, whose times vary.
import type { JournalRecord } from "../../src/index.js";
import type { RecordEntry } from "../../src/journal.js";
import { assistantEntry, journalOf, terminalEntry, toolResultEntry } from "./record-builders.js";

/** A model call of 2350 ms (shown 2.4 s) and a tool of 312 ms. */
export const TIMES = {
  call: ["2026-01-02T10:00:00.000Z", "2026-01-02T10:00:02.350Z"],
  tool: ["2026-01-02T10:00:02.400Z", "2026-01-02T10:00:02.712Z"],
} satisfies Record<string, [string, string]>;

/** A turn calling `note`, its result, and the answer: with the times given, or none. */
export function timedSession(runId: string, times: { call?: [string, string]; tool?: [string, string] }): JournalRecord[] {
  const timed = <T extends RecordEntry>(entry: T, key: "assistant" | "tool_result", pair: [string, string] | undefined): T =>
    pair === undefined ? entry : ({ ...entry, [key]: { ...(entry as unknown as Record<string, object>)[key], started_at: pair[0], ended_at: pair[1] } } as T);
  return journalOf(
    runId,
    timed(assistantEntry(0, "Noting.", ["toolu_1"]) as RecordEntry, "assistant", times.call),
    timed(toolResultEntry("toolu_1", "noted") as RecordEntry, "tool_result", times.tool),
    assistantEntry(1, "Done."),
    terminalEntry("completed"),
  );
}
const DURATION = String.raw`\d+ ms|\d+\.\d s|\d+m \d\ds`;

export function withoutDurations(text: string): string {
  return text.replace(new RegExp(`^\\(model call, (?:${DURATION})\\)\\n`, "gm"), "").replace(new RegExp(` \\((?:${DURATION})\\)(?=: )`, "g"), "");
}
