// The builders live with the exported conformance suite, which needs them too.
import type { RecordEntry } from "../../src/journal.js";
import { assistantEntry, toolResultEntry, userEntry } from "../../src/conformance/record-builders.js";

export * from "../../src/conformance/record-builders.js";

/**
 * After the prompt (seq 1, history 0): a turn with toolu_1 (seq 2), its 50-character result
 * (3), an answer (4), a follow-up (5), a turn with toolu_2 (6), its 40-character result (7):
 * the conversation the compaction tests cut.
 */
export function twoBatchConversation(): RecordEntry[] {
  return [
    assistantEntry(0, "looking", ["toolu_1"]),
    toolResultEntry("toolu_1", "x".repeat(50)),
    assistantEntry(1, "first answer"),
    userEntry("and then?"),
    assistantEntry(2, "looking again", ["toolu_2"]),
    toolResultEntry("toolu_2", "y".repeat(40)),
  ];
}
