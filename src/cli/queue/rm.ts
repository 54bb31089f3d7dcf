// `fisk-ai queue rm`: withdraw queued sessions no worker has started.
import { UsageError } from "../cli-errors.js";
import type { QueueContext } from "../context/queue-context.js";
import { EXIT } from "../exit-codes.js";

export async function run({ positionals, io, poolBackend }: QueueContext): Promise<number> {
  if (positionals.length === 0) throw new UsageError("queue rm needs the id of a queued session: fisk-ai queue ls lists them");
  const { store, queue } = await poolBackend();
  const [{ withdrawRun }, { isValidRunId }] = await Promise.all([import("../../pool/withdraw-run.js"), import("../../runstate/records/run-id.js")]);
  for (const name of positionals) {
    // A name set aside always holds a `.`, which no run id does.
    if (!isValidRunId(name)) {
      await queue.discard(name);
      io.stdout.write(`removed ${name}\n`);
      continue;
    }
    const ended = await withdrawRun(store, queue, name);
    io.stdout.write(ended === "removed" ? `withdrew ${name}; it never ran, so its session is removed\n` : `withdrew ${name}; its session stays as it ended\n`);
  }
  return EXIT.completed;
}
