// covers: src/cli/cli-errors.ts, src/cli/exit-codes.ts, src/runstate/errors.ts, src/runstate/store/store-contract.ts
// process: shared
// The library's store errors name what is wrong; the CLI adds the command that looks further.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { reportFailure } from "../src/cli/cli-errors.js";
import { EXIT } from "../src/cli/exit-codes.js";
import { RunStateError } from "../src/runstate/errors.js";
import { decodeRun, lockedError, notFoundError } from "../src/runstate/store/store-contract.js";

/** What reading a stored journal whose first line is not JSON rejects with. */
function corruptError(runId: string): RunStateError {
  try {
    decodeRun(runId, Buffer.from("{not json\n"), "here");
  } catch (error) {
    assert.ok(error instanceof RunStateError && error.code === "ERR_CORRUPT", String(error));
    return error;
  }
  assert.fail("a journal that is not JSON was read");
}

function printed(error: unknown): { code: number; line: string } {
  const stderr = new PassThrough();
  const code = reportFailure(error, stderr);
  return { code, line: String(stderr.read()) };
}

describe("a store error as the CLI prints it", () => {
  it("an unknown session: the library names it, the CLI says what lists the sessions", () => {
    const error = notFoundError("nope");
    assert.equal(error.message, "no session nope");
    assert.equal(error.runId, "nope");
    assert.deepEqual(printed(error), { code: EXIT.notFound, line: "fisk-ai: no session nope: 'fisk-ai session ls' lists the sessions there are\n" });
  });

  it("a corrupt journal: the CLI names the verify command for that session", () => {
    const error = corruptError("bad-1");
    assert.doesNotMatch(error.message, /fisk-ai/);
    assert.equal(error.runId, "bad-1");
    assert.equal(printed(error).line, `fisk-ai: ${error.message} ('fisk-ai session verify bad-1' shows every problem)\n`);
  });

  it("a session held by a process that has not said who: the CLI says where it will show", () => {
    const error = lockedError("held", undefined);
    assert.equal(error.message, "session held is in use by another process that has not said which: wait for it to finish or stop that process");
    assert.equal(printed(error).line, `fisk-ai: ${error.message} ('fisk-ai session ls' shows its pid and host once it has)\n`);
    const named = lockedError("held", { pid: 7, host: "box", started: "2026-12-04T10:00:00Z" });
    assert.deepEqual(named.holder, { pid: 7, host: "box", started: "2026-12-04T10:00:00Z" });
    assert.deepEqual(printed(named), { code: EXIT.locked, line: `fisk-ai: ${named.message}\n` });
  });

  it("an error about no stored session gets no advice", () => {
    const error = new RunStateError("ERR_CORRUPT", "the journal to import ends in an incomplete line (after line 2)", { line: 3 });
    assert.equal(printed(error).line, `fisk-ai: ${error.message}\n`);
  });
});
