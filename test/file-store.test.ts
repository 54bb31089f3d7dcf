import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  appendFileSync,
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { defaultStateDir, FileStore, isRunStateError, type RunStateErrorCode, type RunSummary } from "../src/index.js";
import { encodeRecord, storeContract } from "../src/journal.js";
import { fileStoreWithSeams } from "../src/backends/file/file-store.js";
import { RunPaths } from "../src/backends/file/run-paths.js";
import { nodeFileSystem, type FileSystem } from "../src/backends/file/file-system.js";
import { runStoreConformance } from "../src/conformance/index.js";
import { SUMMARY_CACHE_NAME } from "../src/backends/file/summary-cache.js";
import { countingFileSystem, fsyncs } from "./helpers/counting-file-system.js";
import { waitFor } from "./helpers/cli-harness.js";
import { holdInChild } from "./helpers/run-holder.js";
import { assistantEntry, completedRun, metaPayload, terminalEntry, titleEntry, toolResultEntry } from "./helpers/record-builders.js";

const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-file-store-"));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
function freshDir(): string {
  return join(scratch, `runs-${++dirs}`);
}

function storeDir(store: unknown): string {
  return (store as FileStore).dir;
}

runStoreConformance("file", {
  capabilities: { exclusiveOpen: true },
  makeStore: async () => new FileStore({ dir: freshDir() }),
  sameStorage: async (store) => new FileStore({ dir: storeDir(store) }),
  plantRaw: async (store, runId, lines) => {
    mkdirSync(storeDir(store), { recursive: true, mode: 0o700 });
    writeFileSync(join(storeDir(store), `${runId}.json`), lines.join(""), { mode: 0o600 });
  },
  // A disk that fails the sync after a write: the bytes may or may not be kept.
  failingWrites: async (failing) =>
    fileStoreWithSeams({
      dir: freshDir(),
      fileSystem: {
        ...nodeFileSystem,
        fdatasync: async (fd) => {
          if (failing()) throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
          await nodeFileSystem.fdatasync(fd);
        },
      },
    }),
});

async function rejectsWith(promise: Promise<unknown>, code: RunStateErrorCode, message?: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isRunStateError(error, code), `expected ${code}, got ${String(error)}`);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  });
}

/** A run of `count` records after meta: tool turns of two tools each. */
async function writeRun(store: FileStore, runId: string, turns: number, resultBytes = 100): Promise<void> {
  const journal = await store.create(runId, metaPayload(runId));
  let seq = 2;
  for (let turn = 0; turn < turns; turn++) {
    const ids = [`t${turn}a`, `t${turn}b`];
    await journal.append(seq++, assistantEntry(turn, `turn ${turn}`, ids));
    for (const id of ids) await journal.append(seq++, toolResultEntry(id, "x".repeat(resultBytes)));
  }
  await journal.close();
}

function journalLines(dir: string, runId: string): string[] {
  const text = readFileSync(join(dir, `${runId}.json`), "utf8");
  assert.ok(text.endsWith("\n"), "the journal ends on a record boundary");
  return text.slice(0, -1).split("\n");
}

function mode(path: string): number {
  return lstatSync(path).mode & 0o777;
}

describe("file backend", () => {
  describe("location", () => {
    it("uses $XDG_STATE_HOME/fisk-ai/runs, else ~/.local/state/fisk-ai/runs", () => {
      assert.equal(defaultStateDir({ XDG_STATE_HOME: "/var/state" }, "/home/u"), "/var/state/fisk-ai/runs");
      assert.equal(defaultStateDir({}, "/home/u"), "/home/u/.local/state/fisk-ai/runs");
      assert.equal(defaultStateDir({ XDG_STATE_HOME: "relative" }, "/home/u"), "/home/u/.local/state/fisk-ai/runs");
    });

    it("defaults a FileStore to the XDG directory, never the working directory", async () => {
      const saved = process.env.XDG_STATE_HOME;
      process.env.XDG_STATE_HOME = join(scratch, "xdg");
      try {
        const store = new FileStore();
        assert.equal(store.dir, join(scratch, "xdg", "fisk-ai", "runs"));
        await (await store.create("xdg-1", metaPayload("xdg-1"))).close();
        assert.ok(lstatSync(join(scratch, "xdg", "fisk-ai", "runs", "xdg-1.json")).isFile());
      } finally {
        if (saved === undefined) delete process.env.XDG_STATE_HOME;
        else process.env.XDG_STATE_HOME = saved;
      }
    });

    it("names a run's journal and lock file as join(dir, name) does, whatever the shape of dir", () => {
      for (const dir of ["/var/runs", "/var/runs/", "/var//runs/./", "runs", "./runs/../other", ".", "/", "../up"]) {
        const paths = new RunPaths(dir);
        assert.equal(paths.journal("a-1"), join(dir, "a-1.json"), dir);
        assert.equal(paths.lock("a-1"), join(dir, "a-1.lock"), dir);
      }
    });
  });

  describe("permissions", () => {
    it("makes the directory 0700 and the files 0600 even under umask 000", async () => {
      const dir = freshDir();
      const previous = process.umask(0);
      try {
        const journal = await new FileStore({ dir }).create("modes-1", metaPayload("modes-1"));
        assert.equal(mode(join(dir, "modes-1.lock")), 0o600);
        await journal.close();
      } finally {
        process.umask(previous);
      }
      assert.equal(mode(dir), 0o700);
      assert.equal(mode(join(dir, "modes-1.json")), 0o600);
    });

    it("tightens an existing directory that is looser", async () => {
      const dir = freshDir();
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      await (await new FileStore({ dir }).create("modes-2", metaPayload("modes-2"))).close();
      assert.equal(mode(dir), 0o700);
    });
  });

  describe("symlinks", () => {
    it("refuses a symlink at a journal path and leaves its target alone", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await (await store.create("real", metaPayload("real"))).close();
      const target = join(dir, "real.json");
      const before = readFileSync(target, "utf8");
      symlinkSync(target, join(dir, "linked.json"));
      await rejectsWith(store.load("linked"), "ERR_SYMLINK", /symlink at .*linked\.json/);
      await rejectsWith(store.open("linked"), "ERR_SYMLINK");
      await rejectsWith(store.create("linked", metaPayload("linked")), "ERR_EXISTS");
      assert.equal(readFileSync(target, "utf8"), before);
      assert.ok(lstatSync(join(dir, "linked.json")).isSymbolicLink());
    });

    it("refuses a symlink at a lock path", async () => {
      const dir = freshDir();
      mkdirSync(dir, { mode: 0o700 });
      const elsewhere = join(scratch, `elsewhere-${dirs}`);
      writeFileSync(elsewhere, "precious");
      symlinkSync(elsewhere, join(dir, "victim.lock"));
      await rejectsWith(new FileStore({ dir }).create("victim", metaPayload("victim")), "ERR_SYMLINK", /victim\.lock/);
      assert.equal(readFileSync(elsewhere, "utf8"), "precious");
    });
  });

  describe("durability", () => {
    it("syncs the new journal and its directory before create resolves", async () => {
      const dir = freshDir();
      const fs = countingFileSystem();
      const journal = await fileStoreWithSeams({ dir, fileSystem: fs }).create("sync-1", metaPayload("sync-1"));
      assert.equal(fs.calls.fdatasync, 1, "the meta record is synced");
      // The store made the directory: its name is synced into its parent, then the journal's into it.
      assert.deepEqual(fs.syncedDirs, [dirname(dir), dir], "the directory entries are synced");
      fs.reset();
      await journal.append(2, assistantEntry(0, "hi"));
      assert.deepEqual([fs.calls.write, fsyncs(fs), fs.syncedDirs.length], [1, 1, 0], "one write and one sync per append");
      await journal.close();
    });

    it("resolves an append only once its fsync has completed", async () => {
      const fs = countingFileSystem();
      const journal = await fileStoreWithSeams({ dir: freshDir(), fileSystem: fs }).create("sync-2", metaPayload("sync-2"));
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      fs.before.fdatasync = () => gate;
      fs.reset();
      let resolved = false;
      const append = journal.append(2, assistantEntry(0, "hi")).then(() => (resolved = true));
      await waitFor(() => fs.calls.write === 1, "the bytes to be written");
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(resolved, false, "but the append waits for its fsync");
      release();
      await append;
      assert.equal(resolved, true);
      await journal.close();
    });

    it("group-commits 8 concurrent appends into at most 2 fsyncs, none resolving early", async () => {
      const fs = countingFileSystem();
      const journal = await fileStoreWithSeams({ dir: freshDir(), fileSystem: fs }).create("group-1", metaPayload("group-1"));
      const ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
      await journal.append(2, assistantEntry(0, "", ids));
      fs.reset();
      const synced: number[] = [];
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      fs.before.fdatasync = async () => {
        await gate;
        synced.push(fs.bytesWritten);
      };
      const resolvedAt: number[] = [];
      const appends = ids.map((id, index) => journal.append(3 + index, toolResultEntry(id)).then(() => resolvedAt.push(synced.length)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(resolvedAt, [], "nothing resolves while its fsync is held");
      release();
      await Promise.all(appends);
      assert.ok(fsyncs(fs) <= 2, `expected at most 2 fsyncs, got ${fsyncs(fs)}`);
      assert.ok(
        resolvedAt.every((count) => count >= 1),
        "every append resolved after an fsync",
      );
      assert.equal(synced.at(-1), fs.bytesWritten, "the last fsync covered every byte written");
      await journal.close();
    });

    it("gives each append its own fsync with group commit off", async () => {
      const fs = countingFileSystem();
      const journal = await fileStoreWithSeams({ dir: freshDir(), fileSystem: fs, groupCommit: false }).create("group-2", metaPayload("group-2"));
      const ids = ["a", "b", "c", "d", "e", "f", "g", "h"];
      await journal.append(2, assistantEntry(0, "", ids));
      fs.reset();
      await Promise.all(ids.map((id, index) => journal.append(3 + index, toolResultEntry(id))));
      assert.equal(fsyncs(fs), 8);
      await journal.close();
    });

    it("finishes a write the kernel took only part of, for appends and new journals alike", async () => {
      const dir = freshDir();
      // A write that takes at most 100 bytes, as a nearly full disk or a file-size limit does.
      const shortWrites: FileSystem = { ...nodeFileSystem, write: (fd, data, position) => nodeFileSystem.write(fd, data.subarray(0, 100), position) };
      const store = fileStoreWithSeams({ dir, fileSystem: shortWrites });
      await store.importJournal("short-1", Buffer.from(completedRun("short-1").map(encodeRecord).join("")));
      const journal = await store.create("short-2", metaPayload("short-2"));
      await journal.append(2, assistantEntry(0, "x".repeat(500)));
      await journal.close();
      assert.deepEqual(
        journalLines(dir, "short-1"),
        completedRun("short-1").map((record) => JSON.stringify(record)),
      );
      assert.equal((await new FileStore({ dir }).load("short-2")).lastSeq, 2);
    });

    it("fails the append and every later one when a write fails, and recovers on reopen", async () => {
      const dir = freshDir();
      const fs = countingFileSystem();
      const store = fileStoreWithSeams({ dir, fileSystem: fs });
      const journal = await store.create("fail-1", metaPayload("fail-1"));
      fs.before.fdatasync = () => {
        throw Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
      };
      await rejectsWith(journal.append(2, assistantEntry(0, "hi")), "ERR_IO", /fail-1 failed \(EIO.*open the session again/);
      await rejectsWith(journal.append(3, terminalEntry("completed")), "ERR_IO");
      await journal.close();
      delete fs.before.fdatasync;
      const reopened = await store.open("fail-1");
      assert.equal(reopened.lastSeq, 2, "the written record is there, and the run continues after it");
      await reopened.close();
    });
  });

  describe("reading a large journal", () => {
    it("reads it a chunk at a time, a record longer than a chunk included, to the same run a whole read gives", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      // Two tool results of 6 MB: the second straddles the first 8 MB chunk's end.
      await writeRun(store, "big-1", 1, 6 * 1024 * 1024);
      const size = lstatSync(join(dir, "big-1.json")).size;
      const fs = countingFileSystem();
      const state = await fileStoreWithSeams({ dir, fileSystem: fs }).load("big-1");
      assert.deepEqual(state, storeContract.decodeRun("big-1", readFileSync(join(dir, "big-1.json")), "x").state);
      assert.equal(fs.bytesRead, size);
      assert.equal(fs.calls.read, Math.ceil(size / (8 * 1024 * 1024)) + 1, "8 MB reads, then one that finds the end");
      const journal = await fileStoreWithSeams({ dir, fileSystem: fs }).open("big-1");
      assert.equal(journal.lastSeq, 4);
      await journal.close();
    });

    it("hands every journal to readJournals in windows that end on a line, a record longer than a window whole", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      // 6 MB results straddle the first 8 MB window's end; a 10 MB one is longer than a window.
      await writeRun(store, "big-1", 2, 6 * 1024 * 1024);
      await writeRun(store, "big-2", 1, 10 * 1024 * 1024);
      await writeRun(store, "small", 1);
      const fs = countingFileSystem();
      const pieces = new Map<string, Buffer[]>();
      await fileStoreWithSeams({ dir, fileSystem: fs }).readJournals((runId, lines) => {
        assert.equal(lines.at(-1), 0x0a, `a piece of ${runId} ends on a line`);
        pieces.set(runId, [...(pieces.get(runId) ?? []), Buffer.from(lines)]);
      });
      const sizes = ["big-1", "big-2", "small"].map((runId) => {
        const file = readFileSync(join(dir, `${runId}.json`));
        assert.deepEqual(Buffer.concat(pieces.get(runId) ?? []), file, runId);
        return file.length;
      });
      assert.equal(
        fs.bytesRead,
        sizes.reduce((sum, size) => sum + size, 0),
        "every byte read once",
      );
      assert.ok((pieces.get("big-1")?.length ?? 0) >= 3, `big-1 in ${pieces.get("big-1")?.length} pieces`);
      assert.equal(pieces.get("small")?.length, 1);
      // The piece holding the long record is the record and what fits around it, never the whole 20 MB journal.
      assert.ok(Math.max(...(pieces.get("big-2") ?? []).map((piece) => piece.length)) < 20 * 1024 * 1024);
    });

    it("stops reading a journal when visit says it has seen enough", async () => {
      const dir = freshDir();
      await writeRun(new FileStore({ dir }), "big-1", 2, 6 * 1024 * 1024);
      const fs = countingFileSystem();
      let pieces = 0;
      await fileStoreWithSeams({ dir, fileSystem: fs }).readJournals(() => {
        pieces++;
        return true;
      });
      assert.equal(pieces, 1);
      assert.equal(fs.bytesRead, 8 * 1024 * 1024, "one window read");
    });
  });

  describe("torn tails and corruption", () => {
    it("tolerates a torn final line on load, and cuts it on open before appending", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await writeRun(store, "torn-1", 2);
      const complete = journalLines(dir, "torn-1");
      const torn = encodeRecord({ seq: 8, ...terminalEntry("completed") }).slice(0, 25);
      appendFileSync(join(dir, "torn-1.json"), torn);
      assert.equal((await store.load("torn-1")).lastSeq, 7, "load ignores the torn line");
      const fs = countingFileSystem();
      const journal = await fileStoreWithSeams({ dir, fileSystem: fs }).open("torn-1");
      const completeBytes = complete.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
      assert.equal(lstatSync(join(dir, "torn-1.json")).size, completeBytes, "open cut the torn line");
      assert.equal(fs.calls.fsync, 1, "and synced the cut");
      await journal.append(8, terminalEntry("suspended"));
      await journal.close();
      const lines = journalLines(dir, "torn-1");
      assert.deepEqual(lines.slice(0, -1), complete, "every complete record is intact");
      assert.deepEqual(JSON.parse(lines.at(-1) as string), { seq: 8, ...terminalEntry("suspended") }, "nothing glued");
    });

    it("reads what is left of a journal cut shorter while it is read", async () => {
      const dir = freshDir();
      await writeRun(new FileStore({ dir }), "shrunk", 1);
      // The size seen first is larger than what the reads then find, as when a resume cuts a torn tail meanwhile.
      const shrinking: FileSystem = {
        ...nodeFileSystem,
        fstat: async (fd) => ({ ...(await nodeFileSystem.fstat(fd)), size: (await nodeFileSystem.fstat(fd)).size + 50 }),
      };
      assert.equal((await fileStoreWithSeams({ dir, fileSystem: shrinking }).load("shrunk")).lastSeq, 4);
    });

    it("treats a journal whose only line is torn as empty", async () => {
      const dir = freshDir();
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, "torn-2.json"), '{"seq":1,"protocol":"io.cho');
      await rejectsWith(new FileStore({ dir }).load("torn-2"), "ERR_EMPTY");
    });

    it("reports interior corruption with the line number", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await writeRun(store, "bad-1", 2);
      const lines = journalLines(dir, "bad-1");
      lines[2] = lines[2]?.slice(0, 30) as string;
      writeFileSync(join(dir, "bad-1.json"), `${lines.join("\n")}\n`);
      await rejectsWith(store.load("bad-1"), "ERR_CORRUPT", /^session bad-1: line 3 is not valid JSON$/);
      lines[2] = JSON.stringify({ seq: 3, protocol: "io.choria.fisk-ai.v1.session.tool_result", tool_result: { tool_use_id: "t0a" } });
      writeFileSync(join(dir, "bad-1.json"), `${lines.join("\n")}\n`);
      await rejectsWith(store.load("bad-1"), "ERR_CORRUPT", /^session bad-1: line 3 is not a valid record: tool_result\.result/);
      await assert.rejects(store.load("bad-1"), (error: unknown) => isRunStateError(error) && error.line === 3 && error.runId === "bad-1");
    });

    it("refuses a journal whose file name is another session's", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await writeRun(store, "alpha", 1);
      writeFileSync(join(dir, "beta.json"), readFileSync(join(dir, "alpha.json")));
      await rejectsWith(store.load("beta"), "ERR_CORRUPT", /beta\.json holds session alpha, not beta/);
      await rejectsWith(store.open("beta"), "ERR_CORRUPT", /holds session alpha/);
      const listed = (await store.list()).find((summary) => summary.runId === "beta");
      assert.deepEqual([listed?.status, /holds session alpha/.test(listed?.problem ?? "")], ["corrupt", true]);
    });

    it("refuses an entry whose own seq disagrees with the seq it is appended at", async () => {
      const journal = await new FileStore({ dir: freshDir() }).create("stray-seq", metaPayload("stray-seq"));
      const stray = { seq: 7, ...terminalEntry("completed") } as unknown as Parameters<typeof journal.append>[1];
      await rejectsWith(journal.append(2, stray), "ERR_INVALID_RECORD", /the entry says seq 7/);
      assert.equal(journal.lastSeq, 1);
      await journal.close();
    });
  });

  describe("locking", () => {
    it("refuses a run a child process holds, naming it, and frees it the moment the child is SIGKILLed", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await (await store.create("held-1", metaPayload("held-1"))).close();
      const { child, pid } = await holdInChild(dir, "held-1");
      try {
        await rejectsWith(store.open("held-1"), "ERR_LOCKED", new RegExp(`held-1 is in use by pid ${pid} on ${hostname()} \\(started `));
        await rejectsWith(store.delete("held-1"), "ERR_LOCKED", new RegExp(`pid ${pid}`));
        assert.equal((await store.load("held-1")).lastSeq, 1, "load does not need the lock");
        const running = await store.summarize("held-1");
        assert.deepEqual([running.status, running.holder?.pid, running.holder?.host], ["running", pid, hostname()]);
      } finally {
        child.kill("SIGKILL");
        await once(child, "exit");
      }
      const crashed = await store.summarize("held-1");
      assert.deepEqual([crashed.status, crashed.holder], ["open", undefined], "a dead holder's note does not make it running");
      const journal = await store.open("held-1");
      await journal.append(2, terminalEntry("completed"));
      await journal.close();
    });

    it("names the holder to a process refused before the holder has written its note, even over a dead holder's note", async () => {
      // A pid that was alive a moment ago: the note a holder killed outright leaves behind.
      const dead = spawnSync(process.execPath, ["-e", "0"]).pid as number;
      for (const gated of ["ftruncate", "write"] as const) {
        const dir = freshDir();
        await (await new FileStore({ dir }).create("racing", metaPayload("racing"))).close();
        writeFileSync(join(dir, "racing.lock"), JSON.stringify({ pid: dead, host: hostname(), started: new Date().toISOString() }));
        // The holder takes the flock, then stops just before it clears the old note (ftruncate) or writes its own (write).
        const holderFs = countingFileSystem();
        let locked = false;
        let reached = false;
        let release = () => undefined as void;
        const gate = new Promise<void>((resolve) => (release = resolve));
        holderFs.before.lockExclusive = () => void (locked = true);
        holderFs.before[gated] = async () => {
          if (!locked) return;
          reached = true;
          await gate;
        };
        const holding = fileStoreWithSeams({ dir, fileSystem: holderFs }).open("racing");
        while (!reached) await new Promise((resolve) => setTimeout(resolve, 1));
        const loserFs = countingFileSystem();
        let settled = false;
        const losing = rejectsWith(
          fileStoreWithSeams({ dir, fileSystem: loserFs }).open("racing"),
          "ERR_LOCKED",
          new RegExp(`racing is in use by pid ${process.pid} on ${hostname()} \\(started `),
        );
        void losing.finally(() => (settled = true)).catch(() => undefined);
        // Let the loser find the lock held and the note not yet the holder's, more than once.
        while ((loserFs.calls.lockExclusive ?? 0) < 3 && !settled) await new Promise((resolve) => setTimeout(resolve, 1));
        release();
        await losing;
        await (await holding).close();
      }
    });

    it("does not take a note whose pid now belongs to another process for a live holder", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await (await store.create("reused", metaPayload("reused"))).close();
      const note = (started: string) => writeFileSync(join(dir, "reused.lock"), JSON.stringify({ pid: process.pid, host: hostname(), started }));
      note(new Date(Date.now() - process.uptime() * 1000).toISOString());
      assert.equal((await store.summarize("reused")).status, "running", "this process, as it noted itself");
      note("2001-01-01T00:00:00.000Z");
      assert.equal((await store.summarize("reused")).status, "open", "the pid is alive, but it is another process than the note's");
    });

    it("keeps a lock file only while the run is held, so listing reads none of a closed run's", async () => {
      const dir = freshDir();
      const journal = await new FileStore({ dir }).create("held-2", metaPayload("held-2"));
      assert.ok(lstatSync(join(dir, "held-2.lock")).isFile());
      await journal.close();
      assert.throws(() => lstatSync(join(dir, "held-2.lock")), /ENOENT/);
      const looked: string[] = [];
      const fs: FileSystem = {
        ...nodeFileSystem,
        sync: { ...nodeFileSystem.sync, lstat: (path) => (looked.push(path), nodeFileSystem.sync.lstat(path)) },
      };
      for (let round = 0; round < 2; round++) await fileStoreWithSeams({ dir, fileSystem: fs }).list();
      assert.deepEqual(
        looked.filter((path) => path.endsWith(".lock")),
        [],
        "no lock file was looked at, with or without the cache",
      );
      const reopened = await new FileStore({ dir }).open("held-2");
      assert.equal((await new FileStore({ dir }).list())[0]?.status, "running", "a lock file again while held");
      await reopened.close();
    });

    it("records the holder's pid, host and start time in the lock file", async () => {
      const dir = freshDir();
      const journal = await new FileStore({ dir }).create("held-3", metaPayload("held-3"));
      const holder = JSON.parse(readFileSync(join(dir, "held-3.lock"), "utf8")) as Record<string, unknown>;
      assert.equal(holder.pid, process.pid);
      assert.equal(holder.host, hostname());
      assert.ok(Date.parse(String(holder.started)) <= Date.now());
      await journal.close();
    });

    it("says no session, and leaves no lock file, to the loser of two deletes racing", async () => {
      const dir = freshDir();
      const fs = countingFileSystem();
      const store = fileStoreWithSeams({ dir, fileSystem: fs });
      await (await store.create("raced", metaPayload("raced"))).close();
      let raced = false;
      fs.before.lockExclusive = async () => {
        if (raced) return;
        raced = true;
        await new FileStore({ dir }).delete("raced");
      };
      await rejectsWith(store.delete("raced"), "ERR_NOT_FOUND", /no session raced/);
      assert.deepEqual(readdirSync(dir), []);
    });

    it("removes the lock file with the run", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await (await store.create("gone-1", metaPayload("gone-1"))).close();
      await store.delete("gone-1");
      assert.throws(() => lstatSync(join(dir, "gone-1.lock")), /ENOENT/);
    });
  });

  describe("list", () => {
    it("lists a journal with a corrupt middle as corrupt, naming its line, as load refuses it", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await writeRun(store, "long-1", 1500, 600);
      const path = join(dir, "long-1.json");
      const lines = journalLines(dir, "long-1");
      lines[1000] = "#".repeat(lines[1000]?.length ?? 0);
      writeFileSync(path, `${lines.join("\n")}\n${encodeRecord({ seq: lines.length + 1, ...terminalEntry("suspended") })}`);
      assert.ok(lstatSync(path).size > 1_000_000, "a long journal");
      for (const pass of ["first", "second (no corrupt summary is cached)"]) {
        const [summary] = await new FileStore({ dir }).list();
        assert.equal(summary?.status, "corrupt", pass);
        assert.match(summary?.problem ?? "", /^session long-1: line 1001 is not valid JSON/, pass);
      }
      await rejectsWith(store.load("long-1"), "ERR_CORRUPT", /^session long-1: line 1001 /);
    });

    it("reads a grown journal again from its first line: the fold that checks it needs every record", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await writeRun(store, "long-2", 1500, 600);
      const path = join(dir, "long-2.json");
      const lastSeq = journalLines(dir, "long-2").length;
      assert.equal((await store.list())[0]?.lastSeq, lastSeq);
      const appended = encodeRecord({ seq: lastSeq + 1, ...titleEntry("grown") });
      appendFileSync(path, appended);
      const fs = countingFileSystem();
      const [again] = await fileStoreWithSeams({ dir, fileSystem: fs }).list();
      assert.deepEqual([again?.lastSeq, again?.digest?.title, again?.digest?.bytes], [lastSeq + 1, "grown", lstatSync(path).size]);
      assert.ok(fs.bytesRead >= lstatSync(path).size, `read ${fs.bytesRead} of ${lstatSync(path).size} bytes`);
    });

    it("reads each of 1,000 sessions once, again once each grew, then only from the cache", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      const journal = await store.create("template", metaPayload("template"));
      let seq = 2;
      for (let turn = 0; turn < 40; turn++) {
        await journal.append(seq++, assistantEntry(turn, `turn ${turn}`, [`t${turn}`]));
        await journal.append(seq++, toolResultEntry(`t${turn}`, "y".repeat(2000)));
      }
      await journal.append(seq, terminalEntry("suspended"));
      await journal.close();
      const [metaLine, ...rest] = journalLines(dir, "template");
      for (let index = 0; index < 1000; index++) {
        const runId = `bulk-${index}`;
        const meta = metaLine?.replace('"run_id":"template"', `"run_id":"${runId}"`);
        writeFileSync(join(dir, `${runId}.json`), `${[meta, ...rest].join("\n")}\n`, { mode: 0o600 });
      }
      const totalBytes = 1000 * lstatSync(join(dir, "bulk-0.json")).size;
      const first = countingFileSystem();
      await fileStoreWithSeams({ dir, fileSystem: first }).list();
      assert.ok(first.bytesRead < totalBytes * 1.1 + 1001 * 3 * 4096, `the first listing read ${first.bytesRead} of ${totalBytes} bytes`);
      const title = encodeRecord({ seq: seq + 1, ...titleEntry("bulk") });
      for (let index = 0; index < 1000; index++) appendFileSync(join(dir, `bulk-${index}.json`), title);
      const fs = countingFileSystem();
      const summaries = (await fileStoreWithSeams({ dir, fileSystem: fs }).list()).filter((summary) => summary.runId.startsWith("bulk-"));
      assert.equal(summaries.length, 1000);
      assert.ok(summaries.every((summary) => summary.status === "suspended" && summary.lastSeq === seq + 1 && summary.digest?.title === "bulk"));
      // Grown journals are read again whole (their fold needs every record); unchanged ones cost a stat.
      assert.ok(fs.bytesRead < totalBytes * 1.1 + 1001 * 3 * 4096, `the listing after the appends read ${fs.bytesRead} of ${totalBytes} bytes`);
      const unchanged = countingFileSystem();
      await fileStoreWithSeams({ dir, fileSystem: unchanged }).list();
      assert.ok(unchanged.bytesRead < totalBytes / 10, `the listing after that read ${unchanged.bytesRead} of ${totalBytes} bytes`);
    });

    it("reports the last complete record when the tail is torn", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await writeRun(store, "torn-list", 1);
      appendFileSync(join(dir, "torn-list.json"), '{"seq":5,"protocol":"io.choria.fis');
      const [summary] = await store.list();
      assert.deepEqual([summary?.status, summary?.lastSeq], ["open", 4]);
    });

    it("lists a run of one record, and says what is wrong with an unreadable one", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await (await store.create("one", metaPayload("one"))).close();
      writeFileSync(join(dir, "junk.json"), "not a journal\n");
      writeFileSync(join(dir, "empty.json"), "");
      const summaries = new Map((await store.list()).map((summary) => [summary.runId, summary]));
      assert.deepEqual([summaries.get("one")?.status, summaries.get("one")?.lastSeq], ["open", 1]);
      assert.equal(summaries.get("junk")?.status, "corrupt");
      assert.match(summaries.get("junk")?.problem ?? "", /line 1 is not valid JSON/);
      assert.match(summaries.get("empty")?.problem ?? "", /no complete record/);
    });

    it("ignores files that are not journals", async () => {
      const dir = freshDir();
      const store = new FileStore({ dir });
      await writeRun(store, "real-1", 1);
      for (const name of ["real-1.json.tmp", "notes.txt", "bad name.json", ".hidden.json"]) writeFileSync(join(dir, name), "x");
      assert.deepEqual(
        (await store.list()).map((summary) => summary.runId),
        ["real-1"],
      );
    });

    describe("summary cache", () => {
      const CACHE = SUMMARY_CACHE_NAME;

      /** Three closed runs listed once, so the cache holds all three. */
      async function cachedDir(): Promise<string> {
        const dir = freshDir();
        const store = new FileStore({ dir });
        for (const runId of ["c-1", "c-2", "c-3"]) await writeRun(store, runId, 2);
        await store.list();
        assert.ok(lstatSync(join(dir, CACHE)).isFile(), "the first listing writes the cache");
        return dir;
      }

      const statuses = async (dir: string, fs?: FileSystem) =>
        Object.fromEntries(
          (await fileStoreWithSeams({ dir, fileSystem: fs }).list()).map((summary) => [summary.runId, `${summary.status}@${summary.lastSeq}`]),
        );

      it("gives from the cache exactly the summaries the journals give, holding a shared fingerprint once", async () => {
        const dir = await cachedDir();
        const fromCache = await new FileStore({ dir }).list();
        rmSync(join(dir, CACHE));
        const fromJournals = await new FileStore({ dir }).list();
        const byId = (summaries: RunSummary[]) => [...summaries].sort((a, b) => (a.runId < b.runId ? -1 : 1));
        assert.deepEqual(byId(fromCache), byId(fromJournals));
        const file = JSON.parse(readFileSync(join(dir, CACHE), "utf8")) as { fingerprints: unknown[]; entries: unknown[] };
        assert.deepEqual([file.fingerprints.length, file.entries.length], [1, 3], "three runs of one agent, one fingerprint");
      });

      it("lists unchanged journals from the cache alone, without opening one", async () => {
        const dir = await cachedDir();
        const fs = countingFileSystem();
        assert.deepEqual(await statuses(dir, fs), { "c-1": "open@7", "c-2": "open@7", "c-3": "open@7" });
        assert.equal(fs.calls["sync.open"], 1, "only the cache file is opened");
        assert.equal(fs.calls["sync.lstat"], 3, "one stat a journal");
        assert.equal(fs.bytesRead, lstatSync(join(dir, CACHE)).size, "only the cache is read");
        assert.equal(fs.calls.rename, undefined, "an unchanged cache is not written again");
      });

      it("checks a lock file left by a dead holder once, then knows it by one stat until it changes", async () => {
        const dir = await cachedDir();
        const lockPath = join(dir, "c-2.lock");
        // The note of a process that is gone: this host, a pid no process can have.
        writeFileSync(lockPath, JSON.stringify({ pid: 2 ** 22 + 1, host: hostname(), started: "2026-12-01T00:00:00.000Z" }));
        const calls = (fs: ReturnType<typeof countingFileSystem>) => [
          fs.calls["sync.open"],
          fs.calls["sync.read"],
          fs.calls["sync.close"],
          fs.calls["sync.lstat"],
          fs.calls["sync.fstat"],
        ];
        const first = countingFileSystem();
        assert.deepEqual(await statuses(dir, first), { "c-1": "open@7", "c-2": "open@7", "c-3": "open@7" });
        assert.deepEqual(calls(first), [2, 2, 2, 4, 1], "the cache and the lock file opened, read and closed once each; a stat a journal and one of the lock");
        const second = countingFileSystem();
        assert.deepEqual(await statuses(dir, second), { "c-1": "open@7", "c-2": "open@7", "c-3": "open@7" });
        assert.deepEqual(calls(second), [1, 1, 1, 4, 1], "only the cache read: the lock file known dead by its stat");
        assert.equal(second.calls.rename, undefined, "nothing new to write");
        // A live holder's note in the same file: a new key, read again.
        const started = new Date(Date.now() - process.uptime() * 1000).toISOString();
        writeFileSync(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), started }));
        const listed = await new FileStore({ dir }).list();
        assert.deepEqual(listed.find((summary) => summary.runId === "c-2")?.holder?.pid, process.pid);
      });

      it("reads a journal again when it grows, is rewritten in place, or is replaced", async () => {
        const dir = await cachedDir();
        const store = new FileStore({ dir });
        const journal = await store.open("c-1");
        await journal.append(8, terminalEntry("completed"));
        await journal.close();
        // Same size, new mtime: the prompt changed in place, byte for byte.
        const twoPath = join(dir, "c-2.json");
        const before = lstatSync(twoPath);
        writeFileSync(twoPath, readFileSync(twoPath, "utf8").replace('"prompt":"', '"prompt":"!').replace('"text":"turn 1"', '"text":"turn "'));
        assert.equal(lstatSync(twoPath).size, before.size);
        utimesSync(twoPath, before.atime, new Date(before.mtimeMs + 5000));
        // Same size and mtime, another file: renamed over the journal. (utimes sets whole
        // milliseconds: the cache is first brought to such an mtime.)
        const threePath = join(dir, "c-3.json");
        const stamp = new Date(Math.floor(lstatSync(threePath).mtimeMs) - 60_000);
        utimesSync(threePath, stamp, stamp);
        await store.list();
        const three = lstatSync(threePath);
        const lines = journalLines(dir, "c-3");
        const replaced = lines.join("\n").replace('"prompt":"', '"prompt":"?').replace('"text":"turn 1"', '"text":"turn "');
        writeFileSync(`${threePath}.new`, `${replaced}\n`, { mode: 0o600 });
        renameSync(`${threePath}.new`, threePath);
        utimesSync(threePath, stamp, stamp);
        assert.deepEqual([lstatSync(threePath).size, lstatSync(threePath).mtimeMs], [three.size, three.mtimeMs]);

        const summaries = new Map((await store.list()).map((summary) => [summary.runId, summary]));
        assert.deepEqual([summaries.get("c-1")?.status, summaries.get("c-1")?.lastSeq], ["completed", 8], "grown");
        assert.match(summaries.get("c-2")?.meta?.prompt ?? "", /^!/, "rewritten in place");
        assert.match(summaries.get("c-3")?.meta?.prompt ?? "", /^\?/, "replaced");
        assert.deepEqual(await statuses(dir, countingFileSystem()), await statuses(dir), "and the cache now holds the new summaries");
      });

      it("is safe to delete or damage: the listing is the same, read from the journals, and the cache is written again", async () => {
        const dir = await cachedDir();
        const want = await statuses(dir);
        for (const damage of [
          () => rmSync(join(dir, CACHE)),
          () => writeFileSync(join(dir, CACHE), "not json"),
          () => writeFileSync(join(dir, CACHE), JSON.stringify({ format: 999, entries: [] })),
          () => writeFileSync(join(dir, CACHE), readFileSync(join(dir, CACHE), "utf8").replaceAll('"c-2"', '"c-9"')),
          () => (rmSync(join(dir, CACHE)), symlinkSync(join(dir, "c-1.json"), join(dir, CACHE))),
        ]) {
          damage();
          const fs = countingFileSystem();
          assert.deepEqual(await statuses(dir, fs), want, damage.toString());
          assert.equal(fs.calls.rename, 1, `the cache is written again after ${damage.toString()}`);
          assert.ok(lstatSync(join(dir, CACHE)).isFile());
        }
        assert.equal(
          readFileSync(join(dir, "c-1.json"), "utf8").split("\n")[0]?.includes('"run_id":"c-1"'),
          true,
          "a symlinked cache wrote nothing through it",
        );
      });

      it("keeps no holder: a run is running while held and not once its writer is gone, journal unchanged", async () => {
        const dir = await cachedDir();
        const journal = await new FileStore({ dir }).open("c-2");
        assert.equal((await statuses(dir))["c-2"], "running@7");
        await journal.close();
        assert.equal((await statuses(dir))["c-2"], "open@7");
      });

      it("drops the entries of removed runs, keeps no corrupt one, and lists even when it cannot be written", async () => {
        const dir = await cachedDir();
        await new FileStore({ dir }).delete("c-3");
        writeFileSync(join(dir, "junk.json"), "not a journal\n");
        await new FileStore({ dir }).list();
        const cached = (JSON.parse(readFileSync(join(dir, CACHE), "utf8")) as { entries: [string][] }).entries.map(([runId]) => runId);
        assert.deepEqual(cached.sort(), ["c-1", "c-2"]);
        rmSync(join(dir, CACHE));
        const fs = countingFileSystem();
        fs.before.rename = () => {
          throw Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });
        };
        assert.deepEqual(Object.keys(await statuses(dir, fs)).sort(), ["c-1", "c-2", "junk"]);
        assert.deepEqual(readdirSync(dir).sort(), ["c-1.json", "c-2.json", "junk.json"], "no cache and no temporary file left");
      });
    });

    it("lists nothing, and creates nothing, when the directory does not exist", async () => {
      const dir = freshDir();
      assert.deepEqual(await new FileStore({ dir }).list(), []);
      assert.throws(() => lstatSync(dir), /ENOENT/);
    });
  });

  it("folds what a completed run journaled", async () => {
    const dir = freshDir();
    const store = new FileStore({ dir });
    const journal = await store.create("fold-1", metaPayload("fold-1"));
    for (const { seq, ...entry } of completedRun("fold-1").slice(1)) await journal.append(seq, entry);
    await journal.close();
    assert.deepEqual(
      journalLines(dir, "fold-1"),
      completedRun("fold-1").map((record) => JSON.stringify(record)),
    );
  });
});
