// `npm test` builds dist/ again only when a file it is built from changed since its last build
// (scripts/test.mjs): a changed, added or removed source, the tsconfig, the package files or the
// bundler script; on a fresh clone `npm ci` has just built it.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const { staleBuild, BUILD_STAMP } = (await import(new URL("../../scripts/test.mjs", import.meta.url).href)) as {
  staleBuild: (root: string) => string | undefined;
  BUILD_STAMP: string;
};

const BEFORE = new Date("2026-01-01T00:00:00Z");
const BUILT = new Date("2026-01-02T00:00:00Z");
const AFTER = new Date("2026-01-03T00:00:00Z");

/** A checkout whose every file and directory dates from before its build. */
function builtCheckout(): string {
  const root = mkdtempSync(join(tmpdir(), "fisk-npm-test-"));
  const files = ["src/index.ts", "src/cli/main.ts", "tsconfig.json", "package.json", "package-lock.json", "scripts/bundle-cli.mjs", BUILD_STAMP];
  for (const file of files) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "x");
  }
  for (const path of [...files, "src/cli", "src"]) utimesSync(join(root, path), BEFORE, BEFORE);
  utimesSync(join(root, BUILD_STAMP), BUILT, BUILT);
  return root;
}

test("a build newer than every source is not redone; any changed, added or removed input, or no build, redoes it", (t) => {
  const root = builtCheckout();
  t.after(() => rmSync(root, { recursive: true, force: true }));
  assert.equal(staleBuild(root), undefined);

  utimesSync(join(root, "src/cli/main.ts"), AFTER, AFTER);
  assert.equal(staleBuild(root), "src changed since the last build");
  utimesSync(join(root, "src/cli/main.ts"), BEFORE, BEFORE);

  // A removed source changes only its directory's time.
  rmSync(join(root, "src/cli/main.ts"));
  assert.equal(staleBuild(root), "src changed since the last build");
  utimesSync(join(root, "src/cli"), BEFORE, BEFORE);
  assert.equal(staleBuild(root), undefined);

  for (const input of ["package-lock.json", "scripts/bundle-cli.mjs", "tsconfig.json"]) {
    utimesSync(join(root, input), AFTER, AFTER);
    assert.equal(staleBuild(root), `${input} changed since the last build`);
    utimesSync(join(root, input), BEFORE, BEFORE);
  }

  rmSync(join(root, "package.json"));
  assert.equal(staleBuild(root), "package.json changed since the last build");
  rmSync(join(root, BUILD_STAMP));
  assert.equal(staleBuild(root), `${BUILD_STAMP} is missing`);
});
