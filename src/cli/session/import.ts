// `fisk-ai session import`: a verified journal into the store.
import type { Options } from "../context/options.js";
import { EXIT } from "../exit-codes.js";
import { UsageError } from "../cli-errors.js";
import { storeWhere, type SessionContext } from "../context/session-context.js";

export const options = {
  name: { flag: "--name <ID>", help: "the id of the imported session (default: the journal's)" },
} as const satisfies Options;

const PIECE = 1024 * 1024;

export async function run({ positionals, values, io, sessionStore }: SessionContext<typeof options>): Promise<number> {
  if (positionals.length !== 1) throw new UsageError("session import takes one file (or - for stdin)");
  const [{ importJournal }, { resumeCommand }] = await Promise.all([import("../../session/transfer.js"), import("../context/resume-hint.js")]);
  const store = await sessionStore(values);
  const file = positionals[0] as string;
  const imported = async (path: string) =>
    importJournal(store, () => filePieces(path, file), { from: file, ...(values.name === undefined ? {} : { name: values.name }) });
  // The journal is read twice (verified, then written), a piece at a time: stdin is kept aside in a file for the second reading.
  const runId = file === "-" ? await withSpooled(io.stdin, imported) : await imported(file);
  io.stdout.write(`imported session ${runId}; resume with: ${resumeCommand(runId, storeWhere(values), io.env)}\n`);
  return EXIT.completed;
}

/** The bytes of the file at `path` (named `name` in errors), a piece at a time; one it cannot read is a UsageError naming it. */
async function* filePieces(path: string, name: string): AsyncIterable<Uint8Array> {
  const [{ open }, { fileErrorText }] = await Promise.all([import("node:fs/promises"), import("../text/file-error.js")]);
  const refusal = (error: unknown) => new UsageError(`cannot read ${name}: ${fileErrorText(error)}`);
  const handle = await open(path, "r").catch((error: unknown) => {
    throw refusal(error);
  });
  try {
    for (;;) {
      const piece = Buffer.allocUnsafe(PIECE);
      const { bytesRead } = await handle.read(piece, 0, PIECE, null).catch((error: unknown) => {
        throw refusal(error);
      });
      if (bytesRead === 0) return;
      yield piece.subarray(0, bytesRead);
    }
  } finally {
    await handle.close();
  }
}

/**
 * Runs `use` on a private file that holds what `stream` gives, to its end, however slowly it
 * comes (a pipe is read as a stream, never with one read of fd 0: EAGAIN), and removes it after.
 */
async function withSpooled<T>(stream: NodeJS.ReadableStream, use: (path: string) => Promise<T>): Promise<T> {
  const [{ mkdtemp, rm }, { createWriteStream }, { pipeline }, { tmpdir }, { join }] = await Promise.all([
    import("node:fs/promises"),
    import("node:fs"),
    import("node:stream/promises"),
    import("node:os"),
    import("node:path"),
  ]);
  const dir = await mkdtemp(join(tmpdir(), "fisk-ai-import-"));
  try {
    const path = join(dir, "journal");
    await pipeline(stream, createWriteStream(path, { mode: 0o600, flags: "wx" }));
    return await use(path);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
