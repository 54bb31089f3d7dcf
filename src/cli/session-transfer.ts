// `session export`, `session import` and `session fork`: a session's journal out of the
// store, into it, or copied under a new id. All go through verification and the store's
// atomic import, so a half-written session is never visible.
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { RunStateError } from "../runstate/errors.js";
import { fold } from "../runstate/fold.js";
import { completeBytes, encodeRecordIn, lineEnd } from "../runstate/journal-codec.js";
import { verifyJournal, type JournalVerification } from "../runstate/journal-verify.js";
import { PROTOCOLS, type MetaRecord, type OriginKind } from "../runstate/records.js";
import { assertRunId, newRunId } from "../runstate/run-id.js";
import type { Store } from "../runstate/store.js";
import { UsageError } from "./cli-errors.js";

/** Refuses a journal with any problem but a torn tail, naming the first one. */
function requireSound(label: string, verification: JournalVerification, allowTornTail: boolean): void {
  const problem = verification.problems.find((candidate) => !(allowTornTail && candidate.kind === "torn_tail"));
  if (problem !== undefined) {
    const code = problem.kind === "version" ? "ERR_VERSION" : "ERR_CORRUPT";
    throw new RunStateError(code, `${label}: ${problem.message}`, { line: problem.line });
  }
}

/** The journal's complete records, as stored; a torn final write (never acknowledged) is left out. */
export async function exportSession(store: Store, runId: string, output: string | undefined, streams: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<void> {
  const bytes = Buffer.from(await store.readJournal(runId));
  const verification = verifyJournal(bytes, runId);
  requireSound(`session ${runId}`, verification, true);
  const complete = bytes.subarray(0, completeBytes(bytes));
  if (complete.length < bytes.length) streams.stderr.write(`fisk-ai: left out the torn final line of session ${runId}\n`);
  if (output === undefined) {
    streams.stdout.write(complete);
    return;
  }
  // Written aside and renamed, so FILE is never half an export; 0600, as it holds the prompts.
  const temporary = `${output}.tmp-${process.pid}`;
  try {
    writeFileSync(temporary, complete, { mode: 0o600, flag: "wx" });
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
  const verification = verifyJournal(bytes);
  requireSound(file, verification, false);
  const meta = verification.records[0] as MetaRecord;
  const runId = name ?? meta.meta.run_id;
  assertRunId(runId);
  // Under its own id the bytes go in as they are: it is the session itself, moved. Under a
  // new name it is a copy: the meta line changes, and an origin record says whose records
  // it holds, so the ledger counts them once, in that session.
  const copy = () => withOrigin(withNewMeta(bytes, { ...meta.meta, run_id: runId }), meta.meta, verification.records.length, "import");
  await store.importJournal(runId, runId === meta.meta.run_id ? bytes : copy());
  return runId;
}

async function readToEnd(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

export async function forkSession(store: Store, runId: string, options: { at?: string; name?: string }): Promise<{ forkId: string; at: number }> {
  const bytes = Buffer.from(await store.readJournal(runId));
  const verification = verifyJournal(bytes, runId);
  requireSound(`session ${runId}`, verification, true);
  const lastSeq = verification.records.length;
  const at = options.at === undefined ? lastSeq : Number(options.at);
  if (!Number.isInteger(at) || at < 1 || at > lastSeq) {
    throw new UsageError(`--at takes a seq of session ${runId}, from 1 to ${lastSeq}`);
  }
  const forkId = options.name ?? newRunId();
  assertRunId(forkId);
  const meta = (verification.records[0] as MetaRecord).meta;
  const kept = bytes.subarray(0, lineEnd(bytes, at));
  const fork = withOrigin(withNewMeta(kept, { ...meta, run_id: forkId, created: new Date().toISOString() }), meta, at, "fork");
  // Cut where the run had not stopped, the fork would read `open`, a run whose process died.
  // At rest (no call unanswered) it is a session to resume, so it says so: suspended. Cut
  // with calls unanswered it stays open, so a resume treats them as a crash would: they may
  // have run in the original.
  const state = fold(verification.records.slice(0, at));
  const unanswered = state.pending?.toolUses.some((use) => !state.pending?.answered.has(use.id)) ?? false;
  const suspended = encodeRecordIn(meta.version, { seq: at + 2, protocol: PROTOCOLS.terminal, terminal: { reason: "suspended", message: `forked from ${runId} at seq ${at}` } });
  await store.importJournal(forkId, state.terminal !== undefined || unanswered ? fork : Buffer.concat([fork, Buffer.from(suspended)]));
  return { forkId, at };
}

/** The journal of a copy with an origin record after its `through` copied records, naming the session they came from. */
function withOrigin(bytes: Buffer, from: MetaRecord["meta"], through: number, kind: OriginKind): Buffer {
  const origin = encodeRecordIn(from.version, { seq: through + 1, protocol: PROTOCOLS.origin, origin: { run_id: from.run_id, through_seq: through, kind } });
  return Buffer.concat([bytes.subarray(0, completeBytes(bytes)), Buffer.from(origin)]);
}

/** The journal with its first line replaced by a new meta record. */
function withNewMeta(bytes: Buffer, meta: MetaRecord["meta"]): Buffer {
  const rest = bytes.subarray(bytes.indexOf(0x0a) + 1);
  return Buffer.concat([Buffer.from(encodeRecordIn(meta.version, { seq: 1, protocol: PROTOCOLS.meta, meta })), rest]);
}
