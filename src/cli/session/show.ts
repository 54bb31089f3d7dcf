// `fisk-ai session show`: a session's state, or its conversation (in the viewer on a terminal).
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { crashPolicies, ids, onTerminal, type SessionContext } from "../context/session-context.js";

export const options = {
  transcript: { flag: "--transcript", help: "add the conversation" },
  full: { flag: "--full", help: "with --transcript: whole tool results" },
  follow: { flag: "--follow", help: "show the conversation and then each record a running session journals, until it ends" },
  tui: { flag: "--no-tui", help: "print the conversation even on a terminal (as does NO_TUI=1)" },
  json: { flag: "--json", help: "the session's state as JSON" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [named] = ids(positionals, "show", { atMostOne: true }) as [string];
  const flags = { json: values.json === true, transcript: values.transcript === true, full: values.full === true, follow: values.follow === true };
  if (flags.json && flags.follow) throw new UsageError("session show --json is the state as it is now: give --json or --follow, not both");
  const store = await sessionStore(values);
  const { resolveSession } = await import("../context/resolve-session.js");
  const runId = await resolveSession(store, named);
  if ((flags.transcript || flags.follow) && !flags.json && values.tui !== false && onTerminal(io)) {
    const { viewSession } = await import("../viewer/view-session.js");
    return viewSession(store, runId, { follow: flags.follow }, io);
  }
  // The viewer prices nothing on its first screen: the ledger loads only for the printed show.
  const [{ showSession }, { writeSession }, { sessionPrices }] = await Promise.all([
    import("../../session/show-session.js"),
    import("../text/session-show.js"),
    import("../text/session-ledger.js"),
  ]);
  const shown = await showSession(store, runId, { prices: (summary) => sessionPrices(values.config, summary.meta?.config), env: io.env });
  await writeSession(store, shown, flags, io.stdout, await crashPolicies(values.config, shown.summary.meta));
  return EXIT.completed;
}
