// `fisk-ai store init URL`: a Postgres store's tables made or migrated ahead of first use.
import { maskUrlCredentials } from "../../errors/masked-url.js";
import { parseStoreUrl } from "../../backends/store-url.js";
import { UsageError } from "../cli-errors.js";
import type { CommandIO } from "../context/command-io.js";

export async function storeInit(url: string, io: CommandIO): Promise<number> {
  const config = parseStoreUrl(url);
  if (config.backend !== "postgres") {
    throw new UsageError(
      `store init makes the tables of a Postgres store (postgres://...), not of ${JSON.stringify(maskUrlCredentials(url))}: a file store needs none, a JetStream stream is made by session init-stream`,
    );
  }
  const { initPostgresSchema } = await import("../../backends/postgres/postgres-backend.js");
  const { where, found, version } = await initPostgresSchema(config.url);
  const what = found === version ? "were at" : found === 0 ? "made at" : `migrated from version ${found} to`;
  io.stdout.write(`fisk-ai's tables in ${where} ${what} schema version ${version}\n`);
  return 0;
}
