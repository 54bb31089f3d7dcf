// `fisk-ai queue suspend`: ask the worker pool to suspend running sessions at their next boundary.
import { UsageError } from "../cli-errors.js";
import type { QueueContext } from "../context/queue-context.js";
import { EXIT } from "../exit-codes.js";

export async function run({ positionals, io, poolBackend }: QueueContext): Promise<number> {
  if (positionals.length === 0) throw new UsageError("queue suspend needs the id of a session the pool runs: fisk-ai queue ls lists them");
  const { store, queue } = await poolBackend();
  const { requestSuspend } = await import("../../pool/submit-run.js");
  for (const runId of positionals) {
    await requestSuspend({ store, queue }, runId);
    io.stdout.write(`asked the pool to suspend ${runId} at its next boundary; it stays suspended until resumed or followed up\n`);
  }
  return EXIT.completed;
}
