// The contract every Store backend keeps (docs/backends.md), as node:test cases: one
// describe block a method, each in its own file under store/, so that a failing case's
// name starts with the method it found broken. A backend's test file calls
// runStoreConformance with a harness and runs under `node --test`; nothing here knows
// how a backend stores bytes.
import { after, before, describe } from "node:test";
import type { Store } from "../runstate/store/store.js";
import { appendCases } from "./store/append.js";
import { closeCases } from "./store/close.js";
import { createCases } from "./store/create.js";
import { deleteCases } from "./store/delete.js";
import { importJournalCases } from "./store/import-journal.js";
import { journalCloseCases } from "./store/journal-close.js";
import { listCases } from "./store/list.js";
import { loadCases } from "./store/load.js";
import { openCases } from "./store/open.js";
import { readJournalCases } from "./store/read-journal.js";
import { readJournalsCases } from "./store/read-journals.js";
import { readRecordsCases } from "./store/read-records.js";
import { recordsCases } from "./store/records.js";
import { summarizeCases } from "./store/summarize.js";
import type { StoreHarness, Suite } from "./store/suite.js";

/**
 * Declares the Store conformance suite with node:test: one `describe` named after
 * `backend`, a block of cases for each Store and Journal method, run under `node --test`.
 * Each case makes what it needs through `harness`; a case that needs what the harness
 * does not offer (exclusiveOpen, failingWrites, takeOver) is skipped, saying why.
 */
export function runStoreConformance(backend: string, harness: StoreHarness): void {
  describe(`Store conformance: ${backend}`, () => {
    const made: Store[] = [];
    const track = async (making: Promise<Store>) => {
      const store = await making;
      made.push(store);
      return store;
    };
    let store: Store | undefined;
    const suite: Suite = {
      harness,
      get store() {
        if (store === undefined) throw new Error("the conformance suite's store is made before its first case");
        return store;
      },
      exclusive: harness.capabilities.exclusiveOpen,
      makeStore: () => track(harness.makeStore()),
      sameStorage: (of) => track(harness.sameStorage(of)),
      failingWrites: (failing) => {
        if (harness.failingWrites === undefined) throw new Error("the harness has no failingWrites");
        return track(harness.failingWrites(failing));
      },
      skip: {
        unlessExclusive: harness.capabilities.exclusiveOpen ? false : "the backend does not declare exclusiveOpen",
        unlessFailingWrites: harness.failingWrites !== undefined ? false : "the harness cannot make writes fail (failingWrites)",
        unlessTakeOver: harness.takeOver !== undefined ? false : "the harness cannot have another writer take a run over (takeOver)",
      },
    };
    before(async () => {
      await harness.setup?.();
      store = await suite.makeStore();
    });
    after(async () => {
      for (const each of made) await each.close();
      await harness.teardown?.();
    });

    createCases(suite);
    openCases(suite);
    appendCases(suite);
    recordsCases(suite);
    journalCloseCases(suite);
    loadCases(suite);
    listCases(suite);
    summarizeCases(suite);
    readJournalCases(suite);
    readJournalsCases(suite);
    readRecordsCases(suite);
    importJournalCases(suite);
    deleteCases(suite);
    closeCases(suite);
  });
}
