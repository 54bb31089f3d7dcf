// `fisk-ai session answer`: answer the ask_user question a parked session waits on.
import type { Command } from "commander";
import type { SessionContext } from "../context/session-context.js";
import { decide } from "./decide.js";

export function options(command: Command): void {
  command.option("--call <TOOL_USE_ID>", "the question to answer, where more than one waits").option("--resume", "then resume the session");
}

export function run(context: SessionContext): Promise<number> {
  return decide("answer", context);
}
