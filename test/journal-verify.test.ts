import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { encodeRecord } from "../src/index.js";
import { verifyJournal } from "../src/runstate/journal-verify.js";
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
    const problems = verifyJournal(Buffer.from(encodeRecord(metaRecord("v", { version: 3 })))).problems;
    assert.deepEqual(
      problems.map(({ kind, line }) => ({ kind, line })),
      [{ kind: "version", line: 1 }],
    );
    assert.match(problems[0]?.message ?? "", /version 3, newer than the version 2/);
  });
});
