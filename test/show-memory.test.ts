// covers: src/cli/session-html.ts, src/cli/session-show.ts, src/cli/show-json.ts
// start: first
// A long session's journal is shown, printed as JSON and exported as a page in bounded
// memory: each command reads records as it writes, never the whole journal. The journal
// here is 64 MB (some 31,000 records shaped as a real run writes them), beside one of 16 MB,
// and each command runs with a JavaScript heap capped at the journal's size: a command that
// held the journal, as one string or as its lines, dies of it (the first test; a lower cap
// only makes the collections that keep a streaming command under it cost more CPU), where a
// larger journal without the cap only took longer to say less. Four times the journal costs far
// less than the journal more. Before, `show --json` held several times its journal's size (about
// 7 times: 750 MB for 100 MB), and died on 1 GB.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { writeLargeJournal } from "../bench/run-records.js";
import { CLI } from "./helpers/cli-harness.js";

const MB = 1024 * 1024;
const JOURNAL_BYTES = 64 * MB;
/** The old-space cap each command runs under: a 64 MB journal held whole needs some 450 MB, read as one string 64 MB. */
const HEAP_CAP_MB = JOURNAL_BYTES / MB;
/**
 * The heap flags each capped process starts with. The young generation is pinned too, at Node
 * 20's default: V8's heap limit is the old-space cap plus the young generation, which Node 24
 * makes several times larger (docs/internals/performance.md, "heap caps across Node versions").
 */
const HEAP_CAP_FLAGS = [`--max-old-space-size=${HEAP_CAP_MB}`, "--max-semi-space-size=16"];
/** The goal for any journal size; --json, which also streams the ledger's calls, peaked at 200 MB here. */
const PEAK_RSS_BOUND = 300 * MB;
const ROOT = mkdtempSync(join(tmpdir(), "fisk-show-memory-"));
const STORE = join(ROOT, "runs");
const PEAK_RSS = new URL("./helpers/report-peak-rss.js", import.meta.url).pathname;

/**
 * The environment of a process under the cap, without NODE_OPTIONS: a module it preloads or a
 * heap flag changes what the cap leaves (under a preloaded hook, the journal held as one string lived).
 */
function cappedEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_OPTIONS;
  return env;
}

/** Runs the CLI with stdout into `output`; resolves to its exit code and peak RSS in bytes. */
async function measured(args: string[], output: string): Promise<{ code: number | null; stderr: string; peakRss: number }> {
  const rssFile = `${output}.rss`;
  const out = openSync(output, "w");
  try {
    const child = spawn(process.execPath, [...HEAP_CAP_FLAGS, "--import", PEAK_RSS, CLI, ...args, "--state-dir", STORE], {
      env: cappedEnv({ NO_COLOR: "1", FISK_AI_TEST_RSS_FILE: rssFile }),
      stdio: ["ignore", out, "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, "close")) as [number | null];
    return { code, stderr, peakRss: Number(readFileSync(rssFile, "utf8")) * 1024 };
  } finally {
    closeSync(out);
  }
}

function tail(path: string, bytes: number): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(bytes);
    const size = statSync(path).size;
    readSync(fd, buffer, 0, bytes, size - bytes);
    return buffer.toString("utf8");
  } finally {
    closeSync(fd);
  }
}

describe(`showing a journal of ${JOURNAL_BYTES / MB} MB with a heap of ${HEAP_CAP_MB} MB`, () => {
  let lastSeq = 0;
  before(() => {
    mkdirSync(STORE, { recursive: true, mode: 0o700 });
    lastSeq = writeLargeJournal(join(STORE, "long.json"), "long", JOURNAL_BYTES, "completed", 27);
    writeLargeJournal(join(STORE, "short.json"), "short", JOURNAL_BYTES / 4, "completed", 27);
  });
  after(() => rmSync(ROOT, { recursive: true, force: true }));

  it("the cap bites: a program that holds the journal as one string, or as its lines, dies of it", () => {
    const journal = join(STORE, "long.json");
    for (const held of ["readFileSync(journal, 'utf8')", "readFileSync(journal, 'utf8').split('\\n')"]) {
      // A new large string sits in the young generation, outside the old-space cap, until a
      // collection moves it: one that the program held across, as a command that goes on working does.
      const program = `const { readFileSync } = require("node:fs"); const journal = process.argv[1]; const held = ${held}; gc(); console.log(held.length);`;
      const result = spawnSync(process.execPath, [...HEAP_CAP_FLAGS, "--expose-gc", "-e", program, journal], { encoding: "utf8", env: cappedEnv() });
      assert.notEqual(result.status, 0, `${held} lived under the cap: ${result.stdout}`);
      assert.match(result.stderr, /heap out of memory/, held);
    }
  });

  for (const [name, args, check] of [
    [
      "session show --transcript (plain)",
      ["session", "show", "long", "--transcript"],
      (output: string) => assert.ok(statSync(output).size > JOURNAL_BYTES / 8),
    ],
    [
      "session export --format html",
      ["session", "export", "long", "--format", "html"],
      (output: string) => assert.match(tail(output, 40), /<\/script>\n<\/body>\n<\/html>\n$/),
    ],
  ] as const) {
    it(`${name} writes it all with a peak RSS under ${PEAK_RSS_BOUND / MB} MB`, async (t) => {
      const output = join(ROOT, `${name.replace(/\W+/g, "-")}.out`);
      const { code, stderr, peakRss } = await measured([...args], output);
      assert.equal(code, 0, stderr);
      check(output);
      t.diagnostic(`peak RSS ${(peakRss / MB).toFixed(0)} MB`);
      assert.ok(peakRss < PEAK_RSS_BOUND, `peak RSS ${(peakRss / MB).toFixed(0)} MB, for a journal of ${JOURNAL_BYTES / MB} MB (${lastSeq} records)`);
    });
  }

  it(`session show --json writes it all with a peak RSS under ${PEAK_RSS_BOUND / MB} MB, and of four times the journal takes less than the journal more`, async (t) => {
    const short = await measured(["session", "show", "short", "--json"], join(ROOT, "short.out"));
    const long = await measured(["session", "show", "long", "--json"], join(ROOT, "long.out"));
    assert.equal(short.code, 0, short.stderr);
    assert.equal(long.code, 0, long.stderr);
    const output = join(ROOT, "long.out");
    assert.ok(statSync(output).size > JOURNAL_BYTES / 2 && tail(output, 40).endsWith("\n    }\n  ]\n}\n"), "the whole state, its messages closed");
    assert.ok(long.peakRss < PEAK_RSS_BOUND, `peak RSS ${(long.peakRss / MB).toFixed(0)} MB, for a journal of ${JOURNAL_BYTES / MB} MB (${lastSeq} records)`);
    t.diagnostic(
      `peak RSS ${(short.peakRss / MB).toFixed(0)} MB for ${JOURNAL_BYTES / 4 / MB} MB, ${(long.peakRss / MB).toFixed(0)} MB for ${JOURNAL_BYTES / MB} MB`,
    );
    // The heap cap bounds what V8 holds; this bounds the rest (buffers are outside the cap).
    // Peak RSS follows how lazily V8 collects up to the cap (docs/internals/performance.md).
    // Held whole, even unparsed, the journal added would be all of it and more.
    const more = (JOURNAL_BYTES * 3) / 4;
    assert.ok(long.peakRss - short.peakRss < more, `${((long.peakRss - short.peakRss) / MB).toFixed(0)} MB more for ${more / MB} MB more journal`);
  });
});
