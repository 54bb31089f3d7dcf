// A journal as the CLI left it on disk, read back by the tests that check what it wrote.
import { readFileSync } from "node:fs";
import type { JournalRecord } from "../../src/runstate/records/records.js";

/** The records of the journal file at `path`, each line parsed as it stands (no checks: the test makes them). */
export function journalRecords(path: string): JournalRecord[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as JournalRecord);
}
