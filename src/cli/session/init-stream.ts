// `fisk-ai session init-stream`: create the JetStream stream the store names.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { sessionStoreConfig } from "../context/stores.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  prefix: { flag: "--prefix <P>", help: "the subject prefix the stream binds" },
} as const satisfies Options;

export async function run({ positionals, values, io }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session init-stream takes no arguments");
  const config = await sessionStoreConfig(values);
  if (config.backend !== "jetstream")
    throw new UsageError("session init-stream needs a JetStream store: give --store nats://HOST:PORT/STREAM or session.backend: jetstream");
  const { initRunStream } = await import("../../backends/jetstream/run-stream.js");
  const { created, prefix } = await initRunStream({ ...config, prefix: values.prefix ?? config.prefix });
  io.stdout.write(`${created ? "created" : "found"} stream ${config.stream} binding ${prefix}.>, with one write-once message per subject and no max age\n`);
  return EXIT.completed;
}
