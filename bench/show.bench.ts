// Looking at a long session (issue 27): `session show --json`, `--transcript` (plain) and
// `session export --format html` of a journal of about 1 GB (some 500,000 records shaped as
// a real run writes them, as bench:resume writes them), each the real CLI in a fresh process
// with the default heap, writing to /dev/null; beside them, a process that reads the same
// bytes. Then the viewer's first screen of a 100 MB journal beside a fold of it, which is
// what a viewer that laid out the whole transcript would do first. Each prints time and peak RSS.
// Last, the viewer as a person meets it (issue 37): `session show ID --transcript` launched in
// a tmux pane, timed from launch to its first screen, beside `--no-tui` printing the same
// transcript to the pane and `node -e 0`, for a small session, 100 MB of small records and
// 100 results of 1 MB; the median of SHOW_RUNS launches each.
//   npm run bench:show            SHOW_GB=<n> for another size; SHOW_ONLY=terminal for the last table alone
import { fork, spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { FirstScreenResult } from "./first-screen-child.js";
import type { LoadChildResult } from "./load-child.js";
import { formatCount, formatGb, formatMb, formatMs, formatRatio, freeBytes, GB, machineLine, MB, printTable } from "./report.js";
import { writeLargeJournal } from "./run-records.js";
import { TerminalLauncher, type Launch } from "./terminal-launch.js";

const BYTES = Number(process.env.SHOW_GB ?? 1) * GB;
const VIEWER_BYTES = 100 * MB;
const CLI = new URL("../../dist/cli/main.js", import.meta.url).pathname;
const PEAK_RSS = new URL("../test/helpers/report-peak-rss.js", import.meta.url).pathname;
const RUNS = Number(process.env.SHOW_RUNS ?? 5);

interface Side {
  ms: number;
  peakRssKb: number;
}

/** The CLI with `args`, stdout to /dev/null; its wall time and peak RSS. */
async function cli(dir: string, args: string[]): Promise<Side> {
  const rssFile = join(dir, "peak-rss");
  const sink = openSync("/dev/null", "w");
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", PEAK_RSS, CLI, ...args, "--state-dir", dir], {
    env: { ...process.env, FISK_AI_TEST_RSS_FILE: rssFile },
    stdio: ["ignore", sink, "inherit"],
  });
  const [code] = (await once(child, "close")) as [number | null];
  closeSync(sink);
  if (code !== 0) throw new Error(`fisk-ai ${args.join(" ")} exited ${code}`);
  return { ms: performance.now() - started, peakRssKb: Number(readFileSync(rssFile, "utf8")) };
}

function forked<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(script, import.meta.url), args, { stdio: "inherit", execArgv: [] });
    let result: T | undefined;
    child.once("message", (message) => (result = message as T));
    child.once("error", reject);
    child.once("exit", (code) => (result === undefined || code !== 0 ? reject(new Error(`${script} ${args[0]} exited ${code}`)) : resolve(result)));
  });
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-show-"));
  try {
    if (process.env.SHOW_ONLY !== "terminal") await longJournals(dir);
    await inTerminal(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function longJournals(dir: string): Promise<void> {
  if (freeBytes(dir) < BYTES + VIEWER_BYTES + 2 * GB) throw new Error(`need ${formatGb(BYTES + VIEWER_BYTES + 2 * GB)} GB free under ${dir}`);
  const records = writeLargeJournal(join(dir, "long.json"), "long", BYTES, "suspended", 13);
  const size = statSync(join(dir, "long.json")).size;
  const read = await forked<LoadChildResult>("./load-child.js", ["read", dir, "long"]);
  const sides: [string, Side][] = [
    ["session show --json", await cli(dir, ["session", "show", "long", "--json"])],
    ["session show --transcript (plain)", await cli(dir, ["session", "show", "long", "--transcript"])],
    ["session export --format html", await cli(dir, ["session", "export", "long", "--format", "html"])],
  ];
  const row = (name: string, side: Side): string[] => [
    name,
    formatMs(side.ms),
    formatMb(side.peakRssKb * 1024),
    formatRatio(side.ms / read.ms),
    formatRatio(side.peakRssKb / read.peakRssKb),
  ];
  printTable(
    `Showing one ${formatMb(size)} MB journal (${formatCount(records)} records), each a fresh process with the default heap, output to /dev/null`,
    ["", "time ms", "peak RSS MB", "time / read", "RSS / read"],
    [...sides.map(([name, side]) => row(name, side)), row("read the same bytes (readFile, count lines)", read)],
    [
      machineLine(dir),
      "before (issue 27, same shape of journal): --json died after 22 s at 3.7 GB (Invalid string length); --transcript took 12.5 s and 2.7 GB",
    ],
  );

  writeLargeJournal(join(dir, "hundred.json"), "hundred", VIEWER_BYTES, "suspended", 13);
  const viewerSize = statSync(join(dir, "hundred.json")).size;
  const viewer = await forked<FirstScreenResult>("./first-screen-child.js", ["viewer", dir, "hundred"]);
  const fold = await forked<FirstScreenResult>("./first-screen-child.js", ["fold", dir, "hundred"]);
  printTable(
    `The viewer's first screen of one ${formatMb(viewerSize)} MB journal (120 x 40), a fresh process each`,
    ["", "time ms", "peak RSS MB"],
    [
      [`viewer: summary, first records read and laid out (${viewer.items} rows)`, formatMs(viewer.ms), formatMb(viewer.peakRssKb * 1024)],
      [`fold of the whole journal (${formatCount(fold.items)} messages)`, formatMs(fold.ms), formatMb(fold.peakRssKb * 1024)],
      ["viewer/fold", formatRatio(viewer.ms / fold.ms, 4), formatRatio(viewer.peakRssKb / fold.peakRssKb)],
    ],
    [machineLine(dir)],
  );
}

/** The launch of median time of `RUNS`. */
async function median(launch: () => Promise<Launch>): Promise<Launch> {
  const launches: Launch[] = [];
  for (let run = 0; run < RUNS; run++) launches.push(await launch());
  return launches.sort((a, b) => a.ms - b.ms)[Math.floor(RUNS / 2)] as Launch;
}

async function inTerminal(dir: string): Promise<void> {
  const sessions = [
    { runId: "small", what: "a small session", records: writeLargeJournal(join(dir, "small.json"), "small", 200 * 1024, "completed", 13) },
    { runId: "many", what: "many small records", records: writeLargeJournal(join(dir, "many.json"), "many", VIEWER_BYTES, "completed", 13) },
    {
      runId: "large",
      what: "100 results of 1 MB",
      records: writeLargeJournal(join(dir, "large.json"), "large", VIEWER_BYTES, "completed", 13, {
        outputBytes: [MB, MB],
        proseBytes: [200, 900],
        toolsPerTurn: [1, 1],
      }),
    },
  ];
  const terminal = new TerminalLauncher(dir);
  try {
    const idle = await median(() => terminal.launch(["-e", "0"]));
    const rows: string[][] = [];
    for (const { runId, what, records } of sessions) {
      const show = [CLI, "session", "show", runId, "--transcript", "--state-dir", dir];
      const viewer = await median(() => terminal.launch(show, { shows: / · q quit/, quit: "q" }));
      const plain = await median(() => terminal.launch([...show, "--no-tui"]));
      const size = formatMb(statSync(join(dir, `${runId}.json`)).size);
      rows.push(
        [
          `${what} (${size} MB, ${formatCount(records)} records): viewer, to its first screen`,
          formatMs(viewer.ms),
          formatMb((viewer.screenRssKb ?? 0) * 1024),
          formatMb(viewer.exitRssKb * 1024),
          formatRatio(viewer.ms / idle.ms),
        ],
        ["  session show --transcript --no-tui, to its exit", formatMs(plain.ms), "", formatMb(plain.exitRssKb * 1024), formatRatio(plain.ms / idle.ms)],
      );
    }
    rows.push(["node -e 0, to its exit", formatMs(idle.ms), "", formatMb(idle.exitRssKb * 1024), formatRatio(1)]);
    printTable(
      `The viewer as a person sees it: a fresh process in a 120 x 40 tmux pane, timed from launch (median of ${RUNS})`,
      ["", "time ms", "RSS at screen MB", "peak RSS MB", "time / node -e 0"],
      rows,
      [
        machineLine(dir),
        `load average ${loadavg()
          .map((load) => load.toFixed(2))
          .join(" ")} at the end: the machine is shared, so read the ratios`,
      ],
    );
  } finally {
    terminal.close();
  }
}

await main();
