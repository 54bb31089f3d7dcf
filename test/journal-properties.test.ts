// covers: src/runstate/records/journal-codec.ts, src/runstate/views/fold.ts, src/runstate/views/journal-verify.ts
// process: shared
// Property tests: generated journals (valid, mutated, truncated; every record kind; record
// versions 2, 3 and 4) read by decode, fold, verify, show's streaming reader, resume's load
// and ls, which must agree (test/helpers/journal-properties.ts). A short run with a fixed
// seed; `npm run bench:fuzz` runs long. Reproduce a failure with the seed and path it prints.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, it } from "node:test";
import fc from "fast-check";
import { checkReadersAgree, generatedJournal } from "./helpers/journal-properties.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-properties-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));

it("decode, fold, verify, show, load and ls agree on 300 generated journals", async () => {
  let tried = 0;
  await fc.assert(
    fc.asyncProperty(generatedJournal, async (bytes) => {
      await checkReadersAgree(bytes, join(ROOT, String(tried++)));
    }),
    { seed: Number(process.env.JOURNAL_PROPERTIES_SEED ?? 0x38f15c), numRuns: Number(process.env.JOURNAL_PROPERTIES_RUNS ?? 300) },
  );
});
