// The crash matrix at scale: `npm run bench:crash -- --kills 2000 [--seed N]`. The same
// trials as test/crash-matrix.test.ts (real CLI, strict Anthropic fake, seeded SIGKILLs,
// resumes killed again at random), as many as it takes to land that many kills. Prints
// where the kills landed, the repeats they caused against each tool's policy, and every
// failure with its trial, so `--seed` reproduces it.
import { tmpdir } from "node:os";
import { parseArgs } from "node:util";
import { runCrashMatrix } from "../test/helpers/crash-matrix.js";
import { formatCount, machineLine, printTable } from "./report.js";

const { values } = parseArgs({ options: { kills: { type: "string", default: "1000" }, seed: { type: "string" } } });
const kills = Number(values.kills);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isInteger(kills) || kills < 1 || !Number.isInteger(seed)) {
  console.error("usage: npm run bench:crash -- [--kills N] [--seed N]");
  process.exit(2);
}

console.log(`npm run bench:crash -- --kills ${kills} --seed ${seed}`);
console.log(machineLine(tmpdir()));
let done = 0;
const report = await runCrashMatrix({
  seed,
  kills,
  onTrial: (trial) => {
    done += trial.kills;
    if (trial.failures.length > 0) console.log(`trial ${trial.trial}: FAILED: ${trial.failures.join("; ")}`);
    else if (trial.trial % 50 === 0) console.log(`  ${formatCount(done)} kills so far`);
  },
});

const landings = new Map<string, number>();
for (const trial of report.trials) for (const kind of trial.killedAfter) landings.set(kind, (landings.get(kind) ?? 0) + 1);
printTable(
  "Where the kills landed (the journal's last record after the kill)",
  ["last record", "kills", "share"],
  [...landings].sort((a, b) => b[1] - a[1]).map(([kind, count]) => [kind, formatCount(count), `${((100 * count) / report.kills).toFixed(1)}%`]),
  ["none: before the session was created; a torn line would show as torn"],
);

const sum = (pick: (trial: (typeof report.trials)[number]) => number) => report.trials.reduce((total, trial) => total + pick(trial), 0);
const failed = report.trials.filter((trial) => trial.failures.length > 0);
printTable(
  "Outcome",
  ["", "sequential", "parallel", "all"],
  [
    ["trials", ...split((trials) => trials.length)],
    ["kills", ...split((trials) => trials.reduce((total, trial) => total + trial.kills, 0))],
    ["note repeats (on_crash: rerun, at most 1 a kill)", ...split((trials) => trials.reduce((total, trial) => total + trial.noteRepeats, 0))],
    ["send runs > 1 (on_crash: never, must be 0)", ...split((trials) => trials.filter((trial) => trial.sends > 1).length)],
    ["failed trials", ...split((trials) => trials.filter((trial) => trial.failures.length > 0).length)],
  ],
  [
    `uninterrupted run: session created at ${Math.round(report.uninterrupted.createdMs)} ms, done at ${Math.round(report.uninterrupted.ms)} ms; requests the fake refused: ${report.rejectedRequests.length}; repeats per kill: ${(sum((trial) => trial.noteRepeats) / report.kills).toFixed(3)}`,
  ],
);
process.exitCode = failed.length > 0 || report.rejectedRequests.length > 0 ? 1 : 0;

function split(measure: (trials: typeof report.trials) => number): string[] {
  const sequential = report.trials.filter((trial) => !trial.parallel);
  const parallel = report.trials.filter((trial) => trial.parallel);
  return [measure(sequential), measure(parallel), measure(report.trials)].map(formatCount);
}
