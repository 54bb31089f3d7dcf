// Store.close: lets go of what the store holds; the runs stay for any other store.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { metaPayload } from "../record-builders.js";
import type { Suite } from "./suite.js";

export function closeCases(suite: Suite): void {
  describe("Store.close", () => {
    it("closes a store, after which another on the same storage sees its runs", async () => {
      const first = await suite.makeStore();
      await (await first.create("close-1", metaPayload("close-1"))).close();
      const second = await suite.sameStorage(first);
      await first.close();
      assert.equal((await second.load("close-1")).lastSeq, 1);
    });
  });
}
