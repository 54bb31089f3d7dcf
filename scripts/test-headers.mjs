// What a test file says of itself in its first lines, which `npm test` (scripts/test.mjs) plans
// from and test/test-headers.test.ts checks: no hand-kept list to forget a file in.
//
//   // covers: src/a.ts, src/b.ts   the modules the file tests (the first line; a long list goes
//                                   on in more covers lines; a folder, "src/", for a check of all of it)
//   // tier: quick                  quick, standard (the default) or full
//   // process: shared              runs in a process with other files (the default: its own)
//   // start: first                 starts before every file without it (the default: later)
//
// The header is the file's first lines of this `// key: value` form; the first other line ends it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The tiers, smallest first: a tier runs its own files and those of every tier before it.
 * quick: the pure modules, no process spawned and no dist/ needed (`npm run test:quick`);
 * standard: every capability at a small size (`npm test`); full: everything (`npm run test:full`, CI).
 */
export const TIERS = ["quick", "standard", "full"];

const VALUES = { tier: TIERS, process: ["shared", "own"], start: ["first", "later"] };
const DEFAULTS = { tier: "standard", process: "own", start: "later" };
const HEADER_LINE = /^\/\/ (covers|tier|process|start): (.*)$/;

/** Folders of test/ that hold no test files of the suite: helpers, fixtures, and the MCP suite run apart. */
const NOT_SUITE = new Set(["helpers", "fixtures", "mcp-conformance", "node_modules"]);

/**
 * The header of the test file `name` (for messages) whose text is `source`:
 * `{ covers: string[], tier, process, start }`. Throws naming the file, the line and the
 * values allowed on a value it does not know or a key given twice.
 */
export function readHeader(name, source) {
  const header = { covers: [], ...DEFAULTS };
  const seen = new Set();
  for (const [index, line] of source.split("\n").entries()) {
    const match = HEADER_LINE.exec(line.trimEnd());
    if (match === null) break;
    const [, key, value] = match;
    if (seen.has(key) && key !== "covers") throw new Error(`${name}:${index + 1}: "${key}" is given twice in the header: keep one line`);
    seen.add(key);
    if (key === "covers") {
      header.covers.push(...value.split(",").map((path) => path.trim()));
      continue;
    }
    if (!VALUES[key].includes(value)) throw new Error(`${name}:${index + 1}: ${key} "${value}" is not one of ${VALUES[key].join(", ")}`);
    header[key] = value;
  }
  return header;
}

/** The suite's test files under `testDir` (test/), as paths relative to it, in name order. */
export function testFiles(testDir) {
  const walk = (relative) =>
    readdirSync(join(testDir, relative), { withFileTypes: true }).flatMap((entry) => {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) return NOT_SUITE.has(entry.name) ? [] : walk(path);
      return entry.name.endsWith(".test.ts") ? [path] : [];
    });
  return walk("").sort();
}

/** Every test file under `testDir` with its header: `{ file, covers, tier, process, start }`. */
export function readHeaders(testDir) {
  return testFiles(testDir).map((file) => ({ file, ...readHeader(`test/${file}`, readFileSync(join(testDir, file), "utf8")) }));
}
