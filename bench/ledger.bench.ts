// Benchmark of the ledger's commands over a large state directory: `npm run bench:ledger`.
// 10,000 sessions of about 100 KB (1 GB of journals), every hundredth titled with a word
// found nowhere else. Each command runs through the real CLI in a child process, timed
// from spawn to exit, beside its reference in the same run, the sides interleaved and
// their order reversed every round:
//   - `session stats` and `session du` beside `session ls`: all three read summaries only;
//   - `session ls` beside the same listing by the CLI this branch started from, when
//     `--baseline PATH` names that CLI's dist/cli/main.js (it lists a hard-linked copy of
//     the directory, so that the two summary caches do not overwrite each other);
//   - `session search` beside `grep -rl` over the same files: a word in 1% of sessions
//     (exact case, with a capital) and a word in none (any case: `grep -rli`), both of
//     which read every byte of every journal.
// Figures are warm-cache: the journals were written moments before, and the summary cache
// is in place (the first listing, reported apart, reads every journal once to write it).
// `--sessions N` and `--bytes B` make a smaller directory; `--rounds R` the measured rounds.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { encodeRecord } from "../src/journal.js";
import { titleEntry } from "../src/conformance/record-builders.js";
import { formatCount, formatGb, formatMs, formatRatio, machineLine, printTable } from "./report.js";
import { writeSessions } from "./session-dir.js";
import { interleave, median } from "./stats.js";

const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const CLI_SHOWN = "node dist/cli/main.js";
const NEEDLE = "Zq-Ledger-Mark";
const ABSENT = "zq-nowhere-found";

const { values } = parseArgs({
  options: {
    sessions: { type: "string", default: "10000" },
    bytes: { type: "string", default: "100000" },
    rounds: { type: "string", default: "5" },
    baseline: { type: "string" },
  },
});
const SESSIONS = Number(values.sessions);
const BYTES = Number(values.bytes);
const ROUNDS = Number(values.rounds);
const COMMAND = `npm run bench:ledger --${values.sessions === "10000" ? "" : ` --sessions ${SESSIONS}`}${values.bytes === "100000" ? "" : ` --bytes ${BYTES}`}${values.baseline === undefined ? "" : ` --baseline ${values.baseline}`}`;

/** Runs a program to its exit; resolves to its wall time and output. */
function timedRun(program: string, args: readonly string[], okCodes: readonly number[] = [0]): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(program, args, { stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.once("error", reject);
    child.once("close", (code) => {
      const ms = performance.now() - started;
      if (!okCodes.includes(code ?? -1)) reject(new Error(`${program} ${args.join(" ")} exited ${code}: ${Buffer.concat(stderr).toString()}`));
      else resolve({ ms, stdout: Buffer.concat(stdout).toString("utf8") });
    });
  });
}

const node = (cli: string, args: readonly string[]) => timedRun(process.execPath, [cli, ...args]);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(join(tmpdir(), "fisk-ai-ledger-bench-"));
  try {
    const written = writeSessions(dir, SESSIONS, BYTES);
    // A title every hundredth session: the word the exact-case search finds.
    let titled = 0;
    written.runIds.forEach((runId, index) => {
      if (index % 100 !== 0) return;
      const seq = (written.expected.get(runId)?.lastSeq ?? 0) + 1;
      fs.appendFileSync(join(dir, `${runId}.json`), encodeRecord({ seq, ...titleEntry(`${NEEDLE} ${index}`) }));
      titled++;
    });
    const state = ["--state-dir", dir];
    const first = await node(CLI, ["session", "ls", "--json", ...state]);
    const listed = JSON.parse(first.stdout) as { id: string; title: string | null }[];
    if (listed.length !== SESSIONS || listed.filter((entry) => entry.title !== null).length !== titled)
      throw new Error("the first listing does not list every session and title");

    const baselineDir = `${dir}-baseline`;
    if (values.baseline !== undefined) {
      fs.mkdirSync(baselineDir, { mode: 0o700 });
      for (const name of fs.readdirSync(dir)) if (!name.startsWith(".")) fs.linkSync(join(dir, name), join(baselineDir, name));
      await node(values.baseline, ["session", "ls", "--json", "--state-dir", baselineDir]);
    }

    const expectFound = (count: number) => (run: { ms: number; stdout: string }) => {
      const found = run.stdout.startsWith("[") ? (JSON.parse(run.stdout) as unknown[]).length : run.stdout.split("\n").filter((line) => line !== "").length;
      if (found !== count) throw new Error(`found ${found} sessions, not ${count}`);
      return run.ms;
    };
    const sides: Record<string, () => Promise<number>> = {
      ls: async () => (await node(CLI, ["session", "ls", "--json", ...state])).ms,
      stats: async () => (await node(CLI, ["session", "stats", "--by", "model", "--json", ...state])).ms,
      du: async () => (await node(CLI, ["session", "du", "--json", ...state])).ms,
      search: async () => expectFound(titled)(await node(CLI, ["session", "search", NEEDLE, "--json", ...state])),
      grep: async () => expectFound(titled)(await timedRun("grep", ["-rl", "--include=*.json", NEEDLE, dir])),
      searchAbsent: async () => expectFound(0)(await node(CLI, ["session", "search", ABSENT, "--json", ...state])),
      grepAbsent: async () => expectFound(0)(await timedRun("grep", ["-rli", "--include=*.json", ABSENT, dir], [1])),
    };
    if (values.baseline !== undefined) {
      const baseline = values.baseline;
      sides.baselineLs = async () => (await node(baseline, ["session", "ls", "--json", "--state-dir", baselineDir])).ms;
    }
    const results = await interleave(sides, ROUNDS, 1);
    const ms = Object.fromEntries(Object.entries(results).map(([name, samples]) => [name, median(samples)])) as Record<string, number>;
    const row = (label: string, side: string, reference: string, referenceLabel: string): string[] => [
      label,
      formatMs(ms[side] as number),
      referenceLabel,
      formatMs(ms[reference] as number),
      formatRatio((ms[side] as number) / (ms[reference] as number)),
    ];
    const rows = [
      row(`${CLI_SHOWN} session stats --by model --json`, "stats", "ls", "session ls --json"),
      row(`${CLI_SHOWN} session du --json`, "du", "ls", "session ls --json"),
      ...(values.baseline === undefined ? [] : [row(`${CLI_SHOWN} session ls --json`, "ls", "baselineLs", "the baseline's session ls --json")]),
      row(`${CLI_SHOWN} session search ${NEEDLE} --json (exact case, ${titled} found)`, "search", "grep", `grep -rl ${NEEDLE}`),
      row(`${CLI_SHOWN} session search ${ABSENT} --json (any case, none found)`, "searchAbsent", "grepAbsent", `grep -rli ${ABSENT}`),
    ];
    printTable(
      `fisk-ai session stats, du, ls and search over ${formatCount(SESSIONS)} sessions, ${formatGb(written.bytes)} GB of journals (median of ${ROUNDS} rounds, ms)`,
      ["command", "ms", "reference", "ms", "ratio"],
      rows,
      [`the first listing, which reads every journal once to write the summary cache: ${formatMs(first.ms)} ms`, machineLine(dir), `command: ${COMMAND}`],
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(`${dir}-baseline`, { recursive: true, force: true });
  }
}

await main();
