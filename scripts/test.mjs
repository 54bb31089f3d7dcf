// `npm test`: the build (dist/, whose CLI the tests spawn, then .test-build/, the tests), then
// every test file with Node's runner, three at a time (the files wait on processes, servers and
// leases part of the time). Prints the whole time, the build included.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const started = Date.now();
for (const script of ["build", "build:test"]) {
  const built = spawnSync("npm", ["run", "--silent", script], { stdio: "inherit" });
  if (built.status !== 0) {
    console.error(`npm test: npm run ${script} failed (above); no test ran`);
    process.exit(built.status ?? 1);
  }
}
const files = readdirSync(".test-build/test")
  .filter((name) => name.endsWith(".test.js"))
  .sort()
  .map((name) => `.test-build/test/${name}`);
const tests = spawnSync(process.execPath, ["--test", "--test-concurrency=3", ...files], { stdio: "inherit" });
console.log(`npm test: ${Math.round((Date.now() - started) / 1000)} s, the build included`);
process.exit(tests.status ?? 1);
