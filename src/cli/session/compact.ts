// `fisk-ai session compact`: summarize all but the latest messages of a session, or undo that.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { EXIT } from "../exit-codes.js";
import { ids, type SessionContext } from "../context/session-context.js";

export const options = {
  undo: { flag: "--undo", help: "journal the undo of the latest compaction: the next model call is sent the whole conversation again" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [runId] = ids(positionals, "compact", { atMostOne: true }) as [string];
  assertRunId(runId);
  const { compactStoredSession } = await import("./handlers/compact.js");
  await compactStoredSession(await sessionStore(values), runId, { config: values.config, undo: values.undo === true }, io);
  return EXIT.completed;
}
