// `session export`, `session import` and `session fork` on the command line: the library
// (session/transfer.ts) moves the journal; this reads and writes the files and stdin.
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { isRunStateError } from "../../../runstate/errors.js";
import type { Store } from "../../../runstate/store/store.js";
import { exportJournal, forkSession, importJournal } from "../../../session/transfer.js";
import { UsageError } from "../../cli-errors.js";

/** Writes the session's complete records to `output`, or to stdout without one. */
export async function exportSession(
  store: Store,
  runId: string,
  output: string | undefined,
  streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
): Promise<void> {
  const { journal, tornTail } = await exportJournal(store, runId);
  if (tornTail) streams.stderr.write(`fisk-ai: left out the torn final line of session ${runId}\n`);
  if (output === undefined) {
    streams.stdout.write(journal);
    return;
  }
  // Written aside and renamed, so FILE is never half an export; 0600, as it holds the prompts.
  const temporary = `${output}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, journal, { mode: 0o600, flag: "wx" });
    renameSync(temporary, output);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new UsageError(`cannot write ${output}: ${fileErrorText(error)}`);
  }
}

/** Why a file could not be written or read, in a few words. */
export function fileErrorText(error: unknown): string {
  switch ((error as NodeJS.ErrnoException).code) {
    case "EISDIR":
      return "it is a directory";
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
      return "permission denied";
    default:
      return (error as Error).message;
  }
}

/** `-` reads stdin to its end, however slowly it comes: a pipe is read as a stream, never with one read of fd 0 (EAGAIN). */
export async function importSession(store: Store, file: string, name: string | undefined, stdin: NodeJS.ReadableStream): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = file === "-" ? await readToEnd(stdin) : readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${fileErrorText(error)}`);
  }
  return importJournal(store, bytes, { from: file, ...(name === undefined ? {} : { name }) });
}

async function readToEnd(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** `session fork ID [--at SEQ] [--name NEW]`, with the flag named when the seq is not one of the session's. */
export async function forkStoredSession(store: Store, runId: string, options: { at?: string; name?: string }): Promise<{ forkId: string; at: number }> {
  try {
    return await forkSession(store, runId, {
      ...(options.at === undefined ? {} : { at: Number(options.at) }),
      ...(options.name === undefined ? {} : { name: options.name }),
    });
  } catch (error) {
    if (isRunStateError(error, "ERR_NO_SEQ")) throw new UsageError(`--at takes a seq of session ${runId}, from ${error.expected}`);
    throw error;
  }
}
