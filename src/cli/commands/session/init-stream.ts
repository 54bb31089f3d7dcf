// `fisk-ai session init-stream`: create the JetStream stream the store names.
import type { Command } from "commander";
import { EXIT } from "../../exit-codes.js";
import { UsageError } from "../../cli-errors.js";
import { sessionStoreConfig } from "../../session-store.js";
import type { SessionContext } from "../../session-command.js";

export function options(command: Command): void {
  command.option("--prefix <P>", "the subject prefix the stream binds");
}

export async function run({ positionals, values, io }: SessionContext): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session init-stream takes no arguments");
  const config = await sessionStoreConfig(values);
  if (config.backend !== "jetstream")
    throw new UsageError("session init-stream needs a JetStream store: give --store nats://HOST:PORT/STREAM or session.backend: jetstream");
  const { initRunStream } = await import("../../../backends/jetstream/run-stream.js");
  const { created, prefix } = await initRunStream({ ...config, prefix: values.prefix ?? config.prefix });
  io.stdout.write(`${created ? "created" : "found"} stream ${config.stream} binding ${prefix}.>, with one write-once message per subject and no max age\n`);
  return EXIT.completed;
}
