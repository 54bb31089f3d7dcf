// `fisk-ai session show ID`: what a session is, and with --transcript what was said.
// Everything is read as it is written out, so a journal of any size shows in bounded memory.
import { providerOf } from "../../agent/fingerprint.js";
import type { ApprovalDecisionPayload, ApprovalRequestPayload, TerminalPayload } from "../../runstate/records/records.js";
import type { CompactionState } from "../../runstate/views/fold.js";
import type { RunSummary, Store } from "../../runstate/store/store.js";
import type { CrashPolicy } from "../../tools/tool.js";
import { compactionLine } from "./compaction.js";
import { PacedOutput } from "./paced-output.js";
import { ledgerCalls, ledgerJson, ledgerLines, tokensText, treeJson, treeLines } from "./session-ledger.js";
import type { ShownSession } from "../../session/show-session.js";
import { writeStateJson } from "./show-json.js";
import { ageText, statusText, timeText } from "./session-list.js";
import { followRecords } from "./session-follow.js";
import { ChildSessions } from "../../transcript/child-sessions.js";
import { plainEntry } from "./transcript-entry.js";
import { counted } from "../../transcript/counted.js";

/** A configured tool's `on_crash` policy; undefined when the tool (or the config) is not known. */
export type CrashPolicyOf = (toolName: string) => CrashPolicy | undefined;

/** How `session show` was asked to show a session. */
export interface ShowOptions {
  json: boolean;
  transcript: boolean;
  full: boolean;
  /** Go on printing the records a running session journals, until it ends. */
  follow: boolean;
}

/**
 * Writes a session the library's showSession read, as `session show` prints it: its header
 * (or its state as JSON) and, when asked, its conversation, read from `store` as it is written out.
 */
export async function writeSession(
  store: Store,
  shown: ShownSession,
  options: ShowOptions,
  stdout: NodeJS.WritableStream,
  crashPolicyOf: CrashPolicyOf = () => undefined,
): Promise<void> {
  const out = new PacedOutput(stdout);
  const { summary, tally, digest, prices, tree, foreign } = shown;
  const runId = summary.runId;
  if (options.json) {
    const ledger = { ...ledgerJson(digest, prices), ...(tree === undefined ? {} : { tree: treeJson(tree) }) };
    await writeStateJson(store, tally, summary, out, { ledger, foreign: foreign ?? null }, { calls: ledgerCalls(digest, prices) });
    return;
  }
  const own = ledgerLines(shown.ledger, digest);
  // With sessions below it, the session's `cost` is its own, and the total follows them.
  const ledger = tree === undefined ? own : [...own.map(([name, value]): [string, string] => [name === "cost" ? "own cost" : name, value]), ...treeLines(tree)];
  for (const line of headerLines(shown, crashPolicyOf, ledger)) await out.write(`${line}\n`);
  if (options.transcript || options.follow) {
    await out.write("\n");
    const children = new ChildSessions(store);
    const reader = await children.readerOf(runId);
    const records = options.follow ? followRecords(store, runId) : store.readRecords(runId);
    let terminal = tally.terminal;
    for await (const record of records) {
      if ("terminal" in record) terminal = record.terminal;
      if (!options.follow && record.seq > tally.lastSeq) break;
      for (const entry of reader.entriesOf(record)) {
        await out.write(`${plainEntry(entry, options.full)}\n`);
        // A child's work opens in place, each line marked with its depth, as --full opens a long result.
        if (entry.kind !== "child" || !options.full) continue;
        for await (const inner of children.entriesOf(entry.runId)) await out.write(`${indented(plainEntry(inner.entry, true), "│ ".repeat(inner.depth))}\n`);
      }
      // A follower sees each record as it comes, not once a piece is full.
      if (options.follow) await out.flush();
    }
    // The header said how the session stood when following began (running): the end says how it ended.
    if (options.follow) await out.write(`── ${statusLine(await store.summarize(runId), terminal)} ──\n`);
  }
  await out.flush();
}

/** The status line's text: the status, and the terminal record's message when it has one. */
function statusLine(summary: RunSummary, terminal: TerminalPayload | undefined): string {
  return statusText(summary) + (terminal?.message === undefined ? "" : ` (${terminal.message})`);
}

function headerLines({ summary, tally, foreign, approvals, uncounted }: ShownSession, crashPolicyOf: CrashPolicyOf, ledger: [string, string][]): string[] {
  const runId = summary.runId;
  const { counters, meta } = tally;
  const fields: [string, string][] = [
    ["session", runId],
    ["status", statusLine(summary, tally.terminal)],
    ["provider", providerOf(meta.fingerprint)],
    ["model", meta.fingerprint.model],
    ["created", timeText(meta.created)],
    ["updated", timeText(summary.updated)],
    ["next iteration", String(tally.nextIteration)],
    ["model calls", String(counters.modelCalls)],
    ["tool calls", `${counters.toolCalls}${counters.remoteToolCalls > 0 ? ` (${counters.remoteToolCalls} remote)` : ""}`],
    ["tokens", tokensText(counters.inTokens, counters.outTokens, counters.cacheReadTokens, counters.cacheCreateTokens)],
    ...ledger,
  ];
  if (tally.compactions.length > 0) {
    fields.push([
      "summarizing calls",
      `${counters.compactionCalls}: tokens in ${counters.compactionInTokens}, out ${counters.compactionOutTokens} (apart from the model calls above)`,
    ]);
    for (const entry of tally.compactions) fields.push(["compaction", compactedText(entry)]);
  }
  if (tally.pending !== undefined) {
    fields.push(["pending", pendingLine(tally.pending.toolUses, tally.pending.answered, crashPolicyOf)]);
    for (const { request, decision } of approvals) fields.push(["approval", approvalLine(request, decision)]);
    for (const { seq, toolUseId, decision, reason } of uncounted) {
      fields.push([
        "not counted",
        `seq ${seq}: ${decision.decision} of call ${toolUseId} by ${decision.decided_by}: ${reason}; the call waits for a decision again`,
      ]);
    }
  }
  const title = summary.digest?.title;
  if (title !== undefined && title !== null) fields.push(["title", title]);
  if (foreign !== undefined) fields.push(["foreign", `${foreign}: a resume needs --config, and its calls a decision signed here`]);
  if (meta.parent !== undefined) fields.push(["parent", `${meta.parent.run_id}, started by its call ${meta.parent.call_id} (depth ${meta.parent.depth})`]);
  fields.push(["prompt", meta.prompt]);
  const width = Math.max(...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${name.padEnd(width)}  ${value}`);
}

/** A parked call: what it asks, and how long it waited (and waits still, until decided). */
function approvalLine(request: ApprovalRequestPayload, decision: ApprovalDecisionPayload | undefined): string {
  const what = `${request.tool_use_id} ${request.name} ${JSON.stringify(request.input)}`;
  const requested = Date.parse(request.requested_at);
  if (decision === undefined) return `${what}: waiting for ${request.kind === "question" ? "an answer" : "a decision"} for ${ageText(Date.now() - requested)}`;
  const text = decision.text === undefined ? "" : ` (${decision.text})`;
  return `${what}: ${decision.decision}${text} by ${decision.decided_by} after ${ageText(Date.parse(decision.decided_at) - requested)}`;
}

function compactedText({ seq, compaction, undoneAt }: CompactionState): string {
  return `${compactionLine(seq, compaction)}${undoneAt === undefined ? "" : `, undone at seq ${undoneAt}`}`;
}

/** Every line of `text` after `prefix`. */
function indented(text: string, prefix: string): string {
  return `${prefix}${text.split("\n").join(`\n${prefix}`)}`;
}

/** The pending batch's line: its calls, how many are answered, and the unanswered ones with their on_crash. */
export function pendingLine(
  toolUses: readonly { name: string; id: string }[],
  answered: ReadonlySet<string>,
  crashPolicyOf: (name: string) => string | undefined,
): string {
  const waiting = toolUses
    .filter((use) => !answered.has(use.id))
    .map((use) => {
      const policy = crashPolicyOf(use.name);
      return `${use.name} (${use.id}${policy === undefined ? "" : `, on_crash: ${policy}`})`;
    });
  return `${counted(toolUses.length, "tool call")}, ${answered.size} answered; unanswered: ${waiting.join(", ")}`;
}
