// covers: src/
// process: shared
// Dependencies point down: no module of src/ reaches itself again through its imports
// (type-only ones included, which still tie two modules' meanings together), and nothing
// below the CLI imports the CLI or the agent layer above it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const SRC = resolve(new URL("../../src", import.meta.url).pathname);
const IMPORT = /(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"|require\("(\.[^"]+)"\)|import\("(\.[^"]+)"\)/gs;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** Each module of src/ by its path from src/, with the modules of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const imports = [...readFileSync(file, "utf8").matchAll(IMPORT)].map((match) => {
      const specifier = (match[1] ?? match[2] ?? match[3]) as string;
      return relative(SRC, resolve(dirname(file), specifier.replace(/\.js$/, ".ts")));
    });
    graph.set(relative(SRC, file), imports);
  }
  return graph;
}

test("src/ has no import cycle", () => {
  const graph = importGraph();
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (module: string): void => {
    state.set(module, "open");
    path.push(module);
    for (const imported of graph.get(module) ?? []) {
      if (state.get(imported) === "open") cycles.push([...path.slice(path.indexOf(imported)), imported].join(" -> "));
      else if (state.get(imported) === undefined && graph.has(imported)) visit(imported);
    }
    path.pop();
    state.set(module, "done");
  };
  for (const module of graph.keys()) if (state.get(module) === undefined) visit(module);
  assert.deepEqual(cycles, []);
  assert.ok(graph.size > 50, `read ${graph.size} modules`);
});

// The layers from the bottom up: a module imports only its own layer's and those below it.
// Every folder of src/ is named here, so a new one takes its place on purpose.
const LAYERS: readonly (readonly string[])[] = [
  ["errors", "package"],
  ["runstate"],
  ["trust"],
  ["llm"],
  ["tools"],
  ["memory"],
  ["queue"],
  ["backends", "ledger", "conformance"],
  ["agent"],
  ["session", "transcript", "replay"],
  ["config", "telemetry"],
  ["pool"],
  ["server", "client"],
  ["cli"],
  ["index.ts", "journal.ts"],
];

function layerOf(module: string): number {
  const top = module.split("/")[0] as string;
  const rank = LAYERS.findIndex((layer) => layer.includes(top));
  assert.notEqual(rank, -1, `src/${top} is in no layer: add it to LAYERS in test/import-cycles.test.ts`);
  return rank;
}

test("every module imports only its own layer and those below it", () => {
  const upward: string[] = [];
  const graph = importGraph();
  for (const [module, imports] of graph) {
    for (const imported of imports) if (graph.has(imported) && layerOf(imported) > layerOf(module)) upward.push(`${module} -> ${imported}`);
  }
  assert.deepEqual(upward, []);
});
