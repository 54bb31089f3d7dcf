// Sub-agent overhead (issue 35): the same task, five tool calls and an answer, done by the
// session itself and done by a child session it hands the task to (agentTool), side by
// side: the time of the whole run and the bytes journaled (the child side journals two
// sessions: the parent's two turns and the child's). In-process through runAgent over a
// FileStore in a temporary directory, a model of code that answers at once, so the figures
// are the runtime's own; rounds alternate their order.
//   npm run bench:sub-agents            SUB_AGENT_ROUNDS=<n> for another count (default 30)
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentTool, defineTool, FileStore, runAgent, type ModelProvider, type ModelRequest, type ModelTurn, type Tool } from "../src/index.js";
import { formatMs, formatRatio, machineLine, printTable } from "./report.js";
import { median, timed } from "./stats.js";

const COMMAND = "npm run bench:sub-agents";
const ROUNDS = Number(process.env.SUB_AGENT_ROUNDS ?? 30);
const CALLS = 5;

const note = defineTool({ name: "note", description: "Notes a line.", input: { type: "object" }, run: () => "noted" });

/** A model of code: `CALLS` note calls, then an answer; a lead with `delegate` hands the task to its worker first. */
function model(delegate: boolean): ModelProvider {
  return {
    name: "anthropic",
    complete: async (request: ModelRequest): Promise<ModelTurn> => {
      const turns = request.messages.filter((message) => message.role === "assistant").length;
      const usage = { in_tokens: 100, out_tokens: 10 };
      if (delegate) {
        return turns === 0
          ? {
              message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_worker", name: "worker", input: { prompt: "note five lines" } }] },
              stop_reason: "tool_use",
              usage,
            }
          : { message: { role: "assistant", content: [{ type: "text", text: "done" }] }, stop_reason: "end_turn", usage };
      }
      return turns < CALLS
        ? {
            message: { role: "assistant", content: [{ type: "tool_use", id: `toolu_${turns}`, name: "note", input: { line: turns } }] },
            stop_reason: "tool_use",
            usage,
          }
        : { message: { role: "assistant", content: [{ type: "text", text: "done" }] }, stop_reason: "end_turn", usage };
    },
  };
}

async function side(dir: string, runId: string, delegated: boolean): Promise<{ ms: number; bytes: number }> {
  const store = new FileStore({ dir });
  const worker: Tool = agentTool({ name: "worker", description: "Does the task.", agent: { provider: model(false), model: "bench", tools: [note] } });
  try {
    const { ms, value } = await timed(() =>
      runAgent({ provider: model(delegated), model: "bench", tools: delegated ? [worker] : [note], store, runId, prompt: "note five lines" }),
    );
    if (value.reason !== "completed") throw new Error(`${runId} ended ${value.reason}`);
    const bytes = readdirSync(dir)
      .filter((name) => name === `${runId}.json` || (name.startsWith(`${runId}-`) && name.endsWith(".json")))
      .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
    return { ms, bytes };
  } finally {
    await store.close();
  }
}

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-bench-sub-agents-"));
try {
  const own: { ms: number; bytes: number }[] = [];
  const child: { ms: number; bytes: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which side goes first, so neither always runs on a warmer process.
    const order = round % 2 === 0 ? [false, true] : [true, false];
    for (const delegated of order) (delegated ? child : own).push(await side(dir, `${delegated ? "child" : "own"}-${round}`, delegated));
  }
  const ownMs = median(own.map((run) => run.ms));
  const childMs = median(child.map((run) => run.ms));
  const ownBytes = median(own.map((run) => run.bytes));
  const childBytes = median(child.map((run) => run.bytes));
  printTable(
    `sub-agent overhead: ${CALLS} tool calls and an answer, done by the session itself vs by a child session (median of ${ROUNDS} rounds)`,
    ["", "by the session", "by a child", "child / session"],
    [
      ["time of the run, ms", formatMs(ownMs), formatMs(childMs), formatRatio(childMs / ownMs)],
      ["bytes journaled", String(ownBytes), String(childBytes), formatRatio(childBytes / ownBytes)],
    ],
    [`command: ${COMMAND}`, machineLine(dir)],
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
