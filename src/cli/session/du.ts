// `fisk-ai session du`: the bytes each session takes, largest first, and the total.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  json: { flag: "--json", help: "the sizes as JSON" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session du takes no arguments");
  const [{ diskUse }, { bytesText, table, widthOf }, { statusText }, { counted }, { nameText }] = await Promise.all([
    import("../../session/disk-use.js"),
    import("../text/ledger.js"),
    import("../text/session-list.js"),
    import("../../transcript/counted.js"),
    import("../../transcript/session-name.js"),
  ]);
  const { sessions, totalBytes } = await diskUse(await sessionStore(values));
  if (values.json === true) {
    const rows = sessions.map(({ summary, bytes }) => ({
      id: summary.runId,
      bytes,
      status: summary.status,
      title: summary.digest?.title ?? null,
      prompt: summary.meta?.prompt ?? null,
    }));
    io.stdout.write(`${JSON.stringify({ sessions: rows, total_bytes: totalBytes }, null, 2)}\n`);
    return EXIT.completed;
  }
  const rows = sessions.map(({ summary, bytes }) => [bytesText(bytes), summary.runId, statusText(summary), nameText(summary)]);
  const total = [bytesText(totalBytes), `total (${counted(sessions.length, "session")}, ${totalBytes} bytes)`];
  io.stdout.write(table([["SIZE", "ID", "STATUS", "TITLE/PROMPT"], ...rows, total], widthOf(io.stdout)));
  return EXIT.completed;
}
