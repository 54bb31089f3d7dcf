// A departing replay made a session (docs/replay.md, --fork): the recording's records before
// the turn where the new agent departed, an origin record of kind `replay` naming the
// recording, then the new agent's turn there and a terminal record. Its meta is the new
// agent's (fingerprint, agent.yaml), signed as a session started here is, so a resume runs it
// as this installation's own with the new agent: the departing turn's calls were never run by
// the replay, so they rest under the terminal record and a resume runs them, as it would a
// parked batch's. The recording is only read; the fork goes in through the store's atomic import.
import { agentSpec, type AgentOptions } from "../agent/agent-spec.js";
import { fingerprintOf, signedMeta } from "../agent/agent-loop.js";
import { fingerprintStyle } from "../agent/fingerprint.js";
import { isRunStateError } from "../runstate/errors.js";
import { encodeRecordIn } from "../runstate/records/journal-codec.js";
import { PROTOCOLS, type AssistantPayload, type JournalRecord, type MetaPayload, type TerminalPayload } from "../runstate/records/records.js";
import { assertRunId, newRunId } from "../runstate/records/run-id.js";
import type { Store } from "../runstate/store/store.js";
import { installationKeys, type KeyOptions } from "../trust/installation-keys.js";
import { foreignReason } from "../trust/session-trust.js";
import type { Recording } from "./recording.js";
import type { Departure, ReplayFork } from "./replay-report.js";

/** Where and how a departing replay is forked. */
export interface ReplayForkOptions {
  /** The store the fork is written to: the recording's own, or another. */
  store: Store;
  /** The fork's id; default a new one. A name the store holds already is refused. */
  name?: string;
  /** The keys its meta is signed with, as runAgent's (default: this installation's for `store`). */
  keys?: KeyOptions;
}

/** Where the replay departed: the recorded records before `beforeSeq` are kept, then the new agent's turn, if it took one. */
export interface ForkPoint {
  /** The first departure. */
  departure: Departure;
  /** The seq of the recorded turn the new agent departed at (or would have taken next). */
  beforeSeq: number;
  /** The new agent's turn there, as its assistant record; none when its run stopped before taking one. */
  turn: AssistantPayload | undefined;
}

/**
 * Writes the fork of `recording` (of the store `from`; records a program gave are taken as the fork store's) at `point`;
 * resolves with its id, or with why it was not written.
 */
export async function writeReplayFork(
  recording: Recording,
  from: Store | undefined,
  point: ForkPoint,
  agent: AgentOptions,
  options: ReplayForkOptions,
): Promise<ReplayFork> {
  const forkId = options.name ?? newRunId();
  if (forkId === recording.runId) return { refusal: `${forkId} is the recording's own id: fork under another name` };
  // The fork's meta is signed here and keeps the recording's directory: only a recording of this installation may vouch for it.
  const foreign = foreignReason(recording.meta, recording.imported, installationKeys(from ?? options.store, options.keys));
  if (foreign !== undefined)
    return { refusal: `session ${recording.runId} is foreign (${foreign}): a fork signed here would vouch for the directory its journal names` };
  try {
    assertRunId(forkId);
    await options.store.importJournal(forkId, forkJournal(recording, point, agent, forkId, options));
    return { runId: forkId };
  } catch (error) {
    if (isRunStateError(error, "ERR_EXISTS")) return { refusal: `the store holds a session ${forkId} already: fork under another name` };
    if (isRunStateError(error) || hasErrno(error)) return { refusal: `the fork ${forkId} could not be written: ${(error as Error).message}` };
    throw error;
  }
}

function forkJournal(recording: Recording, point: ForkPoint, agent: AgentOptions, forkId: string, options: ReplayForkOptions): Buffer {
  const { version } = recording.meta;
  const copied = recording.records.filter((record) => record.seq > 1 && record.seq < point.beforeSeq);
  const through = point.beforeSeq - 1;
  const { departure } = point;
  const own: JournalRecord[] = [{ seq: through + 1, protocol: PROTOCOLS.origin, origin: { run_id: recording.runId, through_seq: through, kind: "replay" } }];
  if (point.turn !== undefined) own.push({ seq: through + 2, protocol: PROTOCOLS.assistant, assistant: point.turn });
  const answered = point.turn !== undefined && !point.turn.message.content.some((block) => block.type === "tool_use");
  const terminal: TerminalPayload = {
    // Its calls rest under a suspension, never run: a resume runs them.
    reason: answered ? "completed" : "suspended",
    message: `replayed from ${recording.runId}: departed at turn ${departure.turn} (${departure.kind})`,
  };
  own.push({ seq: through + own.length + 1, protocol: PROTOCOLS.terminal, terminal });
  const meta = signedMeta(forkMeta(recording.meta, agent, forkId), installationKeys(options.store, options.keys));
  const lines = [{ seq: 1, protocol: PROTOCOLS.meta, meta } as JournalRecord, ...copied, ...own].map((record) => encodeRecordIn(version, record));
  return Buffer.from(lines.join(""));
}

/** The recording's meta made the new agent's: its fingerprint and agent.yaml; no parent (a fork is a session of its own), no old signature. */
function forkMeta(recorded: MetaPayload, agent: AgentOptions, forkId: string): MetaPayload {
  const { parent: _parent, signature: _signature, config: _config, ...kept } = recorded;
  return {
    ...kept,
    run_id: forkId,
    created: new Date().toISOString(),
    fingerprint: fingerprintOf(agentSpec(agent), fingerprintStyle(recorded)),
    ...(agent.configPath === undefined ? {} : { config: agent.configPath }),
  };
}

/** A system call's failure (EACCES, ENOSPC, ...), as a store passes it on. */
function hasErrno(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string";
}
