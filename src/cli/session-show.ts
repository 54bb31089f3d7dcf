// `fisk-ai session show ID`: what a session is, and with --transcript what was said.
import { providerOf } from "../agent/fingerprint.js";
import type { CompactionState, RunState } from "../runstate/fold.js";
import { isOtherBlock, type ApprovalDecisionPayload, type ApprovalRequestPayload, type Message, type ToolResultBlock } from "../runstate/records.js";
import type { Store } from "../runstate/store.js";
import type { CrashPolicy } from "../tools/tool.js";
import { compactionLine } from "./compaction-text.js";
import { describeOtherBlock, toolResultText } from "./render-blocks.js";
import { ledgerOf } from "../ledger/ledger.js";
import type { PriceTable } from "../ledger/prices.js";
import { stateJson } from "./session-json.js";
import { digestFor, ledgerJson, ledgerLines } from "./session-ledger.js";
import { ageText, statusText, timeText } from "./session-list.js";

const FOLDED_RESULT_LINES = 4;

/** A configured tool's `on_crash` policy; undefined when the tool (or the config) is not known. */
export type CrashPolicyOf = (toolName: string) => CrashPolicy | undefined;

export async function showSession(
  store: Store,
  runId: string,
  options: { json: boolean; transcript: boolean; full: boolean },
  out: NodeJS.WritableStream,
  crashPolicyOf: CrashPolicyOf = () => undefined,
  prices: PriceTable = {},
): Promise<void> {
  const state = await store.load(runId);
  const summary = await store.summarize(runId);
  if (options.json) {
    out.write(`${JSON.stringify({ ...stateJson(state, summary), ledger: await ledgerJson(store, summary, prices) }, null, 2)}\n`);
    return;
  }
  const { counters, meta } = state;
  const fields: [string, string][] = [
    ["session", runId],
    ["status", statusText(summary) + (state.terminal?.message === undefined ? "" : ` (${state.terminal.message})`)],
    ["provider", providerOf(meta.fingerprint)],
    ["model", meta.fingerprint.model],
    ["created", timeText(meta.created)],
    ["updated", timeText(summary.updated)],
    ["next iteration", String(state.nextIteration)],
    ["model calls", String(counters.modelCalls)],
    ["tool calls", `${counters.toolCalls}${counters.remoteToolCalls > 0 ? ` (${counters.remoteToolCalls} remote)` : ""}`],
    [
      "tokens",
      `in ${counters.inTokens}, out ${counters.outTokens}, cache read ${counters.cacheReadTokens}, cache create ${counters.cacheCreateTokens}`,
    ],
  ];
  const digest = await digestFor(store, summary);
  fields.push(...ledgerLines(ledgerOf([digest], prices), digest));
  if (state.compactions.length > 0) {
    fields.push(["summarizing calls", `${counters.compactionCalls}: tokens in ${counters.compactionInTokens}, out ${counters.compactionOutTokens} (apart from the model calls above)`]);
    for (const entry of state.compactions) fields.push(["compaction", compactedText(entry)]);
  }
  if (state.pending !== undefined) {
    const { toolUses, answered } = state.pending;
    const waiting = toolUses
      .filter((use) => !answered.has(use.id))
      .map((use) => {
        const policy = crashPolicyOf(use.name);
        return `${use.name} (${use.id}${policy === undefined ? "" : `, on_crash: ${policy}`})`;
      });
    fields.push(["pending", `${toolUses.length} tool calls, ${answered.size} answered; unanswered: ${waiting.join(", ")}`]);
    for (const { request } of state.pending.approvals.values()) fields.push(["approval", approvalLine(request, state.pending.decisions.get(request.tool_use_id)?.decision)]);
  }
  if (state.title !== undefined) fields.push(["title", state.title]);
  fields.push(["prompt", meta.prompt]);
  const width = Math.max(...fields.map(([name]) => name.length));
  for (const [name, value] of fields) out.write(`${name.padEnd(width)}  ${value}\n`);
  if (options.transcript) {
    out.write("\n");
    writeTranscript(state, options.full, out);
  }
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

/** The whole history, compacted or not, with each compaction marked where its cut falls. */
function writeTranscript(state: RunState, full: boolean, out: NodeJS.WritableStream): void {
  const names = new Map<string, string>();
  const messages: readonly Message[] = state.pending === undefined ? state.history : [...state.history, state.pending.turn.message];
  for (const [index, message] of messages.entries()) {
    for (const entry of state.compactions.filter((candidate) => candidate.historyIndex === index)) writeMarker(entry, out);
    for (const block of message.content) {
      if (isOtherBlock(block)) {
        out.write(`${describeOtherBlock(block)}\n`);
        continue;
      }
      switch (block.type) {
        case "text":
          out.write(message.role === "user" ? `› ${block.text}\n` : `${block.text}\n`);
          break;
        case "thinking":
          out.write(`(thinking) ${block.thinking}\n`);
          break;
        case "redacted_thinking":
          out.write("(thinking, redacted)\n");
          break;
        case "tool_use":
          names.set(block.id, block.name);
          out.write(`→ ${block.name} ${JSON.stringify(block.input)}\n`);
          break;
        case "server_tool_use":
          out.write(`→ (server) ${block.name} ${JSON.stringify(block.input)}\n`);
          break;
        case "tool_result":
          out.write(`← ${names.get(block.tool_use_id) ?? "tool"}${block.is_error === true ? " (error)" : ""}: ${shownResult(block, full)}\n`);
          break;
        case "image":
          out.write("[image]\n");
          break;
      }
    }
  }
  for (const result of state.pending?.results ?? []) {
    out.write(`← ${names.get(result.tool_use_id) ?? "tool"}: ${shownResult(result, full)}\n`);
  }
}

function writeMarker(entry: CompactionState, out: NodeJS.WritableStream): void {
  out.write(`── ${compactedText(entry)} ──\n`);
  const { summary, trimmed } = entry.compaction;
  if (summary !== "") out.write(`${entry.undoneAt === undefined ? "the model is sent this summary in place of what is above:" : "the summary that stood for what is above:"}\n  ${summary.split("\n").join("\n  ")}\n`);
  for (const trim of trimmed ?? []) out.write(`  result of ${trim.tool_use_id}: ${trim.cut_chars} of ${trim.kept_chars + trim.cut_chars} characters cut\n`);
}

/** A result indented under its arrow; a long one folded to its first lines unless --full. */
function shownResult(result: ToolResultBlock, full: boolean): string {
  const lines = toolResultText(result).split("\n");
  if (full || lines.length <= FOLDED_RESULT_LINES) return lines.join("\n  ");
  return `${lines.slice(0, FOLDED_RESULT_LINES).join("\n  ")}\n  … ${lines.length - FOLDED_RESULT_LINES} more lines (--full shows them)`;
}
