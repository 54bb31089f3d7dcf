// The long run of the journal property tests (test/journal-properties.test.ts): many more
// generated journals, a seed of the clock's unless JOURNAL_FUZZ_SEED is given; prints how
// many it tried. Run: npm run bench:fuzz (JOURNAL_FUZZ_RUNS=20000 for more).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { checkReadersAgree, generatedJournal } from "../test/helpers/journal-properties.js";

const root = mkdtempSync(join(tmpdir(), "fisk-ai-fuzz-"));
const seed = Number(process.env.JOURNAL_FUZZ_SEED ?? Date.now() % 2 ** 31);
const numRuns = Number(process.env.JOURNAL_FUZZ_RUNS ?? 5000);
let tried = 0;
try {
  await fc.assert(
    fc.asyncProperty(generatedJournal, async (bytes) => {
      await checkReadersAgree(bytes, join(root, String(tried++)));
    }),
    { seed, numRuns },
  );
  console.log(`journal fuzz: ${tried} generated journals, decode, fold, verify, show, load and ls agree on each (seed ${seed}; npm run bench:fuzz)`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
