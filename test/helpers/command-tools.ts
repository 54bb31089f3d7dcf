// A command tool with the defaults the command tool tests share.
import { commandTool, type CommandToolDefinition } from "../../src/tools/command-tool.js";
import { compileInputCheck } from "../../src/tools/tool-input.js";
import type { Tool } from "../../src/tools/tool.js";

/** Named `t`, any object input, 5 s, 1 KiB of output kept, this process's PATH and nothing else; its input_schema compiled as an agent's load does. */
export function testCommandTool(command: string[], overrides: Partial<Omit<CommandToolDefinition, "inputCheck">> = {}): Tool {
  const definition = {
    name: "t",
    description: "a test tool",
    command,
    input_schema: { type: "object" },
    timeoutMs: 5000,
    outputLimitBytes: 1024,
    confirm: false,
    onCrash: "rerun" as const,
    env: { PATH: process.env.PATH ?? "" },
    ...overrides,
  };
  const made = compileInputCheck(definition.input_schema).then((inputCheck) => commandTool({ ...definition, inputCheck }));
  const { name, description, input_schema, confirm, onCrash } = definition;
  return { name, description, input_schema, confirm, onCrash, run: async (input, context) => (await made).run(input, context) };
}
