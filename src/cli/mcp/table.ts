// `fisk-ai mcp login|logout`: their options; the handler is mcp-command.ts.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import type { McpCommandName } from "./mcp-command.js";

const MCP_EXIT_CODES = "Exit codes: 0 done, 1 the server did not start or the sign-in failed, 2 usage or configuration error";

const SUBCOMMANDS: readonly [McpCommandName, string][] = [
  ["login", "sign in to the MCP server NAME of agent.yaml in the browser, and keep its tokens for runs"],
  ["logout", "remove the tokens kept for the MCP server NAME"],
];

export async function define(mcp: Command, { io, action }: CommandContext): Promise<void> {
  mcp
    .description(
      "Sign-ins are kept in $XDG_STATE_HOME/fisk-ai/mcp-auth (or ~/.local/state/fisk-ai/mcp-auth), one file per server that only you can read. The browser BROWSER names opens on the sign-in page; its URL is printed too.",
    )
    .addHelpText("after", `\n${MCP_EXIT_CODES}`);
  for (const [name, description] of SUBCOMMANDS) {
    mcp
      .command(name)
      .usage("NAME [options]")
      .description(description)
      .option("--config <FILE>", "the agent configuration that names the server (default: ./agent.yaml)")
      .addHelpText("after", `\n${MCP_EXIT_CODES}`)
      .action(action(async (args, flags) => (await import("./mcp-command.js")).mcpCommand(name, args, flags, io)));
  }
}
