// The tools of one run, and the one way a tool_use becomes a tool_result: whatever
// goes wrong (an unknown tool, a denial, a throw) the model gets an is_error result,
// never a missing one.
import type { ToolSpec } from "../llm/model-provider.js";
import type { ApprovalKind, ToolResultBlock, ToolUseBlock } from "../runstate/records/records.js";
import { CallHeld, toolResultBlock, type CrashPolicy, type Tool, type ToolContext } from "./tool.js";

/**
 * Asks the operator a yes/no question about one call: whether a `confirm` tool may run,
 * or whether an `on_crash: ask` call cut short by a crash runs again. The CLI answers
 * from a terminal.
 */
export type ConfirmToolCall = (tool: Tool, input: Record<string, unknown>) => Promise<boolean>;

export const denyWithoutTerminal: ConfirmToolCall = async () => false;

/** What a call already decided by a person is asked again: nothing, it is allowed. */
export const allowDecided: ConfirmToolCall = async () => true;

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
    return [...this.#tools.values()].map(specOf);
  }

  /** The tools of each MCP server, so the guard can name the server whose tools changed. */
  specsByServer(): Record<string, ToolSpec[]> {
    const servers: Record<string, ToolSpec[]> = {};
    for (const tool of this.#tools.values()) {
      if (tool.mcpServer !== undefined) (servers[tool.mcpServer] ??= []).push(specOf(tool));
    }
    return servers;
  }

  /**
   * Whether a call that may have been running when the run stopped runs again, by its
   * tool's `on_crash` policy; `ask` asks the operator. A tool no longer known is run (and
   * answered that it is unknown), as any other call of it would be.
   */
  async mayRerun(use: ToolUseBlock, ask: ConfirmToolCall): Promise<boolean> {
    const tool = this.#tools.get(use.name);
    const policy: CrashPolicy = tool?.onCrash ?? "rerun";
    if (tool === undefined || policy === "rerun") return true;
    return policy === "ask" && (await ask(tool, use.input).catch(() => false));
  }

  /**
   * Whether a call waits for a person before it runs: `approval` for a `confirm: true`
   * tool, `question` for ask_user, undefined for any other (a confirm function decides itself).
   */
  decisionKind(use: ToolUseBlock): ApprovalKind | undefined {
    const tool = this.#tools.get(use.name);
    if (tool?.asksOperator === true) return "question";
    return tool?.confirm === true ? "approval" : undefined;
  }

  /** The tool named `name`, if the set has one. */
  named(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  crashPolicy(name: string): CrashPolicy | undefined {
    const tool = this.#tools.get(name);
    return tool === undefined ? undefined : (tool.onCrash ?? "rerun");
  }

  /**
   * The call's result, and whether it went to an MCP server (journaled as `remote`).
   * Rejects with the tool's CallHeld when the call has no answer yet.
   */
  async run(use: ToolUseBlock, context: ToolContext, confirm: ConfirmToolCall): Promise<{ result: ToolResultBlock; remote: boolean }> {
    const tool = this.#tools.get(use.name);
    const result = await this.#call(tool, use, context, confirm);
    return { result: result.block, remote: result.called && tool?.mcpServer !== undefined };
  }

  async #call(tool: Tool | undefined, use: ToolUseBlock, context: ToolContext, confirm: ConfirmToolCall): Promise<{ block: ToolResultBlock; called: boolean }> {
    if (tool === undefined) {
      const known = [...this.#tools.keys()].join(", ") || "none";
      return { block: toolResultBlock(use.id, { content: `no tool named ${use.name}; the tools are: ${known}`, is_error: true }), called: false };
    }
    const decide = async (): Promise<boolean> => (typeof tool.confirm === "function" ? tool.confirm(use.input) : !tool.confirm || confirm(tool, use.input));
    if (!(await decide().catch(() => false))) {
      const denied = `the operator did not allow this call of ${tool.name} (a confirm tool is denied where there is no terminal to ask on)`;
      return { block: toolResultBlock(use.id, { content: denied, is_error: true }), called: false };
    }
    try {
      return { block: toolResultBlock(use.id, await tool.run(use.input, context)), called: true };
    } catch (error) {
      if (error instanceof CallHeld) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      return { block: toolResultBlock(use.id, { content: `${tool.name} failed: ${reason}`, is_error: true }), called: true };
    }
  }
}

function specOf({ name, description, input_schema }: ToolSpec): ToolSpec {
  return { name, description, input_schema };
}

/** The answer to a call the max_tokens cut off while the model was writing it. */
export function cutCallResult(use: ToolUseBlock): ToolResultBlock {
  return toolResultBlock(use.id, {
    content: `this call of ${use.name} was not run: your reply reached max_tokens while you were writing it, so its input may be incomplete. Call it again, with less output before it if need be.`,
    is_error: true,
  });
}

/** The result of a call a resume did not run again: the model is told to check before acting again. */
export function interruptedResult(use: ToolUseBlock): ToolResultBlock {
  return toolResultBlock(use.id, {
    content: `this call of ${use.name} may have been running when the run was interrupted (a crash or a kill), and it was not run again: whether it took effect is unknown. Check its effect before calling it again.`,
    is_error: true,
  });
}
