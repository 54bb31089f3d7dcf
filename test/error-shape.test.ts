// covers: src/agent/agent-errors.ts, src/errors/fisk-error.ts, src/llm/model-provider.ts, src/memory/note-store.ts
// covers: src/runstate/errors.ts, src/tools/mcp/mcp-servers.ts
// tier: quick
// process: shared
// One error shape: every error the library throws is a FiskError with a typed code, and
// the one guard tells them apart from anything else a catch may get.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  BackendError,
  CompactionError,
  ConfigError,
  DecisionRefusedError,
  FiskError,
  isFiskError,
  ModelCallError,
  NoteError,
  ResumeRefusedError,
  RunStateError,
} from "../src/index.js";
import { McpServerError, McpSignInNeededError } from "../src/tools/mcp/index.js";

test("every library error is a FiskError with its code and the session it is about", () => {
  const errors: [FiskError, string][] = [
    [new RunStateError("ERR_CORRUPT", "line 3 is not JSON", { runId: "r1", line: 3 }), "ERR_CORRUPT"],
    [new RunStateError("ERR_SEQ_GAP", "skips", { runId: "r1", expectedSeq: 4 }), "ERR_SEQ_GAP"],
    [new ConfigError("agent.yaml: model: expected a string"), "ERR_CONFIG"],
    [new ResumeRefusedError("completed", "done", { runId: "r1" }), "ERR_RESUME_REFUSED"],
    [new DecisionRefusedError("not-waiting", "none waits", "r1"), "ERR_DECISION_REFUSED"],
    [new CompactionError("nothing-to-cut", "nothing"), "ERR_COMPACTION"],
    [new ModelCallError("anthropic: 529 overloaded", { retryable: true, status: 529 }), "ERR_MODEL_CALL"],
    [new McpServerError("mcp server fs did not start"), "ERR_MCP_SERVER"],
    [new NoteError("ERR_FULL", "1024 notes"), "ERR_FULL"],
    [new McpSignInNeededError("web"), "ERR_SIGN_IN_NEEDED"],
    [new BackendError("ERR_UNKNOWN_SCHEME", "no backend for postgres://"), "ERR_UNKNOWN_SCHEME"],
  ];
  for (const [error, code] of errors) {
    assert.ok(error instanceof FiskError && error instanceof Error, error.name);
    assert.ok(isFiskError(error) && isFiskError(error, code), error.name);
    assert.equal(error.code, code);
    assert.equal(isFiskError(error, "ERR_SOMETHING_ELSE"), false);
  }
  const [corrupt, gap, , resume] = errors.map(([error]) => error);
  assert.deepEqual([corrupt?.runId, corrupt?.line, corrupt?.seq], ["r1", 3, undefined]);
  assert.equal(gap?.expected, "4", "what was expected is structured, not only in the message");
  assert.equal(resume?.runId, "r1");
  assert.equal(isFiskError(new Error("plain")), false);
  assert.equal(isFiskError("a string"), false);
});
