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

test("the layers below the CLI import neither the CLI nor the agent", () => {
  const upward: string[] = [];
  for (const [module, imports] of importGraph()) {
    const layer = module.split("/")[0] as string;
    if (!["runstate", "llm", "tools", "memory"].includes(layer)) continue;
    for (const imported of imports) if (imported.startsWith("cli/") || imported.startsWith("agent/")) upward.push(`${module} -> ${imported}`);
  }
  assert.deepEqual(upward, []);
});
