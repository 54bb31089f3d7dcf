// covers: src/agent/agent-tool.ts, src/agent/run-agent.ts, src/llm/script-provider.ts
// covers: src/backends/memory/memory-store.ts, src/tools/tool.ts
// process: shared
// agentTool reads a child it takes up once: a resumed parent finds its child's status from
// the store's summary, and the child's journal is folded only by the resume that goes on
// with it (or, for a child that is over, by the one load its answer is read from).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as z from "zod";
import { agentTool, defineTool, MemoryStore, runAgent, ScriptProvider, type Store } from "../src/index.js";

/** `store`, noting each load and open of a run by its id. */
function counting(store: Store): { store: Store; reads: string[] } {
  const reads: string[] = [];
  const proxy = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (property === "load" || property === "open") reads.push(`${property} ${String(args[0])}`);
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, reads };
}

describe("agentTool's reads of a child", () => {
  it("folds a child cut short by a crash once when the parent's resume takes it up", async () => {
    const crash = new AbortController();
    const note = defineTool({
      name: "note",
      description: "Notes.",
      input: z.object({}),
      // The first call crashes the whole tree, as a kill would: nothing more is journaled.
      run: async () => {
        if (!crash.signal.aborted) crash.abort();
        return "noted";
      },
    });
    const researcher = agentTool({
      name: "researcher",
      description: "Researches.",
      agent: {
        provider: new ScriptProvider({ turns: [{ tool_calls: [{ name: "note", input: {} }] }, { text: "child done" }] }),
        model: "m",
        tools: [note],
      },
    });
    const lead = {
      provider: new ScriptProvider({ turns: [{ tool_calls: [{ name: "researcher", input: { prompt: "go" } }] }, { text: "lead done" }] }),
      model: "m",
      tools: [researcher],
    };
    const memory = new MemoryStore();
    await assert.rejects(runAgent({ ...lead, store: memory, runId: "lead", prompt: "Lead", abortSignal: crash.signal }));
    const { store, reads } = counting(memory);
    const outcome = await runAgent({ ...lead, store, resume: "lead" });
    assert.equal(outcome.answer, "lead done");
    const child = (await memory.list()).find((summary) => summary.meta?.parent?.run_id === "lead")?.runId ?? "no child";
    assert.deepEqual(
      reads.filter((read) => read.endsWith(child)),
      [`open ${child}`],
      "the child's journal is folded by its resume alone",
    );
  });
});
