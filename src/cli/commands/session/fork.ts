// `fisk-ai session fork`: a new session repeating a session's records.
import type { Command } from "commander";
import { assertRunId } from "../../../runstate/records/run-id.js";
import { EXIT } from "../../exit-codes.js";
import { ids, recordedSessionWhere, type SessionContext } from "../../session-command.js";

export function options(command: Command): void {
  command.option("--at <SEQ>", "the last record to repeat (default: the last one)").option("--name <NEW>", "the new session's id (default: a new KSUID)");
}

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  const [runId] = ids(positionals, "fork", { atMostOne: true }) as [string];
  assertRunId(runId);
  const [{ forkStoredSession }, { resumeCommand }] = await Promise.all([import("../../session-transfer.js"), import("../../resume-hint.js")]);
  const store = await sessionStore(values);
  const { forkId, at } = await forkStoredSession(store, runId, { at: values.at, name: values.name });
  const where = await recordedSessionWhere(values, (await store.summarize(forkId, { digest: false })).meta?.config);
  io.stdout.write(`forked ${runId} at seq ${at} as ${forkId}; resume with: ${resumeCommand(forkId, where, io.env)}\n`);
  return EXIT.completed;
}
