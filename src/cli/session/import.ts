// `fisk-ai session import`: a verified journal into the store.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { storeWhere, type SessionContext } from "../context/session-context.js";

export const options = {
  name: { flag: "--name <ID>", help: "the id of the imported session (default: the journal's)" },
} as const satisfies Options;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length !== 1) throw new UsageError("session import takes one file (or - for stdin)");
  const [{ importJournal }, { readFileSync }, { fileErrorText }, { resumeCommand }] = await Promise.all([
    import("../../session/transfer.js"),
    import("node:fs"),
    import("../text/file-error.js"),
    import("../context/resume-hint.js"),
  ]);
  const store = await sessionStore(values);
  const file = positionals[0] as string;
  let bytes: Buffer;
  try {
    bytes = file === "-" ? await readToEnd(io.stdin) : readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${fileErrorText(error)}`);
  }
  const runId = await importJournal(store, bytes, { from: file, ...(values.name === undefined ? {} : { name: values.name }) });
  io.stdout.write(`imported session ${runId}; resume with: ${resumeCommand(runId, storeWhere(values), io.env)}\n`);
  return EXIT.completed;
}

/** `-` reads stdin to its end, however slowly it comes: a pipe is read as a stream, never with one read of fd 0 (EAGAIN). */
async function readToEnd(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}
