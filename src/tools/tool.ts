// A tool the model can call. The loop sees only this interface: command tools from the
// config, function tools from library users, and later MCP tools all implement it.
import type { ToolSpec } from "../llm/model-provider.js";
import type { ToolResultBlock } from "../runstate/records.js";

export interface ToolOutput {
  content: string;
  is_error?: boolean;
}

export interface ToolContext {
  /** Aborted when the run is torn down; a tool should stop promptly. */
  signal: AbortSignal;
}

/**
 * What a resume does with a call that may have been running when the run stopped (a
 * crash, a kill, a second Ctrl-C): run it again, ask the operator, or never run it again
 * and tell the model its effect is unknown. For tools whose side effect must not repeat.
 */
export const CRASH_POLICIES = ["rerun", "ask", "never"] as const;
export type CrashPolicy = (typeof CRASH_POLICIES)[number];

export interface Tool extends ToolSpec {
  /** Ask the operator before each call; denied where there is no terminal to ask on. */
  confirm: boolean;
  /** Absent: rerun, the default. */
  onCrash?: CrashPolicy;
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
}

/** A tool defined in code, for library users. */
export function defineTool(definition: {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  confirm?: boolean;
  onCrash?: CrashPolicy;
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput | string>;
}): Tool {
  return {
    name: definition.name,
    description: definition.description,
    input_schema: definition.input_schema,
    confirm: definition.confirm ?? false,
    onCrash: definition.onCrash ?? "rerun",
    run: async (input, context) => {
      const output = await definition.run(input, context);
      return typeof output === "string" ? { content: output } : output;
    },
  };
}

export function toolResultBlock(toolUseId: string, output: ToolOutput): ToolResultBlock {
  return output.is_error === true
    ? { type: "tool_result", tool_use_id: toolUseId, content: output.content, is_error: true }
    : { type: "tool_result", tool_use_id: toolUseId, content: output.content };
}
