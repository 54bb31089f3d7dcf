// covers: src/agent/agent-loop.ts, src/cli/run/run-command.ts, src/tools/tool.ts
// tier: full
// start: first
// The crash matrix in the suite: about 30 SIGKILLs at seeded random instants of real CLI
// runs (sequential and parallel tools, a rerun tool and an on_crash: never tool) against
// the strict Anthropic fake. FISK_AI_CRASH_SEED=N reproduces a run of it; `npm run
// bench:crash` runs thousands.
import assert from "node:assert/strict";
import { it } from "node:test";
import { runCrashMatrix } from "./helpers/crash-matrix.js";

const KILLS = 30;

it(`every run killed at random (${KILLS} kills) resumes to the uninterrupted answer, within its tools' crash policies`, async (t) => {
  const seed = Number(process.env.FISK_AI_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
  t.diagnostic(`seed ${seed} (FISK_AI_CRASH_SEED=${seed} reproduces it)`);
  const report = await runCrashMatrix({ seed, kills: KILLS });
  const failures = report.trials.flatMap((trial) =>
    trial.failures.map((failure) => `trial ${trial.trial} (${trial.parallel ? "parallel" : "sequential"}, ${trial.kills} kills): ${failure}`),
  );
  assert.deepEqual(failures, [], `seed ${seed}`);
  assert.deepEqual(report.rejectedRequests, [], `seed ${seed}: every request the CLI sent was one the API accepts`);
  assert.ok(report.kills >= KILLS, `seed ${seed}: ${report.kills} kills landed`);
  const landed = new Set(report.trials.flatMap((trial) => trial.killedAfter));
  assert.equal(report.uninterrupted.answer, "Final answer: noted, sent, noted.\n");
  t.diagnostic(
    `uninterrupted run: created at ${Math.round(report.uninterrupted.createdMs)} ms, done at ${Math.round(report.uninterrupted.ms)} ms; ${report.trials.length} trials, ${report.kills} kills, landing after: ${[...landed].sort().join(", ")}`,
  );
});
