// What every method's cases of the store conformance suite share: the harness a
// backend gives, the stores made for the cases, and the checks they make.
import assert from "node:assert/strict";
import { isRunStateError, type RunStateError, type RunStateErrorCode } from "../../runstate/errors.js";
import { encodeRecord } from "../../runstate/records/journal-codec.js";
import type { Journal, Store } from "../../runstate/store/store.js";
import { assistantEntry, completedRun, metaPayload, terminalEntry } from "../record-builders.js";

/** What a backend promises beyond what every backend must do. */
export interface StoreCapabilities {
  /**
   * A writer holds a run from open (or create) to close: a second open fails at once
   * with ERR_LOCKED naming the holder, list shows the run `running` with that holder,
   * and delete refuses it. Without it, a second writer may open but loses at its first
   * append of a seq the first writer has taken.
   */
  exclusiveOpen: boolean;
}

/** How the conformance suite makes and reaches the stores of a backend under test. */
export interface StoreHarness {
  /** What the backend promises beyond the contract: cases that need more are skipped. */
  capabilities: StoreCapabilities;
  /** Runs once before any case, and may take a while (starting a server). */
  setup?(): Promise<void>;
  /** A fresh, empty store: the suite closes it when done. */
  makeStore(): Promise<Store>;
  /** A second store on the same storage, as another process would open it. */
  sameStorage(store: Store): Promise<Store>;
  /** Writes journal lines for a run exactly as given, bypassing every check. */
  plantRaw(store: Store, runId: string, lines: string[]): Promise<void>;
  /**
   * A fresh, empty store whose journal writes fail, as a failing disk or a server that
   * does not answer fails them, while `failing()` says so; for a backend that can make
   * them fail. The suite closes it when done.
   */
  failingWrites?(failing: () => boolean): Promise<Store>;
  /**
   * Puts another writer's `line` at `seq` of a run that `store` has open, as a writer
   * that took the run over would; for a backend whose writer can lose its run that way.
   */
  takeOver?(store: Store, runId: string, seq: number, line: string): Promise<void>;
  /** Runs once after every case and every store is closed: removes what the harness made. */
  teardown?(): Promise<void>;
}

/** The suite's view of a harness, for the cases of one method. */
export interface Suite {
  harness: StoreHarness;
  /** The store the cases share, made before any case runs. */
  readonly store: Store;
  /** Whether the backend declares exclusiveOpen. */
  exclusive: boolean;
  /** As the harness's, each store closed when the suite is done. */
  makeStore(): Promise<Store>;
  sameStorage(store: Store): Promise<Store>;
  failingWrites(failing: () => boolean): Promise<Store>;
  /** Skip options for the cases of what not every backend does or can simulate. */
  skip: { unlessExclusive: false | string; unlessFailingWrites: false | string; unlessTakeOver: false | string };
}

export async function rejectsWith(
  promise: Promise<unknown>,
  code: RunStateErrorCode,
  message?: RegExp,
  fields: Partial<Pick<RunStateError, "runId" | "seq" | "expectedSeq">> = {},
): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isRunStateError(error), `expected a RunStateError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (message !== undefined) assert.match(error.message, message);
    // A library error names what is wrong; what command to run is a CLI's to add.
    assert.doesNotMatch(error.message, /'fisk-ai |--force/, "no CLI advice in a store's error");
    for (const [field, value] of Object.entries(fields)) assert.equal(error[field as keyof typeof fields], value, `${field} of ${error.message}`);
    return true;
  });
}

/** Appends a completed run's records after its meta, as the loop would. */
export async function appendCompletedRun(journal: Journal): Promise<void> {
  for (const record of completedRun(journal.runId).slice(1)) {
    const { seq, ...entry } = record;
    await journal.append(seq, entry);
  }
}

/**
 * A journal on a failingWrites store whose append of seq 2 failed: ERR_IO, saying what
 * to do. `heal` makes the store's writes succeed again.
 */
export async function journalWithFailedWrite(suite: Suite, runId: string): Promise<{ store: Store; journal: Journal; heal(): void }> {
  let failing = false;
  const store = await suite.failingWrites(() => failing);
  const journal = await store.create(runId, metaPayload(runId));
  failing = true;
  const said = new RegExp(`^writing the journal of session ${runId} failed \\(.+\\): close it and open the session again$`);
  await rejectsWith(journal.append(2, assistantEntry(0, "written?")), "ERR_IO", said);
  return { store, journal, heal: () => (failing = false) };
}

/**
 * A journal of the suite's store at seq 2 whose run another writer took over, putting a
 * completed terminal at seq 3: its own append of seq 3 fails ERR_LOCKED.
 */
export async function journalTakenOver(suite: Suite, runId: string): Promise<Journal> {
  const journal = await suite.store.create(runId, metaPayload(runId));
  await journal.append(2, assistantEntry(0, "mine"));
  await suite.harness.takeOver?.(suite.store, runId, 3, encodeRecord({ seq: 3, ...terminalEntry("completed") }));
  await rejectsWith(journal.append(3, terminalEntry("suspended")), "ERR_LOCKED", new RegExp(`session ${runId} is in use`));
  return journal;
}
