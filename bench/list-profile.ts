// Calls FileStore.list() on a state directory a few times and prints each time, to run
// under `node --cpu-prof` when the sessions benchmark misses its goal. Writes the
// benchmark's sessions into DIR first when DIR holds none, and leaves them there.
// Usage: node [--cpu-prof] .test-build/bench/list-profile.js DIR [ROUNDS] [SESSIONS]
import * as fs from "node:fs";
import { performance } from "node:perf_hooks";
import { FileStore } from "../src/index.js";
import { formatMs, MB } from "./report.js";
import { writeSessions } from "./session-dir.js";

async function main(): Promise<void> {
  const [dir, roundsArg = "5", sessionsArg = "10000"] = process.argv.slice(2);
  if (dir === undefined) throw new Error("usage: list-profile.js DIR [ROUNDS] [SESSIONS]");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!fs.readdirSync(dir).some((name) => name.endsWith(".json"))) {
    const started = performance.now();
    writeSessions(dir, Number(sessionsArg), 1 * MB);
    console.log(`wrote ${sessionsArg} sessions into ${dir} in ${formatMs(performance.now() - started)} ms (kept)`);
  }
  const store = new FileStore({ dir });
  for (let round = 0; round < Number(roundsArg); round++) {
    const started = performance.now();
    const summaries = await store.list();
    console.log(`list() round ${round + 1}: ${summaries.length} sessions in ${formatMs(performance.now() - started)} ms`);
  }
}

await main();
