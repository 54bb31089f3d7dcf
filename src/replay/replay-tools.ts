// The tools a replay gives the new model: each of the new agent's tools as the model is told
// of it (name, description, input schema), whose calls are answered from the recording and
// never run: no command, MCP server, child session or question to a person. A call the
// recording cannot answer gets an error result saying so.
import { inputValidator } from "../tools/input-validator.js";
import type { Tool, ToolOutput } from "../tools/tool.js";
import type { ToolResultBlock } from "../runstate/records/records.js";

/** The answers of the current turn's calls, by the new model's call id. */
export type RecordedAnswers = Map<string, ToolResultBlock>;

/** What a call the recording cannot answer gets: the replay runs no tool. */
export const NOT_RECORDED = "this call is not in the recording, and a replay runs no tool: it was not run";

/** Stand-ins for `tools` that answer from `answers`. */
export function replayTools(tools: readonly Tool[], answers: RecordedAnswers): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.input_schema,
    // Nothing is asked of anyone: every call, decided or not in the recording, has its recorded answer.
    confirm: false,
    onCrash: "rerun",
    run: async (_input, context) => answerOf(answers.get(context.run?.toolUseId ?? "")),
  }));
}

function answerOf(result: ToolResultBlock | undefined): ToolOutput {
  if (result === undefined) return { content: NOT_RECORDED, is_error: true };
  return result.is_error === true ? { content: result.content, is_error: true } : { content: result.content };
}

/** Why the new agent's tool `name` refuses the recorded `input`, or undefined when it takes it. */
export function inputRefusal(tools: readonly Tool[], name: string, input: Record<string, unknown>): string | undefined {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) return `the new agent has no tool named ${name}`;
  let validate;
  try {
    validate = inputValidator.compile(tool.input_schema);
  } catch (error) {
    return `the input schema of ${name} does not compile: ${(error as Error).message}`;
  }
  if (validate(input)) return undefined;
  const problems = (validate.errors ?? []).map((problem) => `${problem.instancePath || "input"} ${problem.message ?? "is invalid"}`);
  return `the input schema of ${name} refuses the recorded input: ${problems.join("; ")}`;
}
