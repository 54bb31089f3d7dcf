// covers: src/conformance/note-store-conformance.ts, src/memory/file-note-store.ts, src/memory/memory-tools.ts
// covers: src/memory/note-store.ts
// process: shared
// Memory's file backend: the NoteStore conformance suite, then what only files have:
// the Go implementation's layout and modes, and reads that refuse what is not a note.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runNoteStoreConformance } from "../src/conformance/index.js";
import { FileNoteStore, memoryDir } from "../src/memory/file-note-store.js";
import { memoryTools } from "../src/memory/memory-tools.js";
import { NoteError } from "../src/memory/note-store.js";
import type { Tool } from "../src/tools/tool.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-notes-"));
after(() => rmSync(root, { recursive: true, force: true }));
let stores = 0;

runNoteStoreConformance({ makeStore: async () => new FileNoteStore(join(root, `conformance-${++stores}`, "ns")) });

describe("the file note store", () => {
  it("keeps $XDG_STATE_HOME/fisk-ai/memory/<namespace>/<key>.md, directories 0700 and files 0600", async () => {
    const dir = memoryDir("team.notes", { XDG_STATE_HOME: join(root, "xdg") });
    assert.equal(dir, join(root, "xdg", "fisk-ai", "memory", "team.notes"));
    const store = new FileNoteStore(dir);
    await store.write("deploy", { description: "how we deploy: carefully", content: "step one\n" }, false);
    assert.equal(readFileSync(join(dir, "deploy.md"), "utf8"), '---\ndescription: "how we deploy: carefully"\n---\n\nstep one\n');
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(root, "xdg", "fisk-ai", "memory")).mode & 0o777, 0o700);
    assert.equal(statSync(join(dir, "deploy.md")).mode & 0o777, 0o600);
    await store.write("deploy", { description: "changed", content: "" }, true);
    assert.equal(statSync(join(dir, "deploy.md")).mode & 0o777, 0o600);
  });

  it("reads a note written by hand, with or without front matter", async () => {
    const dir = join(root, "by-hand");
    mkdirSync(dir);
    writeFileSync(join(dir, "plain.md"), "just text\n");
    writeFileSync(join(dir, "go.md"), "---\ndescription: from the Go side\n---\n\nbody\n---\nmore\n");
    const store = new FileNoteStore(dir);
    assert.deepEqual(await store.read("plain"), { description: "", content: "just text\n" });
    assert.deepEqual(await store.read("go"), { description: "from the Go side", content: "body\n---\nmore\n" });
  });

  it("refuses to read through a symlink or a non-regular file, and lists neither, nor staged files or bad names", async () => {
    const dir = join(root, "hostile");
    mkdirSync(dir);
    writeFileSync(join(root, "secret.txt"), "SECRET");
    symlinkSync(join(root, "secret.txt"), join(dir, "link.md"));
    mkdirSync(join(dir, "sub.md"));
    writeFileSync(join(dir, ".memtmp-abc"), "staged");
    writeFileSync(join(dir, "..x.md"), "bad name");
    writeFileSync(join(dir, "notes.txt"), "not a note");
    writeFileSync(join(dir, "ok.md"), "---\ndescription: fine\n---\n\nfine\n");
    const store = new FileNoteStore(dir);
    await assert.rejects(store.read("link"), (error: unknown) => error instanceof NoteError && /symlink/.test(error.message));
    await assert.rejects(store.read("sub"), (error: unknown) => error instanceof NoteError && /not a regular file/.test(error.message));
    assert.deepEqual(await store.list(), [{ key: "ok", description: "fine" }]);
  });
});

describe("the memory tools", () => {
  const context = { signal: new AbortController().signal };
  it("list, read, write and delete through the store, a refused key or note being an is_error result", async () => {
    const [list, read, write, remove] = memoryTools(new FileNoteStore(join(root, "tools"))) as [Tool, Tool, Tool, Tool];
    assert.deepEqual(await list.run({}, context), { content: "(no notes)" });
    assert.deepEqual(await write.run({ key: "k", description: "d", content: "v" }, context), { content: "created: k" });
    assert.deepEqual(await write.run({ key: "k", description: "d", content: "v" }, context), { content: "unchanged: k" });
    assert.equal((await write.run({ key: "k", description: "d", content: "w" }, context)).is_error, true);
    assert.deepEqual(await write.run({ key: "k", description: "d", content: "w", overwrite: true }, context), { content: "replaced: k" });
    assert.deepEqual(await list.run({}, context), { content: "- k: d" });
    assert.deepEqual(await read.run({ key: "k" }, context), { content: "w" });
    assert.equal((await read.run({ key: "../k" }, context)).is_error, true);
    assert.equal((await read.run({ key: 3 }, context)).is_error, true);
    assert.equal((await read.run({ key: "gone" }, context)).is_error, true);
    assert.deepEqual(await remove.run({ key: "k" }, context), { content: "deleted: k" });
    assert.deepEqual(await remove.run({ key: "k" }, context), { content: "no note k: nothing to delete" });
  });
});
