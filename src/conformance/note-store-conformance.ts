// The contract every NoteStore backend keeps, as node:test cases: the file backend's
// tests run it, and a JetStream KV backend must pass it too. Nothing here knows how a
// backend stores bytes.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { MAX_CONTENT_BYTES, MAX_NOTES, NoteError, type NoteErrorCode, type NoteStore } from "../memory/note-store.js";

/** How runNoteStoreConformance gets stores of the backend under test. */
export interface NoteStoreHarness {
  /** A fresh, empty store. */
  makeStore(): Promise<NoteStore>;
  /** Runs once after every case: removes what the harness made. */
  teardown?(): Promise<void>;
}

/** Keys every NoteStore must refuse with ERR_INVALID_KEY, on every operation: the suite tries each. */
export const BAD_NOTE_KEYS: readonly string[] = ["", ".hidden", "trailing.", "a..b", "a/b", "../up", "sp ace", "star*", "new\nline", "ü", "x".repeat(201)];

async function rejectsWith(promise: Promise<unknown>, code: NoteErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof NoteError, `expected a NoteError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

const note = (description: string, content: string) => ({ description, content });

/**
 * Registers the NoteStore contract as node:test cases, in a `describe` block: round trips,
 * sorted listing, `unchanged` rewrites, ERR_EXISTS without overwrite, racing creates,
 * bad keys, the 64 KiB and 1024-note limits. Call it at the top level of a test file run
 * with `node --test`.
 */
export function runNoteStoreConformance(harness: NoteStoreHarness): void {
  describe("NoteStore conformance", () => {
    if (harness.teardown !== undefined) after(() => harness.teardown?.());

    it("starts empty and reads an absent key as undefined", async () => {
      const store = await harness.makeStore();
      assert.deepEqual(await store.list(), []);
      assert.equal(await store.read("absent"), undefined);
      assert.equal(await store.delete("absent"), false);
    });

    it("keeps a note's description and content exactly, and lists keys sorted with their descriptions", async () => {
      const store = await harness.makeStore();
      const body = "line one\n---\nnot: front matter\n\n  trailing space \n";
      assert.equal(await store.write("b.key_1=x-y", note("second: with a colon", body), false), "created");
      assert.equal(await store.write("A", note("'quoted' \"twice\"", ""), false), "created");
      assert.equal(await store.write("a", note("- dash first", "x"), false), "created");
      assert.deepEqual(await store.read("b.key_1=x-y"), note("second: with a colon", body));
      assert.deepEqual(await store.read("A"), note("'quoted' \"twice\"", ""));
      assert.deepEqual(await store.list(), [
        { key: "A", description: "'quoted' \"twice\"" },
        { key: "a", description: "- dash first" },
        { key: "b.key_1=x-y", description: "second: with a colon" },
      ]);
    });

    it("writing the same note again is unchanged, with or without overwrite", async () => {
      const store = await harness.makeStore();
      assert.equal(await store.write("k", note("d", "v"), false), "created");
      assert.equal(await store.write("k", note("d", "v"), false), "unchanged");
      assert.equal(await store.write("k", note("d", "v"), true), "unchanged");
      assert.deepEqual(await store.list(), [{ key: "k", description: "d" }]);
    });

    it("refuses to create over a different note, and replaces it with overwrite", async () => {
      const store = await harness.makeStore();
      await store.write("k", note("d", "v1"), false);
      await rejectsWith(store.write("k", note("d", "v2"), false), "ERR_EXISTS");
      await rejectsWith(store.write("k", note("other", "v1"), false), "ERR_EXISTS");
      assert.deepEqual(await store.read("k"), note("d", "v1"));
      assert.equal(await store.write("k", note("d2", "v2"), true), "replaced");
      assert.deepEqual(await store.read("k"), note("d2", "v2"));
      assert.equal(await store.write("new", note("d", "v"), true), "created");
    });

    it("of racing creates of one key with different notes, exactly one wins", async () => {
      const store = await harness.makeStore();
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, (_, i) => store.write("race", note("d", `writer ${i}`), false)));
      const won = outcomes.filter((outcome) => outcome.status === "fulfilled");
      assert.equal(won.length, 1);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") assert.equal((outcome.reason as NoteError).code, "ERR_EXISTS");
      }
      const stored = await store.read("race");
      assert.match(stored?.content ?? "", /^writer \d$/);
    });

    it("deletes a note once", async () => {
      const store = await harness.makeStore();
      await store.write("k", note("d", "v"), false);
      assert.equal(await store.delete("k"), true);
      assert.equal(await store.delete("k"), false);
      assert.equal(await store.read("k"), undefined);
      assert.deepEqual(await store.list(), []);
    });

    it("refuses a bad key on every operation", async () => {
      const store = await harness.makeStore();
      for (const key of BAD_NOTE_KEYS) {
        await rejectsWith(store.read(key), "ERR_INVALID_KEY");
        await rejectsWith(store.write(key, note("d", "v"), true), "ERR_INVALID_KEY");
        await rejectsWith(store.delete(key), "ERR_INVALID_KEY");
      }
      assert.deepEqual(await store.list(), []);
    });

    it(`holds ${MAX_CONTENT_BYTES} bytes of content and refuses one more, and needs a description`, async () => {
      const store = await harness.makeStore();
      const full = "é".repeat(MAX_CONTENT_BYTES / 2);
      assert.equal(await store.write("full", note("d", full), false), "created");
      assert.equal((await store.read("full"))?.content, full);
      await rejectsWith(store.write("over", note("d", `${full}x`), false), "ERR_INVALID_NOTE");
      await rejectsWith(store.write("blank", note(" \n\t ", "v"), false), "ERR_INVALID_NOTE");
      assert.deepEqual(
        (await store.list()).map((item) => item.key),
        ["full"],
      );
    });

    it("keeps a description as one trimmed line", async () => {
      const store = await harness.makeStore();
      await store.write("k", note("  first\nsecond\t\tthird  ", "v"), false);
      assert.deepEqual(await store.list(), [{ key: "k", description: "first second third" }]);
    });

    it(`holds at most ${MAX_NOTES} notes, and still replaces one when full`, async () => {
      const store = await harness.makeStore();
      for (let i = 0; i < MAX_NOTES; i += 1) await store.write(`n${i}`, note("d", ""), false);
      await rejectsWith(store.write("one-more", note("d", ""), false), "ERR_FULL");
      assert.equal(await store.write("n0", note("d", "changed"), true), "replaced");
      assert.equal((await store.list()).length, MAX_NOTES);
    });
  });
}
