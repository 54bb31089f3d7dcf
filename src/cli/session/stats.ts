// `fisk-ai session stats`: tokens and cost over the store.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";
import type { StatsBy } from "../../session/session-stats.js";

export const options = {
  since: { flag: "--since <AGE>", help: "only sessions written in the last AGE: 30m, 12h, 7d, 2w" },
  by: { flag: "--by <KEY>", help: "a row per model, day (the day a session was last written) or cwd" },
  json: { flag: "--json", help: "the totals as JSON" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session stats takes no arguments");
  const [{ ageMs, AGE_FORM }, { sessionStats }, { writeSessionStats }, { pricesFrom }] = await Promise.all([
    import("../../config/age.js"),
    import("../../session/session-stats.js"),
    import("../text/session-stats.js"),
    import("../text/session-ledger.js"),
  ]);
  const sinceMs = values.since === undefined ? undefined : ageMs(values.since);
  if (values.since !== undefined && sinceMs === undefined) throw new UsageError(`--since ${JSON.stringify(values.since)}: expected ${AGE_FORM}`);
  if (values.by !== undefined && values.by !== "model" && values.by !== "day" && values.by !== "cwd")
    throw new UsageError(`--by is model, day or cwd, not '${values.by}'`);
  const prices = await pricesFrom(values.config);
  const stats = await sessionStats(await sessionStore(values), { sinceMs, by: values.by as StatsBy | undefined, prices });
  writeSessionStats(stats, { json: values.json === true, priced: Object.keys(prices).length > 0 }, io.stdout);
  return EXIT.completed;
}
