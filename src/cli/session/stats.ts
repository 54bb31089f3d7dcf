// `fisk-ai session stats`: tokens and cost over the store.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";

export const options = {
  since: { flag: "--since <AGE>", help: "only sessions written in the last AGE: 30m, 12h, 7d, 2w" },
  by: { flag: "--by <KEY>", help: "a row per model, day (the day a session was last written) or cwd" },
  json: { flag: "--json", help: "the totals as JSON" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session stats takes no arguments");
  const [{ checkStatsFlags, sessionStats }, { pricesFrom }] = await Promise.all([import("./handlers/stats.js"), import("../text/session-ledger.js")]);
  const { sinceMs, by } = checkStatsFlags(values);
  await sessionStats(
    await sessionStore(values),
    { sinceMs, by, json: values.json === true, prices: await pricesFrom(values.config), now: Date.now() },
    io.stdout,
  );
  return EXIT.completed;
}
