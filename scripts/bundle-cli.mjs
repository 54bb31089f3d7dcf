// The fisk-ai command as users run it (package.json bin, dist/cli/main.js): tsc's output of the
// CLI bundled by esbuild into that entry and chunks in dist/cli/bundle/, so a process reads a few
// files where Node's loader walked hundreds (most of a spawned command's CPU). The library
// (dist/index.js and its subpaths) stays as tsc emits it. Run by `npm run build`, after tsc.
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const DIST = "dist";
const OUT = "dist/cli";
const BUNDLE = "bundle";
// A module loaded with require() at first use, synchronously, so that zod or string-width load
// only when needed: esbuild cannot follow createRequire, so each such module is an entry point of
// its own in bundle/, beside the chunks that require it by the same relative name, and shares
// their chunks (one zod in a process, whichever way it was reached).
const REQUIRED = /createRequire\(import\.meta\.url\)\("([^"]+)"\)/g;

function jsFiles(dir, skipped) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === skipped ? [] : jsFiles(path, skipped);
    return entry.name.endsWith(".js") ? [path] : [];
  });
}

/** Each module a module of `dist` (but the bundle) requires through createRequire, as an entry named by its file. */
export function requiredEntries(dist, bundleDir) {
  const entries = new Map();
  for (const file of jsFiles(dist, bundleDir)) {
    for (const [, name] of readFileSync(file, "utf8").matchAll(REQUIRED)) {
      if (!name.startsWith("./") || name.slice(2).includes("/")) {
        throw new Error(`${file} requires "${name}": the bundle finds only a sibling module ("./name.js"); require a sibling that re-exports it`);
      }
      const input = join(file, "..", name);
      const out = `${BUNDLE}/${basename(name, ".js")}`;
      if (entries.has(out) && entries.get(out) !== input) throw new Error(`${input} and ${entries.get(out)} would both be ${out}.js in the bundle: rename one`);
      entries.set(out, input);
    }
  }
  return [...entries].map(([out, input]) => ({ in: input, out }));
}

/**
 * The import() calls of ours whose target is a CommonJS module: the chunk esbuild makes of one
 * exports only `default`, so the named exports the code destructures would be undefined at run
 * time. Import such a package statically in a module of ours and import() that instead.
 */
export function commonJsImportedDynamically(metafile) {
  return Object.entries(metafile.inputs).flatMap(([input, { imports }]) =>
    input.includes("node_modules/")
      ? []
      : imports
          .filter(({ path, kind }) => kind === "dynamic-import" && metafile.inputs[path]?.format === "cjs")
          .map(({ path }) => `${input} imports the CommonJS ${path} with import(): import it statically from a module of ours and import() that instead`),
  );
}

/** Which dist modules and packages each file of the bundle holds, for test/startup.test.ts to tell what a process loaded. */
function bundleContents(metafile) {
  const contents = {};
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    const sources = new Set();
    const packages = new Set();
    for (const input of Object.keys(inputs)) {
      const pkg = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (pkg !== undefined) packages.add(pkg);
      else sources.add(relative(DIST, input));
    }
    contents[relative(OUT, output)] = { sources: [...sources].sort(), packages: [...packages].sort() };
  }
  return contents;
}

async function bundleCli() {
  rmSync(join(OUT, BUNDLE), { recursive: true, force: true });
  const { metafile } = await build({
    entryPoints: [
      { in: join(OUT, "main.js"), out: "main" },
      // The crash-test harness (test/helpers/crashing-cli.ts) runs the bundled CLI through this.
      { in: join(OUT, "cli-process.js"), out: `${BUNDLE}/cli-process` },
      ...requiredEntries(DIST, join(OUT, BUNDLE)),
    ],
    outdir: OUT,
    allowOverwrite: true,
    bundle: true,
    // Every dynamic import() stays a chunk loaded when it runs: `--help` loads no model SDK.
    splitting: true,
    chunkNames: `${BUNDLE}/[name]-[hash]`,
    format: "esm",
    platform: "node",
    target: "node20",
    // koffi loads its native binary from node_modules at run time; react-devtools-core is ink's optional debugger.
    external: ["koffi", "react-devtools-core"],
    // The CommonJS packages bundled (commander among them) call require().
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    // React, its reconciler and scheduler (the viewer's, through ink) pick their production build
    // when NODE_ENV says so at run time, which a user's shell seldom does: the development build
    // costs the viewer CPU at every keystroke (docs/internals/performance.md). Decided here, once.
    define: { "process.env.NODE_ENV": '"production"' },
    // Less text for Node to parse at each start (npm run bench:cli-cpu); names stay as written.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: "warning",
  });
  const lost = commonJsImportedDynamically(metafile);
  if (lost.length > 0) throw new Error(lost.join("\n"));
  // package.json's bin: `npm link` points PATH at this file, and the build writes it anew, so it
  // keeps its run bit here rather than only when npm installs the package.
  chmodSync(join(OUT, "main.js"), 0o755);
  writeFileSync(join(OUT, BUNDLE, "contents.json"), `${JSON.stringify(bundleContents(metafile), null, 1)}\n`);
}

// Run as a script; imported by test/cli-bundle.test.ts for its checks.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await bundleCli().catch((error) => {
    console.error(`bundle-cli: ${error.message}`);
    process.exit(1);
  });
}
