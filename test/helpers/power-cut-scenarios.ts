// The scenarios of the power-cut test: each does one thing a user does to a file store,
// recorded, and resumes or repeats it after each cut as the user would. Tools log each run
// to the explorer's list, outside the simulated disk: `note` reruns after a crash, `send`
// (on_crash: never) does not.
import { defineTool, runAgent, ScriptProvider, type RunAgentOptions, type Tool } from "../../src/index.js";
import type { ScriptSource } from "../../src/llm/script-provider.js";
import type { Scenario, ScenarioContext, StateView } from "./power-cut-explorer.js";
import { stateOf } from "./power-cut-explorer.js";

function loggingTools(context: ScenarioContext): Tool[] {
  const tool = (name: string, onCrash: "rerun" | "never") =>
    defineTool({
      name,
      description: `${name}s a line`,
      input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      onCrash,
      run: (input, call) => {
        context.executions.push({ call: `${call.run?.runId}/${call.run?.toolUseId}`, tool: name, atOp: context.opsSoFar() });
        return `${name} ${String(input.text)}`;
      },
    });
  return [tool("note", "rerun"), tool("send", "never")];
}

/** A turn that calls `note` with each text, then `send` with the last. */
const TURNS = {
  batch: {
    text: "Noting and sending.",
    tool_calls: [
      { name: "note", input: { text: "one" } },
      { name: "send", input: { text: "two" } },
    ],
  },
  note: (text: string) => ({ tool_calls: [{ name: "note", input: { text } }] }),
  answer: (text: string) => ({ text }),
};

function agent(context: ScenarioContext, script: ScriptSource, dir: "runs" | "other" = "runs"): Omit<RunAgentOptions, "prompt"> {
  return {
    provider: new ScriptProvider(script),
    model: "scripted",
    tools: loggingTools(context),
    parallelTools: true,
    store: context.store(dir),
    retry: { attempts: 1 },
  };
}

/**
 * Resumes session `runId` of store `dir` when the state holds it and it is not over: the
 * resume must complete it (or stop where `stopsAt` allows). A session the cut took whole was never acknowledged.
 */
async function resumeIfOpen(
  context: ScenarioContext,
  state: StateView,
  runId: string,
  script: ScriptSource,
  options: { dir?: "runs" | "other"; extra?: Partial<RunAgentOptions>; ends?: readonly string[] } = {},
): Promise<string[]> {
  const dir = options.dir ?? "runs";
  const records = state.journals.get(`${dir}/${runId}`);
  if (records === undefined || records.length === 0) return [];
  if (stateOf(records).terminal?.reason === "completed" && options.extra?.followUp === undefined) return [];
  try {
    const outcome = await runAgent({ ...agent(context, script, dir), resume: runId, ...options.extra });
    const ends = options.ends ?? ["completed"];
    return ends.includes(outcome.reason) ? [] : [`the resume of ${dir}/${runId} ended ${outcome.reason}, not ${ends.join(" or ")}`];
  } catch (error) {
    return [`the resume of ${dir}/${runId} failed: ${(error as Error).message}`];
  }
}

const ONE_SHOT: ScriptSource = { turns: [TURNS.batch, TURNS.note("three"), TURNS.answer("Noted, sent, noted.")] };

export const oneShot: Scenario = {
  name: "a one-shot run with a parallel batch",
  async run(context) {
    await runAgent({ ...agent(context, ONE_SHOT), prompt: "Note, send, note", runId: "oneshot" });
  },
  resume: (context, state) => resumeIfOpen(context, state, "oneshot", ONE_SHOT),
};
