// covers: src/runstate/records/journal-codec.ts, src/runstate/views/journal-verify.ts
// tier: quick
// process: shared
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeRecord } from "../src/journal.js";
import { MAX_RECORD_DEPTH } from "../src/runstate/records/journal-codec.js";
import { verifyJournal } from "../src/runstate/views/journal-verify.js";
import { completedRun, metaRecord } from "./helpers/record-builders.js";

const lines = () => completedRun("v").map(encodeRecord);
const problemsOf = (text: string) => verifyJournal(Buffer.from(text)).problems.map(({ kind, line, repairable }) => ({ kind, line, repairable }));

describe("verifyJournal", () => {
  it("finds nothing wrong with a sound journal", () => {
    const result = verifyJournal(Buffer.from(lines().join("")));
    assert.deepEqual([result.records.length, result.problems], [6, []]);
  });

  it("reports a torn tail as repairable, with its line", () => {
    assert.deepEqual(problemsOf(`${lines().join("")}{"seq":7,"prot`), [{ kind: "torn_tail", line: 7, repairable: true }]);
  });

  it("reports every bad line, JSON and schema alike, and folds only a journal without them", () => {
    const text = lines();
    text[1] = "{not json\n";
    text[3] = `${JSON.stringify({ seq: 4, protocol: "io.choria.fisk-ai.v1.session.tool_result", tool_result: {} })}\n`;
    assert.deepEqual(problemsOf(text.join("")), [
      { kind: "invalid_json", line: 2, repairable: false },
      { kind: "invalid_record", line: 4, repairable: false },
    ]);
  });

  it("reports a fold error at the line of the offending record", () => {
    const text = lines();
    text.splice(3, 1, text[2] as string);
    const problems = verifyJournal(Buffer.from(text.join(""))).problems;
    assert.deepEqual(
      problems.map(({ kind, line }) => ({ kind, line })),
      [{ kind: "fold", line: 4 }],
    );
    assert.match(problems[0]?.message ?? "", /record seq 3: follows seq 3/);
  });

  it("reports a newer version as such", () => {
    const problems = verifyJournal(Buffer.from(encodeRecord(metaRecord("v", { version: 6 })))).problems;
    assert.deepEqual(
      problems.map(({ kind, line }) => ({ kind, line })),
      [{ kind: "version", line: 1 }],
    );
    assert.match(problems[0]?.message ?? "", /version 6, newer than the version 5/);
  });

  it("reports invalid UTF-8 at its line instead of decoding it lossily", () => {
    // A lone 0xff inside the third record's text: never valid in UTF-8.
    const [head, tail] = lines().join("").split("result of toolu_2") as [string, string];
    const bytes = Buffer.concat([Buffer.from(head), Buffer.from([0xff]), Buffer.from(tail)]);
    const problems = verifyJournal(bytes).problems;
    assert.deepEqual(
      problems.map(({ kind, line, message }) => ({ kind, line, message })),
      [{ kind: "invalid_json", line: 3, message: "line 3 is not valid UTF-8" }],
    );
  });

  it("refuses nesting deeper than MAX_RECORD_DEPTH, and takes it at the limit", () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
    // The record itself, its payload, the message, the content array, the block: 5 levels around the input.
    const withInput = (depth: number) =>
      lines()
        .map((line, index) => (index === 1 ? line.replace('"input":{"text":"toolu_1"}', `"input":${nested(depth)}`) : line))
        .join("");
    assert.deepEqual(problemsOf(withInput(MAX_RECORD_DEPTH - 5)), []);
    assert.deepEqual(problemsOf(withInput(MAX_RECORD_DEPTH - 4)), [{ kind: "invalid_record", line: 2, repairable: false }]);
    assert.deepEqual(problemsOf(withInput(100_000)), [{ kind: "invalid_record", line: 2, repairable: false }]);
  });

  it("calls a version that is not an integer an invalid record, not a newer version", () => {
    const problems = verifyJournal(Buffer.from(encodeRecord(metaRecord("v", { version: 2.5 })))).problems;
    assert.deepEqual(
      problems.map(({ kind, line }) => ({ kind, line })),
      [{ kind: "invalid_record", line: 1 }],
    );
  });

  it("given the id it is stored under, reports a journal that holds another session", () => {
    const problems = verifyJournal(Buffer.from(lines().join("")), "w").problems;
    assert.deepEqual(
      problems.map(({ kind, line }) => ({ kind, line })),
      [{ kind: "misnamed", line: 1 }],
    );
    assert.deepEqual(verifyJournal(Buffer.from(lines().join("")), "v").problems, []);
  });
});
