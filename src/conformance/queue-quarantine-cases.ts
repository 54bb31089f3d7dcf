// The queue conformance cases of bad entries (docs/workers.md, "Quarantine"): whatever
// anyone who can write where a backend keeps its entries puts there, the backend sets it
// aside once, names it, lets it be removed, and goes on serving every other run. The
// backend's harness plants each bad thing (QueueHarness.plant); nothing here knows how.
import assert from "node:assert/strict";
import { it } from "node:test";
import { RunStateError } from "../runstate/errors.js";
import type { QuarantinedEntry } from "../queue/quarantine.js";
import { encodeEntry, QUEUE_ENTRY_MAX_BYTES, type QueuedRun, type RunQueue } from "../queue/run-queue.js";

/** What a harness plants: bytes, or (where entries are files) a symlink, a FIFO or a directory in the entry's place. */
export type PlantedBad = Uint8Array | "symlink" | "fifo" | "directory";

/** Where a bad thing is planted: where run `runId`'s entry goes, or (`behind`) where a follow-up to it waits. */
export interface PlantAt {
  /** The run whose entry's place (or follow-ups' place) it takes. */
  runId: string;
  /** Where a follow-up to the run waits, rather than where its entry goes. */
  behind: boolean;
}

const bytes = (text: string) => new TextEncoder().encode(text);

/** Each bad thing the cases plant, made from a valid entry of another run (`other`). */
const BAD_ENTRIES: { what: string; bad(other: QueuedRun): PlantedBad; behind?: true }[] = [
  { what: "bytes that are not JSON", bad: () => bytes("{not json") },
  { what: "JSON that is not an entry", bad: () => bytes('{"runId":5}') },
  { what: "JSON null", bad: () => bytes("null") },
  { what: "an entry whose run id is ../../etc/passwd", bad: (other) => bytes(JSON.stringify({ ...other, runId: "../../etc/passwd" })) },
  { what: "another run's entry", bad: (other) => bytes(encodeEntry(other)) },
  { what: "an entry past the size limit", bad: (other) => bytes(JSON.stringify({ ...other, followUp: "x".repeat(QUEUE_ENTRY_MAX_BYTES) })) },
  { what: "a symlink", bad: () => "symlink" },
  { what: "a FIFO", bad: () => "fifo" },
  { what: "a directory", bad: () => "directory" },
  { what: "garbage where a follow-up waits", bad: () => bytes("\u0000\u00ff garbage"), behind: true },
  { what: "another run's follow-up where one waits", bad: (other) => bytes(encodeEntry({ ...other, followUp: "not yours" })), behind: true },
];

/** What the cases need of the suite around them. */
export interface QuarantineCasesContext {
  /** The two queues of the suite (another worker's is the second). */
  queues(): [RunQueue, RunQueue];
  /** A new session queued; the entry as queued. */
  queued(): Promise<QueuedRun>;
  /** A run id no session has. */
  freshId(): string;
  /** The harness's hook: plants `bad` at `at`; false when the backend cannot hold such a thing (the case passes unasked). */
  plant(at: PlantAt, bad: PlantedBad): Promise<boolean>;
}

/** How long a claim may take to get past what was planted to the good run: a backend hands out a passed-over message again after a delay. */
const SERVED_WITHIN_MS = 10_000;

/** Declares the cases (inside the suite's describe). */
export function quarantineCases(context: QuarantineCasesContext): void {
  for (const { what, bad, behind = false } of BAD_ENTRIES) {
    it(`a bad entry (${what}${behind ? "" : ", older than every run"}) is set aside once, named and removable by name, and every other run is served`, async () => {
      const [first, second] = context.queues();
      const heard: QuarantinedEntry[] = [];
      const stops = [first.onQuarantine((entry) => heard.push(entry)), second.onQuarantine((entry) => heard.push(entry))];
      try {
        const other: QueuedRun = { ...(await context.queued()), followUp: "the template" };
        await first.withdraw(other.runId);
        const slot = behind ? undefined : context.freshId();
        if (slot !== undefined && !(await context.plant({ runId: slot, behind: false }, bad(other)))) return;
        const good = await context.queued();
        if (behind && !(await context.plant({ runId: good.runId, behind: true }, bad(other)))) return await first.withdraw(good.runId);

        let claim = await second.claim(() => true);
        for (const until = Date.now() + SERVED_WITHIN_MS; claim === undefined && Date.now() < until; ) claim = await second.claim(() => true);
        assert.equal(claim?.entry.runId, good.runId, "the good run is served");
        await claim?.finish();
        assert.deepEqual(await first.list(), [], "nothing is left queued: no follow-up was made of what was planted");
        assert.deepEqual(await second.behind(good.runId), []);
        if (slot !== undefined) assert.equal(await second.get(slot), undefined);

        const [setAside, ...more] = await second.quarantined();
        assert.deepEqual(more, [], "one thing was planted, one is set aside");
        assert.ok(setAside !== undefined && setAside.reason.length > 0, "it is named, with why");
        assert.deepEqual(
          heard.map((entry) => entry.name),
          [setAside.name],
          "the queue that set it aside told its listeners once",
        );
        assert.deepEqual(await first.quarantined(), [setAside], "both queues see it");
        await first.discard(setAside.name);
        assert.deepEqual(await second.quarantined(), []);
        await assert.rejects(first.discard(setAside.name), (error: unknown) => error instanceof RunStateError && error.code === "ERR_NOT_FOUND");
      } finally {
        for (const stop of stops) stop();
      }
    });
  }

  it("discard of a name nothing was set aside under, or of a path, is ERR_NOT_FOUND", async () => {
    const [first] = context.queues();
    for (const name of ["nothing.json", "../../etc/passwd", "quarantine.1", ".", ""])
      await assert.rejects(first.discard(name), (error: unknown) => error instanceof RunStateError && error.code === "ERR_NOT_FOUND", name);
  });

  it("an entry past the size limit is refused at enqueue (ERR_INVALID_RECORD), so no run a user queued is ever set aside for its size", async () => {
    const [first] = context.queues();
    const entry = await context.queued();
    await assert.rejects(
      first.enqueue({ ...entry, followUp: "x".repeat(QUEUE_ENTRY_MAX_BYTES) }),
      (error: unknown) => error instanceof RunStateError && error.code === "ERR_INVALID_RECORD",
    );
    await first.withdraw(entry.runId);
    assert.deepEqual(await first.quarantined(), []);
  });
}
