// Journals too large to read whole cheaply, written straight to files: one with a line past
// the read limit (a sparse hole, so it costs no disk), and a valid one of many records.
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { encodeRecord } from "../../src/journal.js";
import type { JournalRecord } from "../../src/index.js";
import { assistantEntry, completedRun, metaRecord, terminalEntry, toolResultEntry } from "../../src/conformance/record-builders.js";

/**
 * A completed run's journal in `dir`/`runId`.json whose line `line` is a tool result of
 * `bytes` bytes: a hole in a sparse file, so it costs no disk, and holds no newline.
 */
export function journalWithLongLine(dir: string, runId: string, line: number, bytes: number): void {
  const lines = completedRun(runId).map(encodeRecord);
  const fd = openSync(join(dir, `${runId}.json`), "w", 0o600);
  let position = 0;
  const write = (text: string) => (position += writeSync(fd, text, position));
  try {
    lines.forEach((text, index) => {
      if (index + 1 !== line) return write(text);
      write(`{"seq":${line},"protocol":"io.choria.fisk-ai.v1.session.tool_result","tool_result":{"content":"`);
      position += bytes;
      write('"}}\n');
    });
  } finally {
    closeSync(fd);
  }
}

/**
 * A valid completed run's journal at `path`, of `calls` turns that each call a tool whose
 * result is `resultBytes` long, then a final answer: about calls × resultBytes bytes. Returns its records' count.
 */
export function largeJournal(path: string, runId: string, calls: number, resultBytes: number): number {
  const fd = openSync(path, "w", 0o600);
  let seq = 1;
  const write = (entry: Omit<JournalRecord, "seq">) => writeSync(fd, encodeRecord({ seq: ++seq, ...entry } as JournalRecord));
  try {
    writeSync(fd, encodeRecord(metaRecord(runId)));
    for (let call = 0; call < calls; call++) {
      const id = `toolu_${call}`;
      write(assistantEntry(call, `Step ${call}.`, [id]));
      // Varied text, so that no reader could keep it small by sharing one string.
      write(toolResultEntry(id, `${call} `.repeat(Math.ceil(resultBytes / (String(call).length + 1))).slice(0, resultBytes)));
    }
    write(assistantEntry(calls, "Done."));
    write(terminalEntry("completed"));
  } finally {
    closeSync(fd);
  }
  return seq;
}
