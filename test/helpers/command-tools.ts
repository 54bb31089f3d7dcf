// A command tool with the defaults the command tool tests share.
import { commandTool, type CommandToolDefinition } from "../../src/tools/command-tool.js";
import type { Tool } from "../../src/tools/tool.js";

/** Named `t`, any object input, 5 s, 1 KiB of output kept, this process's PATH and nothing else. */
export function testCommandTool(command: string[], overrides: Partial<CommandToolDefinition> = {}): Tool {
  return commandTool({
    name: "t",
    description: "a test tool",
    command,
    input_schema: { type: "object" },
    timeoutMs: 5000,
    outputLimitBytes: 1024,
    confirm: false,
    onCrash: "rerun",
    env: { PATH: process.env.PATH ?? "" },
    ...overrides,
  });
}
