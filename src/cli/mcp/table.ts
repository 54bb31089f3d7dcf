// `fisk-ai mcp ...`: the table of its subcommands, each defined and handled by its own module.
import type { Command } from "commander";
import type { CommandContext } from "../context/command-context.js";
import type { McpContext } from "../context/mcp-context.js";
import { defineSubcommands, type Group, type SubcommandEntry } from "../context/subcommands.js";

const MCP_EXIT_CODES = "Exit codes: 0 done, 1 the server did not start or the sign-in failed, 2 usage or configuration error";

const SUBCOMMANDS: readonly SubcommandEntry<McpContext>[] = [
  {
    name: "login",
    usage: "NAME [options]",
    description: "sign in to the MCP server NAME of agent.yaml in the browser, and keep its tokens for runs",
    helpAfter: MCP_EXIT_CODES,
    load: () => import("./login.js"),
  },
  {
    name: "logout",
    usage: "NAME [options]",
    description: "remove the tokens kept for the MCP server NAME",
    helpAfter: MCP_EXIT_CODES,
    load: () => import("./logout.js"),
  },
];

const MCP_GROUP: Group<McpContext> = {
  options: { config: { flag: "--config <FILE>", help: "the agent configuration that names the server (default: ./agent.yaml)" } },
  run: async (module, positionals, values, io, name) => (await import("../context/mcp-context.js")).mcpCommand(module, positionals, values, io, name),
};

export async function define(mcp: Command, context: CommandContext): Promise<void> {
  mcp
    .description(
      "Sign-ins are kept in $XDG_STATE_HOME/fisk-ai/mcp-auth (or ~/.local/state/fisk-ai/mcp-auth), one file per server that only you can read. The browser BROWSER names opens on the sign-in page; its URL is printed too.",
    )
    .addHelpText("after", `\n${MCP_EXIT_CODES}`);
  await defineSubcommands(mcp, context, SUBCOMMANDS, MCP_GROUP);
}
