// covers: scripts/test-headers.mjs
// tier: quick
// process: shared
// Every test file says what it covers and how it runs in its first lines (scripts/test-headers.mjs),
// and every module of src/ is covered by some test file: a module no test names is found here,
// by name, not by a reader wondering where its test went.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

interface Header {
  covers: string[];
  tier: string;
  process: string;
  start: string;
}
const { readHeader, readHeaders, testFiles } = (await import(new URL("../../scripts/test-headers.mjs", import.meta.url).href)) as {
  readHeader: (name: string, source: string) => Header;
  readHeaders: (testDir: string) => (Header & { file: string })[];
  testFiles: (testDir: string) => string[];
};

const REPO = new URL("../../", import.meta.url).pathname;
const TEST_DIR = join(REPO, "test");

/** The modules of src/: every TypeScript file but a declaration file. */
function sourceModules(dir = "src"): string[] {
  return readdirSync(join(REPO, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceModules(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

describe("a test file's header", () => {
  it("gives the defaults where a line is missing: the standard tier, a process of its own, started later", () => {
    assert.deepEqual(readHeader("test/a.test.ts", "// covers: src/a.ts\nimport x from 'y';\n"), {
      covers: ["src/a.ts"],
      tier: "standard",
      process: "own",
      start: "later",
    });
  });

  it("reads its lines up to the first other line, a long covers list over several lines", () => {
    const source = [
      "// covers: src/a.ts, src/b.ts",
      "// covers: src/c.ts",
      "// tier: quick",
      "// process: shared",
      "// The file's own comment: tier: full is not read here.",
      "// start: first",
    ].join("\n");
    assert.deepEqual(readHeader("test/a.test.ts", source), { covers: ["src/a.ts", "src/b.ts", "src/c.ts"], tier: "quick", process: "shared", start: "later" });
  });

  it("refuses a value it does not know and a line given twice, naming the file, the line and what is allowed", () => {
    assert.throws(() => readHeader("test/a.test.ts", "// covers: src/a.ts\n// tier: slow\n"), {
      message: 'test/a.test.ts:2: tier "slow" is not one of quick, standard, full',
    });
    assert.throws(() => readHeader("test/a.test.ts", "// covers: src/a.ts\n// process: shared\n// process: own\n"), {
      message: 'test/a.test.ts:3: "process" is given twice in the header: keep one line',
    });
  });

  it("is read from the suite's files only: test/ and its folders, not helpers, fixtures or the MCP suite run apart", () => {
    const files = testFiles(TEST_DIR);
    assert.ok(files.includes("fold.test.ts"));
    assert.deepEqual(
      files.filter((file) => /^(helpers|fixtures|mcp-conformance)\//.test(file)),
      [],
    );
  });
});

describe("the tree's test files", () => {
  const headers = readHeaders(TEST_DIR);

  it("each open with a covers line", () => {
    const without = headers.filter(({ file }) => !readFileSync(join(TEST_DIR, file), "utf8").startsWith("// covers: ")).map(({ file }) => file);
    assert.deepEqual(without, [], "start each with `// covers: src/...` naming the modules it tests");
  });

  it("each name modules and folders that exist", () => {
    const gone = headers.flatMap(({ file, covers }) => covers.filter((path) => !existsSync(join(REPO, path))).map((path) => `test/${file}: ${path}`));
    assert.deepEqual(gone, [], "a covers line names a path that is not in the tree: correct or remove it");
  });

  it("cover every module of src/ between them", () => {
    const covered = new Set(headers.flatMap(({ covers }) => covers));
    const uncovered = sourceModules().filter((module) => !covered.has(module));
    assert.deepEqual(uncovered, [], "no test file's covers line names these modules: name each in the test that tests it, or write one");
  });
});
