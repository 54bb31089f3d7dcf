// covers: src/runstate/errors.ts, src/runstate/records/run-id.ts
// tier: quick
// process: shared
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isRunStateError, newRunId } from "../src/index.js";
import { assertRunId, isValidRunId, ksuidFrom } from "../src/journal.js";
import { HOSTILE_IDS } from "./helpers/hostile-ids.js";

describe("run ids", () => {
  it("encodes KSUIDs as the reference implementation does", () => {
    // The example in segmentio/ksuid's README: timestamp 107608047 since the KSUID epoch.
    const payload = Buffer.from("B5A1CD34B5F99D1154FB6853345C9735", "hex");
    assert.equal(ksuidFrom(1_400_000_000 + 107_608_047, payload), "0ujtsYcgvSTl8PAuAdqWYSMnLOv");
    assert.equal(ksuidFrom(1_400_000_000, new Uint8Array(16)), "0".repeat(27));
  });

  it("generates valid 27-character ids that sort by creation time", () => {
    const ids = [0, 1, 60, 86_400, 10 ** 8].map((offset) => newRunId(new Date((1_700_000_000 + offset) * 1000)));
    for (const id of ids) {
      assert.equal(id.length, 27);
      assert.ok(isValidRunId(id), id);
    }
    assert.deepEqual([...ids].sort(), ids);
    assert.notEqual(newRunId(), newRunId(), "the payload is random");
  });

  it("accepts the ids an operator would choose", () => {
    for (const id of ["a", "run-1", "Nightly_build-42", "9", "x".repeat(128)]) assertRunId(id);
  });

  it("refuses hostile ids with ERR_INVALID_ID and says what is allowed", () => {
    for (const id of HOSTILE_IDS) {
      assert.throws(
        () => assertRunId(id),
        (error: unknown) => isRunStateError(error, "ERR_INVALID_ID") && /letters, digits/.test(error.message),
        JSON.stringify(id),
      );
    }
    assert.throws(
      () => assertRunId(undefined),
      (error: unknown) => isRunStateError(error, "ERR_INVALID_ID"),
    );
  });
});
