// `fisk-ai session deny`: deny calls a parked session waits on.
import type { Command } from "commander";
import type { SessionContext } from "../context/session-context.js";
import { decide } from "./decide.js";

export function options(command: Command): void {
  command
    .option("--reason <TEXT>", "why: the model reads it as the call's error")
    .option("--all", "every call that waits (the default without ids)")
    .option("--resume", "then resume the session");
}

export function run(context: SessionContext): Promise<number> {
  return decide("deny", context);
}
