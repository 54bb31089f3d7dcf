// `fisk-ai worker`: its options; the handler is worker-command.ts.
import type { Command } from "commander";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command
    .description(
      "Takes queued sessions whose configuration is one of the --config agents, N at a time, printing one line per run taken and let go of. A run whose worker died is taken over from its journal. SIGTERM or SIGINT hands the runs back suspended and exits 0; a second aborts them (exit 130).",
    )
    .option("--config <FILE...>", "the agents it drives (default: ./agent.yaml); the first names the store")
    .option("--concurrency <N>", "runs driven at once (default 1)")
    .option("--poll <MS>", "how long an idle worker waits to hear of a run before it looks at the queue anyway, in milliseconds (default 200)")
    .option("--adopt", "also take open sessions of its agents that no process holds (a run --checkpoint whose process died), looked for every 5 s")
    .option("--state-dir <DIR>", "where sessions are kept (default: the first config's session block)")
    .option("--store <URL>", STORE_OPTION)
    .action(action(async (args, flags) => (await import("./worker-command.js")).workerCommand(args, flags, io)));
}
