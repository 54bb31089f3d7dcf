// The tools of one run, and the one way a tool_use becomes a tool_result: whatever
// goes wrong (an unknown tool, a denial, a throw) the model gets an is_error result,
// never a missing one.
import type { ToolSpec } from "../llm/model-provider.js";
import type { ToolResultBlock, ToolUseBlock } from "../runstate/records.js";
import { toolResultBlock, type Tool } from "./tool.js";

/** Asks the operator whether a `confirm` tool may run; the CLI answers from a terminal. */
export type ConfirmToolCall = (tool: Tool, input: Record<string, unknown>) => Promise<boolean>;

export const denyWithoutTerminal: ConfirmToolCall = async () => false;

export class ToolSet {
  readonly #tools: Map<string, Tool>;

  constructor(tools: readonly Tool[]) {
    this.#tools = new Map();
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new Error(`two tools are named ${tool.name}: tool names must be unique`);
      this.#tools.set(tool.name, tool);
    }
  }

  specs(): ToolSpec[] {
    return [...this.#tools.values()].map(({ name, description, input_schema }) => ({ name, description, input_schema }));
  }

  async run(use: ToolUseBlock, signal: AbortSignal, confirm: ConfirmToolCall): Promise<ToolResultBlock> {
    const tool = this.#tools.get(use.name);
    if (tool === undefined) {
      const known = [...this.#tools.keys()].join(", ") || "none";
      return toolResultBlock(use.id, { content: `no tool named ${use.name}; the tools are: ${known}`, is_error: true });
    }
    if (tool.confirm && !(await confirm(tool, use.input).catch(() => false))) {
      return toolResultBlock(use.id, {
        content: `the operator did not allow this call of ${tool.name} (a confirm tool is denied where there is no terminal to ask on)`,
        is_error: true,
      });
    }
    try {
      return toolResultBlock(use.id, await tool.run(use.input, { signal }));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return toolResultBlock(use.id, { content: `${tool.name} failed: ${reason}`, is_error: true });
    }
  }
}
