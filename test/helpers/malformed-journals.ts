// The malformed journals of the fold and verify tests, as whole files: each breaks one rule
// at a known line, so every reader of a session can be held to refuse it there.
import type { JournalRecord } from "../../src/index.js";
import { encodeRecord, PROTOCOLS, type RecordEntry } from "../../src/journal.js";
import {
  approvalRequestEntry,
  assistantEntry,
  compactionEntry,
  compactionUndoEntry,
  decisionEntry,
  journalOf,
  metaRecord,
  resumedEntry,
  terminalEntry,
  toolResultEntry,
  twoBatchConversation,
  userEntry,
} from "./record-builders.js";

/** A journal file's text that some rule refuses, and the line it breaks the rule on. */
export interface MalformedJournal {
  name: string;
  text: string;
  line: number;
}

const conversation = twoBatchConversation();
const parked: RecordEntry[] = [
  assistantEntry(0, "may I?", ["toolu_1", "toolu_2"]),
  toolResultEntry("toolu_1"),
  approvalRequestEntry("toolu_2"),
  terminalEntry("awaiting_approval"),
];

/** Lines of records, given as records or as raw objects a builder would not make. */
function lines(records: readonly unknown[]): string {
  return records.map((record) => encodeRecord(record as JournalRecord)).join("");
}

function folded(name: string, line: number, ...entries: RecordEntry[]): MalformedJournal {
  return { name, line, text: lines(journalOf(name, ...entries)) };
}

/** The journals, each of session `name`, where the file store keeps it as `<name>.json`. */
export function malformedJournals(): MalformedJournal[] {
  const mismatched = toolResultEntry("toolu_1");
  mismatched.tool_result.result.tool_use_id = "toolu_2";
  const repeated: unknown[] = journalOf("repeated-seq", assistantEntry(0, "a"), terminalEntry("completed"));
  repeated[2] = { ...(repeated[2] as JournalRecord), seq: 2 };
  return [
    { name: "not-json", line: 3, text: `${lines(journalOf("not-json", assistantEntry(0, "a", ["toolu_1"])))}{not json\n` },
    { name: "no-meta", line: 1, text: lines([{ seq: 1, ...terminalEntry("completed") }]) },
    { name: "second-meta", line: 2, text: lines([metaRecord("second-meta"), { ...metaRecord("second-meta"), seq: 2 }]) },
    { name: "repeated-seq", line: 3, text: lines(repeated) },
    { name: "unknown-protocol", line: 2, text: lines([metaRecord("unknown-protocol"), { seq: 2, protocol: "io.example.session.bogus", bogus: {} }]) },
    { name: "missing-payload", line: 2, text: lines([metaRecord("missing-payload"), { seq: 2, protocol: PROTOCOLS.assistant }]) },
    folded("result-first", 2, toolResultEntry("toolu_1")),
    folded("unknown-call", 3, assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_9")),
    folded("earlier-turn", 5, assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_1"), assistantEntry(1, "", ["toolu_2"]), toolResultEntry("toolu_1")),
    folded("second-result", 4, assistantEntry(0, "", ["toolu_1", "toolu_2"]), toolResultEntry("toolu_1"), toolResultEntry("toolu_1")),
    folded("second-result-after", 4, assistantEntry(0, "", ["toolu_1"]), toolResultEntry("toolu_1"), toolResultEntry("toolu_1")),
    folded("other-id", 3, assistantEntry(0, "", ["toolu_1", "toolu_2"]), mismatched),
    folded("unanswered-turn", 3, assistantEntry(0, "", ["toolu_1"]), assistantEntry(1, "again")),
    folded("two-turns", 3, assistantEntry(0, "one"), assistantEntry(1, "two")),
    folded("early-follow-up", 3, assistantEntry(0, "", ["toolu_1"]), userEntry("hello?")),
    folded("split-cut", 8, ...conversation, compactionEntry(1, 2)),
    folded("miscounted-trim", 8, ...conversation, compactionEntry(1, 4, { trimmed: [{ tool_use_id: "toolu_2", kept_chars: 1, cut_chars: 1 }] })),
    folded("lost-trim", 8, ...conversation, compactionEntry(1, 4, { trimmed: [{ tool_use_id: "toolu_1", kept_chars: 1, cut_chars: 49 }] })),
    folded("wrong-undo", 10, ...conversation, compactionEntry(1, 3), compactionEntry(4, 5), compactionUndoEntry(8)),
    // A denial always counts, so nothing may follow it (an unsigned approval may be decided again).
    folded("second-decision", 7, ...parked, decisionEntry("toolu_2", "deny"), decisionEntry("toolu_2", "approve")),
    folded("undecided-result", 6, ...parked, toolResultEntry("toolu_2")),
    folded("idle-resumed", 3, assistantEntry(0, "a", ["toolu_1"]), resumedEntry()),
  ];
}
