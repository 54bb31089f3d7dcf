// Recorded sessions of varied shape for the replay tests, made from a few numbers rather than
// written out: turns of one or more calls (in parallel or not), follow-ups, a compaction by
// hand between prompts, a confirm tool approved or denied on the spot, a child agent. Every
// session's first turn calls `write_mark`, a command tool that appends a line to a file: a
// replay must never touch it.
import * as z from "zod";
import { agentTool, approve, COMPACT, defineTool, deny, runAgent, ScriptProvider, type MemoryStore, type ModelProvider, type Tool } from "../../src/index.js";
import { SUMMARY_REQUEST } from "../../src/llm/model-provider.js";
import type { ReplayAgent } from "../../src/replay/replay-session.js";
import { testCommandTool } from "./command-tools.js";

/** What a recorded session does. */
export interface Shape {
  /** Tool turns before each prompt's answer. */
  toolTurns: number;
  /** Calls in each tool turn. */
  callsPerTurn: number;
  parallel: boolean;
  followUps: number;
  /** Compacts by hand before the first follow-up (needs one). */
  compaction: boolean;
  /** Calls the confirm tool `deploy` in the first turn, allowed or denied on the spot. */
  approval: "none" | "allow" | "deny";
  /** Calls the child agent `helper` in the last tool turn of the first prompt. */
  child: boolean;
}

/** The nth of a generated family of shapes: every feature turns up, and in combination. */
export function shapeOf(n: number): Shape {
  const followUps = n % 3;
  return {
    toolTurns: 1 + (n % 3),
    callsPerTurn: 1 + ((n >> 1) % 3),
    parallel: n % 2 === 1,
    followUps,
    compaction: followUps > 0 && n % 4 !== 0,
    approval: (["none", "allow", "deny"] as const)[n % 3 === 0 ? (n >> 2) % 3 : 0] ?? "none",
    child: n % 5 === 2,
  };
}

/** The script of the model turns a shape plays, each turn's calls changed by `change` when given. */
export function scriptOf(shape: Shape, change?: (turn: number, calls: ScriptCall[]) => ScriptCall[]): Record<string, unknown>[] {
  const turns: Record<string, unknown>[] = [];
  for (let segment = 0; segment <= shape.followUps; segment++) {
    for (let turn = 0; turn < shape.toolTurns; turn++) {
      let calls: ScriptCall[] = [];
      for (let call = 0; call < shape.callsPerTurn; call++) calls.push({ name: "lookup", input: { q: `s${segment}t${turn}c${call}` } });
      if (segment === 0 && turn === 0) {
        calls.push({ name: "write_mark", input: { note: "ran" } });
        if (shape.approval !== "none") calls.push({ name: "deploy", input: { target: "prod" } });
      }
      if (segment === 0 && turn === shape.toolTurns - 1 && shape.child) calls.push({ name: "helper", input: { prompt: "summarize the findings" } });
      calls = change?.(turns.length + 1, calls) ?? calls;
      turns.push({ text: `turn ${turns.length + 1}`, tool_calls: calls });
    }
    turns.push({ text: `answer ${segment}` });
  }
  return turns;
}

export interface ScriptCall {
  name: string;
  input: Record<string, unknown>;
}

/** Calls of the in-process tools and of the child agent's model: a replay makes none. */
export const toolRuns = { lookup: 0, deploy: 0, childModel: 0 };

/** The tools a shape's agent has: lookup, the side-effect tool writing to `markFile`, deploy (confirm), the child agent. */
export function toolsOf(markFile: string): Tool[] {
  const child = new ScriptProvider({ turns: [{ text: "the child's findings" }] });
  return [
    defineTool({
      name: "lookup",
      description: "Look a term up",
      input: z.object({ q: z.string() }),
      run: ({ q }) => {
        toolRuns.lookup++;
        return `found ${q}`;
      },
    }),
    testCommandTool(["sh", "-c", 'echo "$1" >> "$2"', "sh", "{note}", markFile], {
      name: "write_mark",
      input_schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
    }),
    defineTool({
      name: "deploy",
      description: "Deploy",
      input: z.object({ target: z.string() }),
      confirm: true,
      run: ({ target }) => {
        toolRuns.deploy++;
        return `deployed to ${target}`;
      },
    }),
    agentTool({
      name: "helper",
      description: "A sub-agent",
      agent: {
        provider: {
          name: "script",
          complete: (request, signal) => {
            toolRuns.childModel++;
            return child.complete(request, signal);
          },
        },
        model: "script-child",
      },
    }),
  ];
}

/** The agent a shape was recorded with; `turns` its script (scriptOf's). `sent` collects the system prompt and conversation of each call but summaries. */
export function agentOf(turns: Record<string, unknown>[], markFile: string, shape: Shape, sent?: unknown[]): ReplayAgent {
  const script = new ScriptProvider({ turns });
  const provider: ModelProvider = {
    name: "script",
    complete: (request, signal) => {
      const last = request.messages.at(-1)?.content.at(-1);
      if (!(last !== undefined && "text" in last && last.text === SUMMARY_REQUEST))
        sent?.push(structuredClone({ system: request.system, messages: request.messages }));
      return script.complete(request, signal);
    },
  };
  return { provider, model: "script-model", tools: toolsOf(markFile), parallelTools: shape.parallel, budget: { maxIterations: 50 } };
}

/**
 * Records a session of `shape` in `store`; resolves with its id. A shape with a confirm call
 * parks at it (no one to ask), is decided (approved or denied) and resumed, as a person would.
 */
export async function recordShape(store: MemoryStore, shape: Shape, markFile: string, runId: string, sent?: unknown[]): Promise<string> {
  const followUps = Array.from({ length: shape.followUps }, (_unused, index) => `follow-up ${index + 1}`);
  let compacted = !shape.compaction;
  const nextPrompt = async () => {
    if (!compacted && followUps.length > 0) {
      compacted = true;
      return COMPACT;
    }
    return followUps.shift();
  };
  const agent = { ...agentOf(scriptOf(shape), markFile, shape, sent), store, nextPrompt };
  let outcome = await runAgent({ ...agent, runId, prompt: "Find things out" });
  if (outcome.reason === "awaiting_approval") {
    if (shape.approval === "allow") await approve(store, runId, [], { decidedBy: "tester" });
    else await deny(store, runId, "not today", [], { decidedBy: "tester" });
    outcome = await runAgent({ ...agent, resume: runId });
  }
  if (outcome.reason !== "suspended") throw new Error(`recording ${runId} ended ${outcome.reason}: ${outcome.message ?? ""}`);
  return runId;
}
