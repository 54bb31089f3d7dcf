// `fisk-ai worker`: a process of the pool. Takes queued runs of the agents it was given,
// N at a time, printing one line per run it takes and lets go of. The first SIGTERM or
// SIGINT (a deploy) hands its runs back suspended and exits 0; a second aborts them as a
// crash would (exit 130), and the pool takes them up from their last record. Its options
// are data that help and completion read; the handler's imports load only when it runs.
import type { Command } from "commander";
import { UsageError } from "../cli-errors.js";
import { STORE_OPTION, type CommandContext } from "../context/command-context.js";
import type { CommandIO } from "../context/command-io.js";
import { addOptions, type Flags, type Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";

export const options = {
  config: { flag: "--config <FILE...>", help: "the agents it drives (default: ./agent.yaml); the first names the store" },
  concurrency: { flag: "--concurrency <N>", help: "runs driven at once (default 1)" },
  poll: { flag: "--poll <MS>", help: "how long an idle worker waits to hear of a run before it looks at the queue anyway, in milliseconds (default 200)" },
  adopt: { flag: "--adopt", help: "also take open sessions of its agents that no process holds (a run --checkpoint whose process died), looked for every 5 s" },
  stateDir: { flag: "--state-dir <DIR>", help: "where sessions are kept (default: the first config's session block)" },
  store: { flag: "--store <URL>", help: STORE_OPTION },
} as const satisfies Options;

export async function define(command: Command, { io, action }: CommandContext): Promise<void> {
  command.description(
    "Takes queued sessions whose configuration is one of the --config agents, N at a time, printing one line per run taken and let go of. A run whose worker died is taken over from its journal. SIGTERM or SIGINT hands the runs back suspended and exits 0; a second aborts them (exit 130).",
  );
  addOptions(command, options).action(action(async (args, flags) => run(args, flags as Flags<typeof options>, io)));
}

async function run(positionals: string[], flags: Flags<typeof options>, io: CommandIO): Promise<number> {
  if (positionals.length > 0) throw new UsageError(`worker takes no arguments (got ${JSON.stringify(positionals[0])}): name its agents with --config FILE`);
  const [{ Worker, WORKER_DEFAULTS }, { openPool, workerEvents }, { counted }] = await Promise.all([
    import("../../pool/worker.js"),
    import("../context/pool-context.js"),
    import("../../transcript/counted.js"),
  ]);
  const concurrency = wholeNumber(flags.concurrency, "--concurrency", WORKER_DEFAULTS.concurrency);
  const pollMs = wholeNumber(flags.poll, "--poll", WORKER_DEFAULTS.pollMs);
  const pool = await openPool(flags, io);
  try {
    const { store, queue } = pool;
    const say = (line: string) => io.stdout.write(`${line}\n`);
    const worker = new Worker({
      store,
      queue,
      agents: pool.agents.map((agent) => agent.spec),
      concurrency,
      pollMs,
      adopt: flags.adopt === true,
      events: workerEvents(io),
    });
    let signals = 0;
    const onSignal = () => {
      signals++;
      if (signals === 1) {
        const count = worker.running.length;
        say(`stopping: handing back ${counted(count, "run")} at ${count === 1 ? "its" : "their"} next boundary (signal again to abort)`);
        worker.stop();
      } else worker.abort();
    };
    process.on("SIGTERM", onSignal).on("SIGINT", onSignal);
    say(`worker ${process.pid} taking runs (${concurrency} at a time) of ${pool.paths.map((path) => path ?? "the default configuration").join(", ")}`);
    try {
      await worker.run();
    } finally {
      process.off("SIGTERM", onSignal).off("SIGINT", onSignal);
    }
    return signals > 1 ? EXIT.interrupted : EXIT.completed;
  } finally {
    await pool.close();
  }
}

function wholeNumber(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) throw new UsageError(`${flag} takes a whole number from 1, not ${JSON.stringify(value)}`);
  return number;
}
