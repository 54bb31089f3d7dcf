// `fisk-ai session mv`: move a session to another store.
import type { Options } from "../context/options.js";
import { assertRunId } from "../../runstate/records/run-id.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { resolve } from "node:path";
import type { StoreConfig } from "../../backends/store-config.js";
import { isStoreUrl } from "../../backends/url-form.js";
import type { ResumeWhere } from "../context/resume-hint.js";
import { sessionStoreConfig } from "../context/stores.js";
import { ids, type SessionContext } from "../context/session-context.js";

export const options = {
  to: { flag: "--to <STORE>", help: "the store it goes to: nats://HOST:PORT/STREAM, or a file store's directory", required: true },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [runId] = ids(positionals, "mv", { atMostOne: true }) as [string];
  assertRunId(runId);
  if (values.to === undefined) throw new UsageError("session mv needs --to STORE: nats://HOST:PORT/STREAM, or a directory");
  const to = values.to;
  const [{ moveSession }, { resumeCommand }, { maskUrlCredentials, urlHoldsSecret }, { defaultStateDir }, { parseStoreUrl }] = await Promise.all([
    import("../../session/move-session.js"),
    import("../context/resume-hint.js"),
    import("../../errors/masked-url.js"),
    import("../../runstate/state-dir.js"),
    import("../../backends/store-url.js"),
  ]);
  // The one parser of store names: an unknown scheme, a URL not of its backend's form and an empty name are refused here.
  const toConfig = parseStoreUrl(to);
  const from = { store: await sessionStore(values), config: await sessionStoreConfig(values) };
  // The moved record names where the session went, and a record never holds a secret.
  if (urlHoldsSecret(to))
    throw new UsageError(
      `--to ${JSON.stringify(maskUrlCredentials(to))}: a store URL with a password would be journaled in the moved record: give the backend its credentials another way (its environment)`,
    );
  if (sameStore(from.config, toConfig, defaultStateDir())) throw new UsageError(`session ${runId} is in ${to} already: --to names the store it goes to`);
  // Recorded so that it reaches the same store from any directory.
  const where: ResumeWhere = toConfig.backend === "file" && !isStoreUrl(to) && toConfig.dir !== undefined ? { stateDir: toConfig.dir } : { store: to };
  const outcome = await moveSession(from.store, await sessionStore(where), runId, where.store ?? (where.stateDir as string), io.moveStep);
  const done =
    outcome === "done"
      ? `session ${runId} is in ${where.store ?? where.stateDir} already`
      : `${outcome === "finished" ? "finished moving" : "moved"} session ${runId} to ${where.store ?? where.stateDir}`;
  io.stdout.write(`${done}; resume with: ${resumeCommand(runId, where, io.env)}\n`);
  return EXIT.completed;
}

function sameStore(a: StoreConfig, b: StoreConfig, defaultDir: string): boolean {
  if (a.backend === "file" && b.backend === "file") return resolve(a.dir ?? defaultDir) === resolve(b.dir ?? defaultDir);
  if (a.backend === "jetstream" && b.backend === "jetstream") return a.servers === b.servers && a.stream === b.stream;
  if (a.backend === undefined && b.backend === undefined) return a.url === b.url;
  return false;
}
