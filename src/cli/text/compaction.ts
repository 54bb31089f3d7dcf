// One line for a compaction, the same in a run's narration and in `session show`.
import type { CompactionPayload } from "../../runstate/records/records.js";

export function compactionLine(seq: number, compaction: CompactionPayload): string {
  const { from_seq: from, through_seq: through, trigger, tokens_before: before, tokens_after: after, trimmed } = compaction;
  const what = [
    ...(compaction.summary === "" ? [] : [`records ${from}-${through} summarized by ${compaction.model}`]),
    ...(trimmed === undefined ? [] : [`${trimmed.length} tool result${trimmed.length === 1 ? "" : "s"} trimmed`]),
  ].join(", ");
  return `compaction at seq ${seq} (${trigger}): ${what}; about ${before} -> ${after} tokens`;
}
