// `fisk-ai init [DIR]`: a new agent to start from. It writes a commented agent.yaml that runs
// offline first (the script provider plays the model from agent.script.yaml), points an
// editor at agent.yaml's JSON Schema, and never overwrites a file. Its help is read without
// the handler's imports, which load only when it runs.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../cli-errors.js";
import type { CommandContext } from "../context/command-context.js";
import type { CommandIO } from "../context/command-io.js";
import { EXIT, EXIT_CODES_POINTER } from "../exit-codes.js";

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command
    .description(
      "Writes DIR/agent.yaml (DIR: default the current directory) and the script its offline model plays, agent.script.yaml; an editor checks agent.yaml against the JSON Schema it names. Never overwrites a file: one that exists is refused (exit 9).",
    )
    .addHelpText("after", `\n${EXIT_CODES_POINTER}`)
    .action(action(async (args) => run(args, io)));
}

const SCRIPT_FILE = "agent.script.yaml";

/** `schema`: the schema shipped with this install, where an editor finds it offline. */
function agentYaml(schema: string): string {
  return `# yaml-language-server: $schema=${schema}
# A fisk-ai agent. Every key is described in docs/agent-yaml.md; the schema above lets an
# editor check this file as you type.
#
# It runs offline first: the script provider plays the model's side from ${SCRIPT_FILE}.
#   fisk-ai run --config agent.yaml --checkpoint "Say hello"
# For Claude instead, set ANTHROPIC_API_KEY and replace the two lines below with
#   provider: anthropic
#   model: claude-sonnet-4-5
provider: script
model: script-demo
script: ./${SCRIPT_FILE}

# What the model is told before the conversation.
system: You are a helpful assistant. Use the tools when they help.

# Tools are commands: {field} in an argument is that field of the model's input.
tools:
  - name: today
    description: Prints today's date
    command: [date, "+%Y-%m-%d"]
    input_schema: { type: object, properties: {} }

# Where a run stops (exit 4 and 5): tokens in and out, and model calls.
budget:
  max_tokens: 200000
  max_iterations: 20
`;
}

const SCRIPT = `# The model's side while agent.yaml says provider: script, one entry per model call
# (docs/script-provider.md).
turns:
  - text: Let me look at the date.
    tool_calls: [{ name: today, input: {} }]
  - text: Hello! I looked at today's date with the today tool.
# Follow-ups (run --resume ID "...") play the turns from the first again.
repeat_from: 1
`;

async function run(args: string[], io: CommandIO): Promise<number> {
  if (args.length > 1) throw new UsageError("init takes at most one directory: fisk-ai init [DIR]");
  const [{ packageFile }, { AGENT_SCHEMA_FILE }] = await Promise.all([import("../../package/package-files.js"), import("../../config/agent-json-schema.js")]);
  const dir = resolve(args[0] ?? ".");
  mkdirSync(dir, { recursive: true });
  // Both files or neither: the script first, so a refused agent.yaml leaves nothing behind.
  const written: string[] = [];
  try {
    for (const [name, text] of [
      [SCRIPT_FILE, SCRIPT],
      ["agent.yaml", agentYaml(packageFile(`schemas/${AGENT_SCHEMA_FILE}`))],
    ] as const) {
      writeFileSync(join(dir, name), text, { flag: "wx" });
      written.push(name);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new UsageError(`cannot write in ${dir}: ${(error as Error).message}`);
    const existing = written.length === 0 ? SCRIPT_FILE : "agent.yaml";
    for (const name of written) rmSync(join(dir, name), { force: true });
    io.stderr.write(
      `fisk-ai: ${join(relative(process.cwd(), dir) || ".", existing)} already exists: init writes only new files (move it aside, or init another directory)\n`,
    );
    return EXIT.exists;
  }
  const config = relative(process.cwd(), join(dir, "agent.yaml")) || "agent.yaml";
  io.stdout.write(`wrote ${config} and ${SCRIPT_FILE}; try it offline with: fisk-ai run --config ${config} --checkpoint "Say hello"\n`);
  return EXIT.completed;
}
