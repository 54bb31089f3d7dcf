// Start-up benchmark (issue 13): `fisk-ai --help` and `fisk-ai session ls` on an empty
// directory against `node -e 0`, each a fresh process, interleaved round by round.
// Goal: both within 2x of bare Node.     npm run bench:startup    (STARTUP_ROUNDS=<n>)
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 30);
const GOAL = 2;
const CLI = new URL("../../dist/cli/main.js", import.meta.url).pathname;

function run(args: string[], cwd: string): () => Promise<number> {
  return async () => {
    const started = performance.now();
    const child = spawnSync(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const ms = performance.now() - started;
    if (child.status !== 0) throw new Error(`node ${args.join(" ")} failed: ${child.stderr.toString()}`);
    return ms;
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-"));
  try {
    const empty = join(dir, "runs");
    mkdirSync(empty);
    const results = await interleave(
      {
        node: run(["-e", "0"], dir),
        help: run([CLI, "--help"], dir),
        ls: run([CLI, "session", "ls", "--state-dir", empty], dir),
      },
      ROUNDS,
      3,
    );
    const node = median(results.node);
    const rows = [
      ["node -e 0", formatMs(node), formatRatio(1), ""],
      [
        "fisk-ai --help",
        formatMs(median(results.help)),
        formatRatio(median(results.help) / node),
        goalRatio(median(results.help) / node, median(results.help) <= GOAL * node),
      ],
      [
        "fisk-ai session ls (empty dir)",
        formatMs(median(results.ls)),
        formatRatio(median(results.ls) / node),
        goalRatio(median(results.ls) / node, median(results.ls) <= GOAL * node),
      ],
    ];
    printTable(`Start-up: median wall ms of ${ROUNDS} fresh processes each, interleaved`, ["", "ms", "vs node", `goal ${GOAL}x`], rows, [machineLine(dir)]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
