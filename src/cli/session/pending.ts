// `fisk-ai session pending`: every call waiting for a decision, oldest first, from the library's listPending.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import type { SessionContext } from "../context/session-context.js";
import type { WaitingCall } from "../../agent/waiting-calls.js";

export const options = {
  json: { flag: "--json", help: "one JSON array of the calls" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length > 0) throw new UsageError("session pending takes no arguments");
  const [{ listPending }, { ageText }] = await Promise.all([import("../../agent/waiting-calls.js"), import("../text/session-list.js")]);
  const waiting = await listPending(await sessionStore(values));
  const now = Date.now();
  if (values.json === true) {
    io.stdout.write(
      `${JSON.stringify(
        waiting.map((call) => pendingJson(call, now)),
        null,
        2,
      )}\n`,
    );
    return EXIT.completed;
  }
  if (waiting.length === 0) {
    io.stdout.write("No calls wait for a decision.\n");
    return EXIT.completed;
  }
  // A call in a child session shows the way down to it from its top-level session, which is the one to resume.
  const paths = waiting.some((call) => call.path !== undefined);
  const rows = waiting.map((call) => [
    call.runId,
    call.toolUseId,
    call.name,
    call.kind,
    ageText(now - Date.parse(call.requestedAt)),
    ...(paths ? [(call.path ?? [call.runId]).join(" > ")] : []),
    JSON.stringify(call.input),
  ]);
  const header = ["SESSION", "CALL", "TOOL", "KIND", "WAITING", ...(paths ? ["PATH"] : []), "INPUT"];
  const widths = header.slice(0, -1).map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const lines = [header, ...rows].map((row) => row.map((cell, column) => (column < widths.length ? cell.padEnd(widths[column] as number) : cell)).join("  "));
  io.stdout.write(`${lines.join("\n")}\n`);
  return EXIT.completed;
}

function pendingJson(call: WaitingCall, now: number) {
  return {
    session_id: call.runId,
    tool_use_id: call.toolUseId,
    name: call.name,
    input: call.input,
    kind: call.kind,
    requested_at: call.requestedAt,
    ...(call.path === undefined ? {} : { path: call.path }),
    waiting_seconds: Math.max(0, Math.floor((now - Date.parse(call.requestedAt)) / 1000)),
  };
}
