// covers: src/package/package-files.ts
// process: shared
// The CLI's bundle (scripts/bundle-cli.mjs): a module required with createRequire becomes an
// entry of its own by the same relative name, or the build says which require it cannot place;
// files beside the code are found from the package root wherever the calling module lands.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { packageFile } from "../src/package/package-files.js";

const REPO = new URL("../../", import.meta.url).pathname;
type Entry = { in: string; out: string };
type Metafile = { inputs: Record<string, { format?: string; imports: { path: string; kind: string }[] }> };
const { requiredEntries, commonJsImportedDynamically } = (await import(new URL("../../scripts/bundle-cli.mjs", import.meta.url).href)) as {
  requiredEntries: (dist: string, bundleDir: string) => Entry[];
  commonJsImportedDynamically: (metafile: Metafile) => string[];
};

/** A dist/ of `files` (path from dist: text) in a fresh directory. */
function distOf(files: Record<string, string>): string {
  const dist = join(mkdtempSync(join(tmpdir(), "fisk-bundle-")), "dist");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dist, path, ".."), { recursive: true });
    writeFileSync(join(dist, path), text);
  }
  return dist;
}

const requires = (name: string): string => `const x = createRequire(import.meta.url)("${name}");\n`;

test("each module required through createRequire becomes bundle/<name>, once, and the bundle's own files are not read", () => {
  const dist = distOf({ "a/one.js": requires("./schemas.js"), "a/two.js": requires("./schemas.js"), "cli/bundle/old.js": requires("nope") });
  try {
    assert.deepEqual(requiredEntries(dist, join(dist, "cli", "bundle")), [{ in: join(dist, "a", "schemas.js"), out: "bundle/schemas" }]);
    // The modules the shipped code requires so: the record schemas and string-width.
    assert.deepEqual(
      requiredEntries(join(REPO, "dist"), join(REPO, "dist", "cli", "bundle"))
        .map((entry) => entry.out)
        .sort(),
      ["bundle/record-schemas", "bundle/string-width"],
    );
  } finally {
    rmSync(join(dist, ".."), { recursive: true, force: true });
  }
});

test("a required package or a path the bundle cannot place fails the build naming the file", () => {
  for (const name of ["string-width", "../up.js", "./deeper/x.js"]) {
    const dist = distOf({ "a/one.js": requires(name) });
    try {
      assert.throws(() => requiredEntries(dist, join(dist, "cli", "bundle")), {
        message: `${join(dist, "a", "one.js")} requires "${name}": the bundle finds only a sibling module ("./name.js"); require a sibling that re-exports it`,
      });
    } finally {
      rmSync(join(dist, ".."), { recursive: true, force: true });
    }
  }
});

test("two required modules of one name in different folders fail the build naming both", () => {
  const dist = distOf({ "a/one.js": requires("./schemas.js"), "b/two.js": requires("./schemas.js") });
  try {
    assert.throws(() => requiredEntries(dist, join(dist, "cli", "bundle")), {
      message: `${join(dist, "b", "schemas.js")} and ${join(dist, "a", "schemas.js")} would both be bundle/schemas.js in the bundle: rename one`,
    });
  } finally {
    rmSync(join(dist, ".."), { recursive: true, force: true });
  }
});

test("package files are found from the package root: the same from the test build, and an error outside any package", async () => {
  assert.equal(packageFile("package.json"), join(REPO, "package.json"));
  assert.equal(packageFile("examples/notes/agent.yaml"), join(REPO, "examples", "notes", "agent.yaml"));
  const outside = mkdtempSync(join(tmpdir(), "fisk-no-package-"));
  try {
    copyFileSync(new URL("../src/package/package-files.js", import.meta.url), join(outside, "package-files.mjs"));
    const { packageFile: lost } = (await import(join(outside, "package-files.mjs"))) as typeof import("../src/package/package-files.js");
    assert.throws(() => lost("package.json"), {
      message: `no package.json above ${join(outside, "package-files.mjs")}: the fisk-ai package is incomplete, install it again`,
    });
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test("an import() of ours whose target is CommonJS fails the build, naming both; a package's own and a static one do not", () => {
  const cjs = "node_modules/otel/build/src/index.js";
  const metafile: Metafile = {
    inputs: {
      "dist/telemetry/setup.js": {
        format: "esm",
        imports: [
          { path: cjs, kind: "dynamic-import" },
          { path: "dist/telemetry/sdk.js", kind: "dynamic-import" },
        ],
      },
      "dist/telemetry/sdk.js": { format: "esm", imports: [{ path: cjs, kind: "import-statement" }] },
      "node_modules/otel/build/src/detect.js": { format: "cjs", imports: [{ path: cjs, kind: "dynamic-import" }] },
      [cjs]: { format: "cjs", imports: [] },
    },
  };
  assert.deepEqual(commonJsImportedDynamically(metafile), [
    `dist/telemetry/setup.js imports the CommonJS ${cjs} with import(): import it statically from a module of ours and import() that instead`,
  ]);
});

test("the bundle holds React's production build alone: no file of it asks NODE_ENV at run time", () => {
  const bundle = join(REPO, "dist", "cli", "bundle");
  const files = readdirSync(bundle).filter((name) => name.endsWith(".js"));
  const asking = files.filter((name) => readFileSync(join(bundle, name), "utf8").includes("process.env.NODE_ENV"));
  assert.deepEqual(asking, []);
  const viewer = files.filter((name) => /^viewer-app-\w+\.js$/.test(name));
  assert.equal(viewer.length, 1, `one viewer chunk among ${files.join(", ")}`);
  assert.doesNotMatch(readFileSync(join(bundle, viewer[0] as string), "utf8"), /runWithFiberInDEV/, "React's development build");
});

test("the built command keeps its run bit, so a linked fisk-ai still starts after a rebuild", () => {
  const main = join(REPO, "dist/cli/main.js");
  assert.equal(statSync(main).mode & 0o111, 0o111, `${main} is not executable`);
  const started = spawnSync(main, ["--version"], { encoding: "utf8" });
  assert.equal(started.status, 0, started.stderr);
  assert.match(started.stdout, /\d+\.\d+\.\d+/);
});
