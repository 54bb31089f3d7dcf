// covers: src/backends/file/file-store.ts, src/backends/file/summary-cache.ts
// Start-up cost is paid in modules loaded and in code compiled: `fisk-ai --help` loads no package
// but the argument parser (no zod, model SDKs, YAML or NATS) and none of the runtime, only the few
// CLI modules it prints from; a command loads only the packages it uses, and `session ls` loads
// zod only when it has journals to read rather than a warm summary cache; a run loads only its
// own provider's SDK, and compiles no function from a string.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import test from "node:test";
import { FileStore } from "../src/index.js";
import { SUMMARY_CACHE_NAME } from "../src/backends/file/summary-cache.js";
import { CLI } from "./helpers/cli-harness.js";
import { metaPayload } from "./helpers/record-builders.js";

const DIST = new URL("../../dist/", import.meta.url).href;
const REPO = new URL("../../", import.meta.url).pathname;

// The CLI is a bundle (scripts/bundle-cli.mjs): which dist modules and packages each of its
// files holds. A file is loaded when any module in it would have been, so the files a process
// loads name the same modules and packages as the unbundled tree's loads did.
const BUNDLE: Record<string, { sources: string[]; packages: string[] }> = JSON.parse(readFileSync(new URL("cli/bundle/contents.json", DIST), "utf8"));

/** Every script V8 compiled in a process run with NODE_V8_COVERAGE=`coverage`, by URL. */
function scriptsCompiled(coverage: string): string[] {
  return readdirSync(coverage).flatMap((name) =>
    (JSON.parse(readFileSync(join(coverage, name), "utf8")) as { result: { url: string }[] }).result.map(({ url }) => url),
  );
}

/** The package a script's URL is a file of, if it is one of node_modules. */
const packageOf = (url: string): string[] => {
  const name = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  return name === undefined ? [] : [name];
};

/**
 * Runs the CLI with `args` in a directory holding an empty `empty/`, and returns the modules
 * it loaded from dist and from node_modules: every script V8 compiled, as its coverage output
 * lists them, so a module loaded by require() counts as much as one imported; a file of the
 * bundle counts as the modules and packages in it.
 */
function modulesLoadedBy(args: string[], env: NodeJS.ProcessEnv = {}): { dist: string[]; packages: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-"));
  try {
    mkdirSync(join(dir, "empty"));
    const coverage = join(dir, "coverage");
    const run = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, ...env, NODE_V8_COVERAGE: coverage }, encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const urls = scriptsCompiled(coverage);
    const bundled = urls
      .filter((url) => url.startsWith(DIST))
      .map((url) => BUNDLE[url.slice(DIST.length).replace(/^cli\//, "")] ?? assert.fail(`${url} is not in the bundle`));
    return {
      dist: [...new Set(bundled.flatMap(({ sources }) => sources))],
      packages: [...new Set([...urls.flatMap(packageOf), ...bundled.flatMap(({ packages }) => packages)])],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const HELP_MODULES = [
  "agent/agent-errors.js",
  "backends/url-form.js",
  "cli/cli-errors.js",
  "cli/cli-process.js",
  "cli/context/command-context.js",
  "cli/command-table.js",
  "cli/exit-codes.js",
  "cli/main.js",
  "cli/program.js",
  "errors/fisk-error.js",
  "errors/masked-url.js",
  "package/package-files.js",
  "runstate/errors.js",
];
// Besides those, the definition of the command the line names, and no other.
const NAMED_MODULES: Record<string, string[]> = {
  run: ["cli/context/options.js", "cli/run/options.js", "cli/run/run.js"],
  session: ["cli/context/options.js", "cli/session/table.js"],
  "session show": [
    "cli/context/options.js",
    "cli/session/table.js",
    "cli/session/show.js",
    "cli/context/session-context.js",
    "cli/context/stores.js",
    "backends/backend-errors.js",
    "backends/built-in-urls.js",
    "backends/open-backend.js",
    "backends/postgres/postgres-url.js",
    "backends/registry.js",
    "backends/store-url.js",
  ],
  memory: ["cli/memory/table.js"],
};

test("--help and --version load only the argument parser and the CLI modules that print them", () => {
  for (const args of [
    ["--help"],
    ["--version"],
    ["-v"],
    ["run", "--help"],
    ["session", "--help"],
    ["session", "show", "--help"],
    ["memory", "--help"],
    ["help", "memory"],
  ]) {
    const loaded = modulesLoadedBy(args);
    assert.deepEqual(loaded.packages, ["commander"], `fisk-ai ${args.join(" ")} loads these packages`);
    const named = NAMED_MODULES[args.filter((word) => !word.startsWith("-") && word !== "help").join(" ")] ?? [];
    assert.deepEqual(loaded.dist.sort(), [...HELP_MODULES, ...named].sort(), `fisk-ai ${args.join(" ")} loads these modules`);
  }
});

test("a command loads the packages it uses and no other: no model SDK, NATS or YAML to list sessions or notes", () => {
  const cases: [string[], string[]][] = [
    [["completion", "bash"], ["commander"]],
    // No journal to check (zod) and no lock to take (koffi).
    [["session", "ls", "--state-dir", "empty"], ["commander"]],
    // No agent.yaml here: the default store, found without the YAML parser or the config's schema.
    [["session", "ls"], ["commander"]],
    // Notes are YAML front matter; their tools' schemas are zod.
    [
      ["memory", "ls"],
      ["commander", "yaml", "zod"],
    ],
  ];
  for (const [args, packages] of cases) {
    // XDG_STATE_HOME: a directory of the test's, whatever the environment says.
    const state = mkdtempSync(join(tmpdir(), "fisk-startup-state-"));
    try {
      assert.deepEqual(modulesLoadedBy(args, { XDG_STATE_HOME: state }).packages.sort(), packages, `fisk-ai ${args.join(" ")}`);
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  }
});

/** Runs `use` on a fresh directory holding the agent `fisk-ai init` writes (offline, the script provider), removed after. */
function withInitAgent(use: (dir: string, runArgs: string[]) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-run-"));
  try {
    const init = spawnSync(process.execPath, [CLI, "init", dir], { encoding: "utf8" });
    assert.equal(init.status, 0, init.stderr);
    use(dir, ["run", "--config", join(dir, "agent.yaml"), "--state-dir", join(dir, "runs"), "Say hello"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a run on the script provider loads neither model SDK, nor NATS or OpenTelemetry", () => {
  withInitAgent((_dir, runArgs) => {
    // canonicalize: the loop counts a decision only when its signature over the call verifies.
    assert.deepEqual(modulesLoadedBy(runArgs).packages.sort(), ["canonicalize", "commander", "yaml", "yocto-spinner", "yoctocolors", "zod"]);
  });
});

const COUNT_COMPILED = new URL("./helpers/count-compiled-functions.js", import.meta.url).pathname;

test("a run compiles no function from a string: zod walks its schemas rather than compiling a checker for each", () => {
  withInitAgent((dir, runArgs) => {
    const count = join(dir, "compiled");
    const run = spawnSync(process.execPath, ["--import", COUNT_COMPILED, CLI, ...runArgs, "--checkpoint"], {
      env: { ...process.env, FISK_AI_TEST_FUNCTIONS_FILE: count },
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readFileSync(count, "utf8"), "0");
  });
});

/** The packages a program of a library user's loads: `script`, an ES module run from the repository, where it imports fisk-ai. */
function packagesLoadedByProgram(script: string, args: string[]): { packages: string[]; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-library-"));
  try {
    const coverage = join(dir, "coverage");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script, ...args], {
      cwd: REPO,
      env: { ...process.env, NODE_V8_COVERAGE: coverage },
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
    return { packages: [...new Set(scriptsCompiled(coverage).flatMap(packageOf))], stdout: run.stdout };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("importing fisk-ai and making its providers loads no model SDK; a provider's first call loads its own and no other", () => {
  const program = `import { AnthropicProvider, OpenAIProvider } from "fisk-ai";
const anthropic = new AnthropicProvider({ apiKey: "sk-ant-startup", baseURL: "http://127.0.0.1:9" });
new OpenAIProvider({ apiKey: "sk-startup" });
if (process.argv[1] === "call") {
  const request = { model: "claude-sonnet-4-5", system: "", messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [], maxOutputTokens: 16, thinking: { mode: "off" } };
  await anthropic.complete(request, new AbortController().signal).catch((error) => console.log(error.message));
}`;
  const made = packagesLoadedByProgram(program, []);
  assert.ok(!made.packages.some((name) => ["@anthropic-ai/sdk", "openai"].includes(name)), made.packages.join(", "));
  const called = packagesLoadedByProgram(program, ["call"]);
  assert.ok(called.packages.includes("@anthropic-ai/sdk") && !called.packages.includes("openai"), called.packages.join(", "));
  // The SDK's errors, loaded with it, are still told apart: a refused connection is "cannot reach".
  assert.match(called.stdout, /^cannot reach the anthropic API at http:\/\/127\.0\.0\.1:9: /);
});

test("session ls loads zod only to read journals, not from the summary cache a listing wrote", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fisk-startup-ls-"));
  try {
    const store = new FileStore({ dir });
    for (const runId of ["s-1", "s-2"]) await (await store.create(runId, metaPayload(runId))).close();
    rmSync(join(dir, SUMMARY_CACHE_NAME), { force: true });
    assert.deepEqual(
      modulesLoadedBy(["session", "ls", "--state-dir", dir]).packages.sort(),
      ["commander", "zod"],
      "no cache yet: the journals are read and checked",
    );
    assert.deepEqual(modulesLoadedBy(["session", "ls", "--json", "--state-dir", dir]).packages, ["commander"], "from the cache the first listing wrote");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the bundle holds the Anthropic SDK's messages resource and none of the resources no run calls (files, models, skills)", () => {
  const sdkFiles = Object.entries(BUNDLE)
    .filter(([, { packages }]) => packages.includes("@anthropic-ai/sdk"))
    .map(([file]) => readFileSync(new URL(`cli/${file}`, DIST), "utf8"));
  assert.ok(
    sdkFiles.some((text) => text.includes("/v1/messages")),
    "the messages resource is bundled",
  );
  for (const path of ["/v1/files", "/v1/models", "/v1/skills"]) assert.ok(!sdkFiles.some((text) => text.includes(path)), `${path} is bundled`);
});
