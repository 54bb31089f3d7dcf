// What `mcp login|logout NAME` are given: the server's name, checked, and its sign-in file.
import type { OptionValues } from "commander";
import type { SignInFile } from "../../tools/mcp/sign-in-file.js";
import { UsageError } from "../cli-errors.js";
import type { SubcommandContext, SubcommandModule } from "./subcommands.js";

export interface McpContext extends SubcommandContext {
  /** The MCP server's name in agent.yaml. */
  name: string;
  /** Where its sign-in is kept. */
  signIn: SignInFile;
}

const SERVER_NAME = /^[a-zA-Z0-9-]{1,32}$/;

export async function mcpCommand(
  module: SubcommandModule<McpContext>,
  positionals: string[],
  values: OptionValues,
  io: SubcommandContext["io"],
  command: string,
): Promise<number> {
  const [name] = positionals;
  if (name === undefined || !SERVER_NAME.test(name))
    throw new UsageError(`mcp ${command} takes the name of an MCP server in agent.yaml (1 to 32 letters, digits or '-')`);
  const [{ SignInFile }, { mcpSignInDir }] = await Promise.all([import("../../tools/mcp/sign-in-file.js"), import("../../config/run-options.js")]);
  return module.run({ positionals, values, io, name, signIn: new SignInFile(mcpSignInDir(io.env), name) });
}
