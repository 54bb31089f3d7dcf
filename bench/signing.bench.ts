// Signed decisions benchmark (issue 54): from a decision to the approved tool starting on
// resume (approve() then resumeRun until the tool's handler runs), with signing (this build:
// the approval signed, verified at each step that reads it, the meta signed and checked)
// beside the same path without it (the build before signing, compiled from its commit into
// SIGNING_BEFORE). File store, one process, rounds alternating their order.
//   npm run bench:signing    SIGNING_ROUNDS=<n> (default 30); SIGNING_BEFORE=<dist of the build before>
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createKeyring } from "../src/trust/keyring.js";
import { formatMs, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const COMMAND = "npm run bench:signing";
const ROUNDS = Number(process.env.SIGNING_ROUNDS ?? 30);
const GOAL = 1.05;
const BEFORE = resolve(process.env.SIGNING_BEFORE ?? ".test-build/before/dist");
const HERE = new URL("../src/", import.meta.url).pathname;

let toolStarted = 0;

/** One build's approve-then-resume path, from the modules under `root`. */
async function buildAt(root: string, runs: string) {
  const loop = await import(join(root, "agent/agent-loop.js"));
  const { approve } = await import(join(root, "session/decide-calls.js"));
  const { ScriptProvider } = await import(join(root, "llm/script-provider.js"));
  const { defineTool } = await import(join(root, "tools/tool.js"));
  const { ToolSet } = await import(join(root, "tools/tool-set.js"));
  const { createStore } = await import(join(root, "runstate/backends/create-store.js"));
  const store = await createStore({ backend: "file", dir: runs });
  return {
    store,
    async span(script: string, runId: string): Promise<number> {
      const act = defineTool({
        name: "act",
        description: "Acts",
        input: { type: "object" },
        confirm: true,
        run: () => ((toolStarted = performance.now()), "acted"),
      });
      const settings = {
        provider: new ScriptProvider(script),
        model: "script-demo",
        system: "bench",
        tools: new ToolSet([act]),
        parallelTools: false,
        maxOutputTokens: 1000,
        maxTokens: 1_000_000,
        maxIterations: 10,
        thinking: { mode: "off" },
        retry: { attempts: 1, baseDelayMs: 1, timeoutMs: 10_000 },
      };
      const parked = await loop.startRun({ settings, store }, { prompt: "act", runId });
      if (parked.reason !== "awaiting_approval") throw new Error(`${runId} ended ${parked.reason}, not parked`);
      const started = performance.now();
      await approve(store, runId);
      const done = await loop.resumeRun({ settings, store }, { runId, force: false });
      if (done.reason !== "completed") throw new Error(`${runId} ended ${done.reason}`);
      return toolStarted - started;
    },
  };
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), "fisk-ai-bench-signing-"));
  // The keyring this build signs with, in the scratch directory: never the user's.
  process.env.FISK_AI_SIGNING_KEYS = join(scratch, "signing-keys.json");
  createKeyring(process.env.FISK_AI_SIGNING_KEYS);
  const script = join(scratch, "act.script.yaml");
  writeFileSync(script, "turns:\n  - tool_calls: [{ name: act, input: { n: 1 } }]\n  - text: done\n");
  try {
    const signed = await buildAt(HERE, join(scratch, "signed"));
    const unsigned = await buildAt(BEFORE, join(scratch, "unsigned"));
    console.log(`${COMMAND}: ${machineLine(scratch)}; without signing: ${BEFORE}`);
    let session = 0;
    const sides = await interleave({ signed: () => signed.span(script, `s-${session++}`), unsigned: () => unsigned.span(script, `u-${session++}`) }, ROUNDS, 2);
    const withSigning = median(sides.signed);
    const without = median(sides.unsigned);
    printTable(
      `From the decision to the approved tool starting, with signing beside without; median of ${ROUNDS} rounds (goal: within ${GOAL}x)`,
      ["store", "with signing ms", "without ms", "ratio"],
      [["file", formatMs(withSigning), formatMs(without), goalRatio(withSigning / without, withSigning / without <= GOAL)]],
      ["each: approve() of a parked session (open, fold, journal the decision and the terminal record, close), then resumeRun until the tool's handler starts"],
    );
    await signed.store.close();
    await unsigned.store.close();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
