// `fisk-ai session mv`: move a session to another store.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { sessionStoreConfig } from "../context/stores.js";
import { ids, type SessionContext } from "../context/session-context.js";

export const options = {
  to: { flag: "--to <STORE>", help: "the store it goes to: nats://HOST:PORT/STREAM, or a file store's directory", required: true },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [runId] = ids(positionals, "mv", { atMostOne: true }) as [string];
  assertRunId(runId);
  const [{ moveStoredSession }, { resumeCommand }] = await Promise.all([import("./handlers/move.js"), import("../context/resume-hint.js")]);
  if (values.to === undefined) throw new UsageError("session mv needs --to STORE: nats://HOST:PORT/STREAM, or a directory");
  const from = { store: await sessionStore(values), config: await sessionStoreConfig(values) };
  const { outcome, where } = await moveStoredSession(from, (flags) => sessionStore(flags), runId, values.to, io.moveStep);
  const done =
    outcome === "done"
      ? `session ${runId} is in ${where.store ?? where.stateDir} already`
      : `${outcome === "finished" ? "finished moving" : "moved"} session ${runId} to ${where.store ?? where.stateDir}`;
  io.stdout.write(`${done}; resume with: ${resumeCommand(runId, where, io.env)}\n`);
  return EXIT.completed;
}
