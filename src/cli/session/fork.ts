// `fisk-ai session fork`: a new session repeating a session's records.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { ids, recordedSessionWhere, type SessionContext } from "../context/session-context.js";

export const options = {
  at: { flag: "--at <SEQ>", help: "the last record to repeat (default: the last one)" },
  name: { flag: "--name <NEW>", help: "the new session's id (default: a new KSUID)" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [runId] = ids(positionals, "fork", { atMostOne: true }) as [string];
  assertRunId(runId);
  const [{ forkSession }, { isRunStateError }, { resumeCommand }] = await Promise.all([
    import("../../session/transfer.js"),
    import("../../runstate/errors.js"),
    import("../context/resume-hint.js"),
  ]);
  const store = await sessionStore(values);
  const { forkId, at } = await forkSession(store, runId, {
    ...(values.at === undefined ? {} : { at: Number(values.at) }),
    name: values.name,
  }).catch((error: unknown) => {
    // The seq named by its flag, which the library's error cannot know.
    if (isRunStateError(error, "ERR_NO_SEQ")) throw new UsageError(`--at takes a seq of session ${runId}, from ${error.expected}`);
    throw error;
  });
  const where = await recordedSessionWhere(values, (await store.summarize(forkId, { digest: false })).meta?.config);
  io.stdout.write(`forked ${runId} at seq ${at} as ${forkId}; resume with: ${resumeCommand(forkId, where, io.env)}\n`);
  return EXIT.completed;
}
