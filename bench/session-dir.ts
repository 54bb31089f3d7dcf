// A state directory of many ~1 MB sessions, written fast for the `session ls` benchmark
// and its profiling script. One body of records is encoded once and shared: its records
// carry no run id, so each session's own meta line, the shared body and its own ending
// make a valid journal of that session, at the cost of a few writes.
import { writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { PROTOCOLS, type RecordEntry } from "../src/journal.js";
import { encodeEntries, metaLine, RunGenerator, terminalLine, writeJournalFile, type RunShape } from "./run-records.js";

/** How each generated session ends; `open` is a run whose process died before a terminal record. */
export const SESSION_ENDINGS = ["completed", "suspended", "open"] as const;
export type SessionEnding = (typeof SESSION_ENDINGS)[number];

export interface SessionEnd {
  status: SessionEnding;
  lastSeq: number;
}

export interface SessionDir {
  runIds: string[];
  expected: Map<string, SessionEnd>;
  /** Total journal bytes, lock files aside. */
  bytes: number;
  counts: Record<SessionEnding, number>;
}

/** Tool results of a few KB, as in store.bench's large journals: about 2 KB a record on average. */
const RUN_RECORDS: RunShape = { outputBytes: [900, 3400], proseBytes: [200, 900], toolsPerTurn: [1, 3] };

export function sessionId(index: number): string {
  return `bench-${String(index + 1).padStart(5, "0")}`;
}

/** Of every ten sessions, five completed, three suspended and two left open. */
function endingOf(index: number): SessionEnding {
  const slot = index % 10;
  return slot < 5 ? "completed" : slot < 8 ? "suspended" : "open";
}

/** The answer a completed run ends on: the next turn's assistant record, text only, end_turn. */
function finalAnswer(generator: RunGenerator): RecordEntry {
  const [next] = generator.turn();
  if (next?.protocol !== PROTOCOLS.assistant) throw new Error("a generated turn does not start with an assistant record");
  const text = next.assistant.message.content.filter((block) => block.type === "text");
  return {
    ...next,
    assistant: { ...next.assistant, message: { role: "assistant", content: text }, stop_reason: "end_turn" },
  };
}

/** The note of a holder that is gone: a pid no process has (above the kernel's pid_max). */
const DEAD_HOLDER_NOTE = JSON.stringify({ pid: 4_194_305, host: hostname(), started: "2026-01-01T00:00:00.000Z" });

/**
 * Writes `count` sessions of about `bytesEach` bytes into `dir` (which must exist), each
 * `<id>.json` (0600) as a store leaves it: a closed run has no lock file, and an open one
 * (its process died) keeps the lock file with the dead holder's note, which list() reads.
 */
export function writeSessions(dir: string, count: number, bytesEach: number): SessionDir {
  const generator = new RunGenerator(RUN_RECORDS, 5);
  // encodedTurns stops after the turn that crosses its target, some 4 KB past it on average.
  const body = generator.encodedTurns(2, bytesEach - Buffer.byteLength(metaLine(sessionId(0))) - 4096);
  const bodyBytes = Buffer.from(body.text);
  const bodyLastSeq = body.records + 1;
  // Shared endings: none of them names the run either.
  const endings: Record<SessionEnding, { bytes: Buffer; lastSeq: number }> = {
    completed: {
      bytes: Buffer.from([...encodeEntries([finalAnswer(generator)], bodyLastSeq + 1), terminalLine(bodyLastSeq + 2, "completed")].join("")),
      lastSeq: bodyLastSeq + 2,
    },
    suspended: { bytes: Buffer.from(terminalLine(bodyLastSeq + 1, "suspended")), lastSeq: bodyLastSeq + 1 },
    open: { bytes: Buffer.alloc(0), lastSeq: bodyLastSeq },
  };
  const runIds: string[] = [];
  const expected = new Map<string, SessionEnd>();
  const counts: Record<SessionEnding, number> = { completed: 0, suspended: 0, open: 0 };
  let bytes = 0;
  for (let index = 0; index < count; index++) {
    const runId = sessionId(index);
    const status = endingOf(index);
    const meta = Buffer.from(metaLine(runId));
    const ending = endings[status];
    writeJournalFile(join(dir, `${runId}.json`), [meta, bodyBytes, ending.bytes]);
    if (status === "open") writeFileSync(join(dir, `${runId}.lock`), DEAD_HOLDER_NOTE, { mode: 0o600, flag: "wx" });
    runIds.push(runId);
    expected.set(runId, { status, lastSeq: ending.lastSeq });
    counts[status]++;
    bytes += meta.length + bodyBytes.length + ending.bytes.length;
  }
  return { runIds, expected, bytes, counts };
}
