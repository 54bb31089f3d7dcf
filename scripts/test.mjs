// `npm test`: the build (dist/, whose CLI the tests spawn, then .test-build/, the tests), then
// every test file with Node's runner, three at a time (the files wait on processes, servers and
// leases part of the time). Prints the whole time, the build included. dist/ is built again
// only when a file it is built from changed since its last build, as make would: `npm ci`
// has just built it on a fresh clone.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** What `npm run build` reads; a directory counts too, since removing a file changes only its directory. */
const BUILD_INPUTS = ["src", "tsconfig.json", "package.json", "package-lock.json", "scripts/bundle-cli.mjs"];
/** The build's last output (scripts/bundle-cli.mjs writes it after everything else). */
export const BUILD_STAMP = "dist/cli/bundle/contents.json";

function newestChange(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return Number.POSITIVE_INFINITY;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

/** Why dist/ under `root` must be built again, or undefined when it is newer than every input of its build. */
export function staleBuild(root) {
  const built = statSync(join(root, BUILD_STAMP), { throwIfNoEntry: false });
  if (built === undefined) return `${BUILD_STAMP} is missing`;
  const changed = BUILD_INPUTS.find((input) => newestChange(join(root, input)) >= built.mtimeMs);
  return changed === undefined ? undefined : `${changed} changed since the last build`;
}

function npmRun(script) {
  const built = spawnSync("npm", ["run", "--silent", script], { stdio: "inherit" });
  if (built.status !== 0) {
    console.error(`npm test: npm run ${script} failed (above); no test ran`);
    process.exit(built.status ?? 1);
  }
}

function main() {
  const started = Date.now();
  const stale = staleBuild(".");
  if (stale === undefined) console.log(`npm test: dist/ is newer than every file it is built from; not built again (npm run build forces it)`);
  else {
    console.log(`npm test: building dist/ (${stale})`);
    npmRun("build");
  }
  npmRun("build:test");
  const files = readdirSync(".test-build/test")
    .filter((name) => name.endsWith(".test.js"))
    .sort()
    .map((name) => `.test-build/test/${name}`);
  const tests = spawnSync(process.execPath, ["--test", "--test-concurrency=3", ...files], { stdio: "inherit" });
  console.log(`npm test: ${Math.round((Date.now() - started) / 1000)} s, the build included`);
  process.exit(tests.status ?? 1);
}

// Run as a script; imported by test/npm-test-build.test.ts for its freshness check.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main();
