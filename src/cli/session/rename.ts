// `fisk-ai session rename`: give a session a title.
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export async function run({ positionals, values, io, sessionStore }: SessionContext): Promise<number> {
  if (positionals.length !== 2) throw new UsageError('session rename takes a session (its id or title) and the new title: fisk-ai session rename ID "TITLE"');
  const [named, title] = positionals as [string, string];
  const store = await sessionStore(values);
  const [{ resolveSession }, { checkedTitle }, { titleSession }] = await Promise.all([
    import("../context/resolve-session.js"),
    import("../context/checked-title.js"),
    import("../../session/session-title.js"),
  ]);
  const runId = await resolveSession(store, named);
  await titleSession(store, runId, checkedTitle(title, "the title"));
  io.stdout.write(`session ${runId} is titled ${JSON.stringify(title)}\n`);
  return EXIT.completed;
}
