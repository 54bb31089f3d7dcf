// `fisk-ai session approve`: approve calls a parked session waits on.
import type { Command } from "commander";
import type { SessionContext } from "../context/session-context.js";
import { decide } from "./decide.js";

export function options(command: Command): void {
  command.option("--all", "every approval that waits (the default without ids)").option("--resume", "then resume the session");
}

export function run(context: SessionContext): Promise<number> {
  return decide("approve", context);
}
