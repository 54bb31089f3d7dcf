// `fisk-ai mcp logout NAME`: forget the sign-in to an MCP server.
import type { McpContext } from "../context/mcp-context.js";
import { EXIT } from "../exit-codes.js";

export async function run({ io, name, signIn }: McpContext): Promise<number> {
  io.stderr.write(signIn.remove() ? `fisk-ai: signed out of MCP server ${name}\n` : `fisk-ai: there was no sign-in to MCP server ${name} to remove\n`);
  return EXIT.completed;
}
