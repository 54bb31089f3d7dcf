// covers: src/conformance/index.ts, src/index.ts, src/journal.ts, src/telemetry/index.ts, src/tools/mcp/index.ts
// The API reference is generated from the declarations (typedoc.json): every symbol the
// package exports has a doc comment, and `npm run docs` fails on one that does not.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const REPO = new URL("../../", import.meta.url).pathname;

test("npm run docs builds the API reference without a warning, runAgent and defineTool in it", (t) => {
  const out = mkdtempSync(join(tmpdir(), "fisk-ai-api-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const typedoc = join(REPO, "node_modules", "typedoc", "bin", "typedoc");
  const result = spawnSync(process.execPath, [typedoc, "--treatWarningsAsErrors", "--out", out], { cwd: REPO, encoding: "utf8" });
  assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  const functions = readdirSync(join(out, "functions"));
  for (const name of ["index.runAgent.html", "index.defineTool.html", "index.fold.html", "tools_mcp.connectMcpServers.html", "telemetry.runTracing.html"]) {
    assert.ok(functions.includes(name), `${name} among ${functions.join(", ")}`);
  }
  assert.match(readFileSync(join(out, "functions", "index.runAgent.html"), "utf8"), /RunAgentOptions/);
});

test("the API reference documents every entry point package.json exports", () => {
  const exported = (JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { exports: Record<string, string | { import: string }> }).exports;
  const modules = Object.values(exported)
    .filter((target) => typeof target !== "string")
    .map((target) => target.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
  // typedoc.json holds comments, which JSON does not: its lines that are one are left out.
  const config = readFileSync(join(REPO, "typedoc.json"), "utf8")
    .split("\n")
    .filter((line) => !line.trim().startsWith("//"))
    .join("\n");
  const { entryPoints } = JSON.parse(config) as { entryPoints: string[] };
  assert.deepEqual(
    modules.filter((module) => !entryPoints.includes(module)),
    [],
    "add each to typedoc.json's entryPoints",
  );
  assert.ok(modules.includes("src/telemetry/index.ts"));
});

test("npm run docs fails on an exported symbol without a doc comment, naming it", (t) => {
  const out = mkdtempSync(join(tmpdir(), "fisk-ai-api-"));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const typedoc = join(REPO, "node_modules", "typedoc", "bin", "typedoc");
  // typedoc.json's validation, on an entry point with one undocumented export (its own
  // tsconfig, so that typedoc type-checks the fixture and not the whole test tree).
  const fixture = join("test", "fixtures", "undocumented");
  const result = spawnSync(
    process.execPath,
    [typedoc, "--tsconfig", join(fixture, "tsconfig.json"), "--entryPoints", join(fixture, "index.ts"), "--out", out],
    {
      cwd: REPO,
      encoding: "utf8",
    },
  );
  assert.notEqual(result.status, 0, `${result.stdout}${result.stderr}`);
  assert.match(
    `${result.stdout}${result.stderr}`,
    /undocumentedExport \(CallSignature\), defined in [^,]*test\/fixtures\/undocumented\/index\.ts, does not have any documentation/,
  );
  assert.doesNotMatch(`${result.stdout}${result.stderr}`, /documented \(Variable\)/);
});
