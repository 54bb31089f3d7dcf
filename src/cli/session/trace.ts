// `fisk-ai session trace`: send a session's spans to a collector.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { ids, type SessionContext } from "../context/session-context.js";

export const options = {
  endpoint: { flag: "--endpoint <URL>", help: "the collector's OTLP/HTTP address, such as http://localhost:4318 (default: OTEL_EXPORTER_OTLP_ENDPOINT)" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  const [named] = ids(positionals, "trace", { atMostOne: true }) as [string];
  const [{ tracingWanted }, { resolveSession }] = await Promise.all([import("../../telemetry/otel-setup.js"), import("../context/resolve-session.js")]);
  if (values.endpoint === undefined && !tracingWanted(io.env)) {
    throw new UsageError("session trace needs a collector to send to: give --endpoint URL (such as http://localhost:4318) or set OTEL_EXPORTER_OTLP_ENDPOINT");
  }
  if (values.endpoint !== undefined && !/^https?:\/\/[^/\s]+/.test(values.endpoint)) {
    throw new UsageError(`--endpoint ${values.endpoint} is not an http(s) URL: give the collector's OTLP/HTTP address, such as http://localhost:4318`);
  }
  const store = await sessionStore(values);
  const runId = await resolveSession(store, named);
  const { exportSessionTrace } = await import("../../telemetry/traced-run.js");
  try {
    const sent = await exportSessionTrace(store, runId, io.env, values.endpoint);
    io.stdout.write(`sent ${sent} spans of session ${runId}\n`);
    return EXIT.completed;
  } catch (error) {
    io.stderr.write(`fisk-ai: ${(error as Error).message}; check the collector's address and that it is running\n`);
    return EXIT.error;
  }
}
