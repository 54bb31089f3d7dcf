// Generated journals (valid ones of every record kind and version, mutated ones, truncated
// ones) and the check that every reader agrees on each: decode, fold, verify, the
// streaming reader `show` uses, resume's load, and `ls`. Shared by the short run in the
// suite (test/journal-properties.test.ts) and the long one (bench/journal-fuzz.bench.ts).
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { FileStore, isRunStateError, type JournalRecord } from "../../src/index.js";
import { encodeRecordIn, PROTOCOLS, type RecordEntry } from "../../src/journal.js";
import { fold } from "../../src/runstate/views/fold.js";
import { decodeJournal } from "../../src/runstate/records/journal-codec.js";
import { verifyJournal } from "../../src/runstate/views/journal-verify.js";
import { tallyRecords } from "../../src/runstate/views/run-tally.js";
import {
  approvalRequestEntry,
  assistantEntry,
  compactionEntry,
  compactionUndoEntry,
  decisionEntry,
  metaRecord,
  originEntry,
  resumedEntry,
  terminalEntry,
  titleEntry,
  toolResultEntry,
  twoBatchConversation,
  userEntry,
} from "./record-builders.js";
import { simulateRun } from "./simulated-runs.js";

/** The run every generated journal is of: the file store keeps it as `<RUN_ID>.json`. */
export const RUN_ID = "generated";

/** Valid journals covering every record kind, beyond the loop's own (simulated runs). */
function builtJournals(): RecordEntry[][] {
  const conversation = twoBatchConversation();
  const parked: RecordEntry[] = [
    assistantEntry(0, "may I?", ["toolu_1", "toolu_2"]),
    toolResultEntry("toolu_1"),
    approvalRequestEntry("toolu_2"),
    terminalEntry("awaiting_approval"),
  ];
  const moved = { protocol: PROTOCOLS.moved, moved: { to: "/elsewhere/runs", moved_at: "2026-01-01T00:00:00.000Z" } } as RecordEntry;
  return [
    [...conversation, compactionEntry(1, 3), titleEntry("compacted"), compactionUndoEntry(8), userEntry("and then?")],
    [...parked, decisionEntry("toolu_2", "approve"), resumedEntry(), toolResultEntry("toolu_2"), assistantEntry(1, "done"), terminalEntry("completed")],
    [assistantEntry(0, "a"), terminalEntry("completed"), originEntry("other-run", 3), titleEntry("a fork"), userEntry("more"), moved],
  ];
}

/** A valid journal's records: a simulated run or a built one, its meta of `version`, its run RUN_ID. */
const validRecords = fc.record({ pick: fc.nat(), seed: fc.nat(), version: fc.constantFrom(2, 3, 4) }).map(({ pick, seed, version }) => {
  const built = builtJournals();
  const which = pick % (built.length + 1);
  const records: JournalRecord[] =
    which === built.length
      ? simulateRun(seed, 0).records
      : [metaRecord(RUN_ID), ...(built[which] as RecordEntry[]).map((entry, index) => ({ seq: index + 2, ...entry }) as JournalRecord)];
  const meta = records[0] as Extract<JournalRecord, { meta: unknown }>;
  records[0] = { ...meta, meta: { ...meta.meta, run_id: RUN_ID, version } };
  return { version, records };
});

/** Lines of a journal of `version` in that version's encoding. */
function linesOf(version: number, records: readonly JournalRecord[]): string[] {
  return records.map((record) => encodeRecordIn(version, record));
}

/** One change to a journal's lines or bytes. */
type Mutation =
  | { kind: "none" }
  | { kind: "truncate"; at: number }
  | { kind: "drop-line" | "repeat-line"; line: number }
  | { kind: "swap-lines"; line: number; other: number }
  | { kind: "set-byte" | "insert-byte"; at: number; byte: number }
  | { kind: "set-field"; line: number; path: number; value: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: fc.constant({ kind: "none" as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constantFrom("drop-line" as const, "repeat-line" as const), line: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("swap-lines" as const), line: fc.nat(), other: fc.nat() }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constantFrom("set-byte" as const, "insert-byte" as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("set-field" as const),
      line: fc.nat(),
      path: fc.nat(),
      value: fc.oneof(
        fc.integer({ min: -2, max: 40 }),
        fc.constantFrom("toolu_1", "toolu_2", "toolu_9", "", "end_turn", "tool_use", PROTOCOLS.meta, PROTOCOLS.assistant),
        fc.constant(null),
        fc.constant({}),
      ),
    }),
    weight: 3,
  },
);

/** Every place in a JSON value a field can be set, depth first: [holder, key]. */
function places(value: unknown, into: [Record<string, unknown>, string][] = []): [Record<string, unknown>, string][] {
  if (typeof value !== "object" || value === null) return into;
  for (const [key, child] of Object.entries(value)) {
    into.push([value as Record<string, unknown>, key]);
    places(child, into);
  }
  return into;
}

function mutate(lines: string[], change: Mutation): Buffer {
  const pick = (n: number) => n % Math.max(1, lines.length);
  switch (change.kind) {
    case "none":
      break;
    case "drop-line":
      lines.splice(pick(change.line), 1);
      break;
    case "repeat-line":
      lines.splice(pick(change.line), 0, lines[pick(change.line)] as string);
      break;
    case "swap-lines": {
      const [a, b] = [pick(change.line), pick(change.other)];
      [lines[a], lines[b]] = [lines[b] as string, lines[a] as string];
      break;
    }
    case "set-field": {
      const at = pick(change.line);
      let record: unknown;
      try {
        record = JSON.parse(lines[at] ?? "");
      } catch {
        // An earlier mutation broke the line: nothing to set a field in.
        break;
      }
      const all = places(record);
      const place = all[change.path % Math.max(1, all.length)];
      if (place !== undefined) place[0][place[1]] = change.value;
      lines[at] = `${JSON.stringify(record)}\n`;
      break;
    }
    default: {
      const bytes = Buffer.from(lines.join(""));
      if (change.kind === "truncate") return bytes.subarray(0, change.at % (bytes.length + 1));
      const at = change.at % (bytes.length + 1);
      if (change.kind === "set-byte") return Buffer.concat([bytes.subarray(0, at), Buffer.from([change.byte]), bytes.subarray(at + 1)]);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([change.byte]), bytes.subarray(at)]);
    }
  }
  return Buffer.from(lines.join(""));
}

/** A journal's bytes: valid, then changed by up to two mutations. */
export const generatedJournal: fc.Arbitrary<Buffer> = fc
  .tuple(validRecords, fc.array(mutation, { maxLength: 2 }))
  .map(([{ version, records }, changes]) =>
    changes.reduce<Buffer>((bytes, change) => mutate(bytes.toString("utf8").split(/(?<=\n)/), change), Buffer.from(linesOf(version, records).join(""))),
  );

/** What a reader did with a journal: accepted it, or refused it naming a line. */
type Outcome = { accepted: true } | { accepted: false; line: number | undefined; message: string };

async function outcomeOf(read: () => unknown): Promise<Outcome> {
  try {
    await read();
    return { accepted: true };
  } catch (error) {
    // Anything but a RunStateError is a finding: rethrown, with what the reader said.
    if (!isRunStateError(error)) throw error;
    return { accepted: false, line: error.line ?? lineIn(error.message), message: error.message };
  }
}

function lineIn(message: string): number | undefined {
  const match = /\bline (\d+)\b/.exec(message);
  return match === null ? undefined : Number(match[1]);
}

/**
 * Reads `bytes` with every reader and checks they agree: each accepts exactly when verify
 * finds no problem but a repairable torn tail, and each refusal is a RunStateError naming
 * a line no later than verify's first. `dir` is a file store's directory the journal is written into.
 */
export async function checkReadersAgree(bytes: Buffer, dir: string): Promise<void> {
  const verified = verifyJournal(bytes, RUN_ID);
  const firstProblem = verified.problems.find((problem) => !problem.repairable);
  const said = `verify: ${firstProblem?.message ?? "sound"}\njournal:\n${bytes.toString("utf8").slice(0, 4000)}`;
  const decodeAndFold = await outcomeOf(() => fold(decodeJournal(bytes).records));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, `${RUN_ID}.json`), bytes, { mode: 0o600 });
  const store = new FileStore({ dir });
  const readers: Record<string, Outcome> = {
    "show (streaming)": await outcomeOf(() => tallyRecords(RUN_ID, store.readRecords(RUN_ID))),
    "resume's load": await outcomeOf(() => store.load(RUN_ID)),
  };
  // decode and fold do not know the run's name: verify without it is theirs to agree with.
  const unnamed = verifyJournal(bytes).problems.find((problem) => !problem.repairable);
  assert.equal(decodeAndFold.accepted, unnamed === undefined, `decode + fold: ${JSON.stringify(decodeAndFold)}\n${said}`);
  if (!decodeAndFold.accepted && unnamed?.kind !== "fold")
    assert.equal(decodeAndFold.line, unnamed?.line, `decode names verify's line: ${decodeAndFold.message}\n${said}`);
  if (!decodeAndFold.accepted)
    assert.ok(decodeAndFold.line !== undefined || /\bseq \d+/.test(decodeAndFold.message), `decode + fold names a line or seq: ${decodeAndFold.message}`);
  for (const [reader, outcome] of Object.entries(readers)) {
    assert.equal(outcome.accepted, firstProblem === undefined, `${reader}: ${JSON.stringify(outcome)}\n${said}`);
    // A streaming reader stops at the first line that breaks any rule; verify names a line that does not decode before one that does not fold.
    if (!outcome.accepted)
      assert.ok(
        outcome.line !== undefined && outcome.line <= (firstProblem?.line ?? 0),
        `${reader} names a line no later than verify's: ${outcome.message}\n${said}`,
      );
  }
  const [listed] = await store.list();
  assert.equal(listed?.status === "corrupt", firstProblem !== undefined, `ls: ${JSON.stringify(listed)}\n${said}`);
}
