// The path the approvals and signing benches time: an agent with one `act` tool, on the
// script provider, parked at the tool's call, approved, then resumed until the tool's
// handler starts. A build's modules are passed in (this build's, or those of another
// commit compiled beside it), so that one set-up serves every side compared.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { AgentOptions } from "../src/agent/agent-spec.js";
import { runAgent } from "../src/agent/run-agent.js";
import { createStore } from "../src/backends/open-backend.js";
import { ScriptProvider } from "../src/llm/script-provider.js";
import type { Store } from "../src/runstate/store/store.js";
import { approve } from "../src/session/decide-calls.js";
import { defineTool } from "../src/tools/tool.js";

/** What the path needs of a build: runAgent, whose options an older build takes as well. */
export interface AgentBuild {
  runAgent: typeof runAgent;
  approve: typeof approve;
  createStore: typeof createStore;
  ScriptProvider: typeof ScriptProvider;
  defineTool: typeof defineTool;
}

/** This build's modules. */
export const THIS_BUILD: AgentBuild = { runAgent, approve, createStore, ScriptProvider, defineTool };

/** The same modules from another build's compiled `src/` (its `dist`). */
export async function buildAt(dist: string): Promise<AgentBuild> {
  const from = (path: string) => import(join(dist, path));
  const [run, decide, stores, script, tool] = await Promise.all([
    from("agent/run-agent.js"),
    from("session/decide-calls.js"),
    from("backends/open-backend.js"),
    from("llm/script-provider.js"),
    from("tools/tool.js"),
  ]);
  return {
    runAgent: run.runAgent,
    approve: decide.approve,
    createStore: stores.createStore,
    ScriptProvider: script.ScriptProvider,
    defineTool: tool.defineTool,
  };
}

/** The moment the tool started, set by its handler: the end of each timed span. */
let toolStarted = 0;
/** This process's CPU time (µs, user and system) when the tool started: what a loaded machine's waits leave out. */
let toolStartedCpu = 0;

/** When the `act` tool's handler last started (performance.now()). */
export function lastToolStart(): number {
  return toolStarted;
}

/** Writes the model's side, one call of `act` then an answer, into `dir`; returns its path. */
export function writeActScript(dir: string): string {
  const script = join(dir, "act.script.yaml");
  writeFileSync(script, "turns:\n  - tool_calls: [{ name: act, input: { n: 1 } }]\n  - text: done\n");
  return script;
}

/** An agent with the one tool `act`, which needs a decision when `confirm`. */
export function actAgent(build: AgentBuild, script: string, confirm: boolean): AgentOptions {
  const act = build.defineTool({
    name: "act",
    description: "Acts",
    input: { type: "object" },
    confirm,
    run: () => {
      toolStarted = performance.now();
      toolStartedCpu = cpuMicros();
      return "acted";
    },
  });
  return {
    provider: new build.ScriptProvider(script),
    model: "script-demo",
    system: "bench",
    tools: [act],
    budget: { maxOutputTokens: 1000, maxTokens: 1_000_000, maxIterations: 10 },
    retry: { attempts: 1, baseDelayMs: 1, timeoutMs: 10_000 },
  };
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * A new session parked at its call, then a decision (timed on its own) and its resume until
 * the approved tool starts: wall-clock ms of each, and the CPU ms of both together.
 */
export async function approvedSide(build: AgentBuild, store: Store, script: string, runId: string): Promise<{ decide: number; resume: number; cpu: number }> {
  const agent = actAgent(build, script, true);
  const parked = await build.runAgent({ ...agent, store, prompt: "act", runId });
  if (parked.reason !== "awaiting_approval") throw new Error(`${runId} ended ${parked.reason}, not parked`);
  const [started, startedCpu] = [performance.now(), cpuMicros()];
  await build.approve(store, runId);
  const decided = performance.now();
  const done = await build.runAgent({ ...agent, store, resume: runId });
  if (done.reason !== "completed") throw new Error(`${runId} ended ${done.reason}`);
  return { decide: decided - started, resume: toolStarted - decided, cpu: (toolStartedCpu - startedCpu) / 1000 };
}
