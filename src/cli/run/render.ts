// Renders the loop's events on stderr: narration, tool traces, progress and the resume
// replay. The final answer is not rendered here; it goes alone to stdout.
import * as colors from "yoctocolors";
import { CHAT_ENDED, type AgentEvents, type RunOutcome } from "../../agent/events.js";
import { compactionLine } from "../text/compaction.js";
import { counted } from "../../transcript/counted.js";
import type { ContentBlockLike } from "../../transcript/render-blocks.js";
import { describeOtherBlock, describeToolResult, describeToolUse } from "../../transcript/render-blocks.js";
import { isOtherBlock, type Message, type ToolUseBlock } from "../../runstate/records/records.js";
import { questionOf } from "../../tools/ask-user.js";
import { keyCreatedLine } from "../text/signing-key.js";

export interface Style {
  dim(text: string): string;
  bold(text: string): string;
  red(text: string): string;
}

const plain: Style = { dim: (text) => text, bold: (text) => text, red: (text) => text };

/**
 * Colors on a terminal, or anywhere under FORCE_COLOR (other than 0); never under NO_COLOR
 * (no-color.org) or TERM=dumb, which yoctocolors also reads from the environment.
 */
export function styleFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Style {
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0";
  const refused = (env.NO_COLOR ?? "") !== "" || env.TERM === "dumb" || env.FORCE_COLOR === "0";
  return !refused && (forced || stream.isTTY === true) ? { dim: colors.dim, bold: colors.bold, red: colors.red } : plain;
}

/**
 * `command` gives a fisk-ai command line with the options that find this store, as it can
 * be pasted: the one that resumes a session, those that decide its waiting calls. With
 * `textStreamed`, the model's text has been shown as it arrived, and turns narrate the rest.
 */
export function stderrRenderer(stderr: NodeJS.WritableStream, style: Style, command: (args: readonly string[]) => string, textStreamed = false): AgentEvents {
  const say: Say = (line) => stderr.write(`${line}\n`);
  // Calls refused in this process: their results read "refused", and the end names them.
  const refused: string[] = [];
  const refusedIds = new Set<string>();
  return {
    runStarted: ({ runId, resumed, checkpointed }) => {
      if (checkpointed) say(style.dim(`${resumed ? "resuming" : "session"} ${runId}`));
    },
    replay: (messages: readonly Message[]) => replayConversation(say, style, messages),
    pendingBatch: ({ rerun, interrupted }) => {
      const calls = (uses: readonly ToolUseBlock[]) => uses.map((use) => `${use.name} (${use.id})`).join(", ");
      if (rerun.length > 0) say(style.bold(`completing the pending batch: running ${calls(rerun)}, whose results never reached the journal`));
      if (interrupted.length > 0) say(style.bold(`not running again (on_crash): ${calls(interrupted)}; the model is told their effect is unknown`));
    },
    modelCallRetrying: (attempt, delayMs, error) => {
      say(style.dim(`model call failed (${error.message}); retry ${attempt} in ${(delayMs / 1000).toFixed(1)}s`));
    },
    assistantTurn: (turn) => {
      const hasTools = turn.message.content.some((block) => block.type === "tool_use");
      // The final answer's text goes to stdout; only narration between tool calls here.
      const shown = hasTools ? turn.message.content : turn.message.content.filter((block) => block.type === "thinking");
      narrate(say, style, textStreamed ? shown.filter((block) => block.type !== "text") : shown, new Map());
    },
    signingKeyCreated: (path) => say(keyCreatedLine(path).replace(/^fisk-ai: /, "")),
    callRefused: (use) => {
      refused.push(use.name);
      refusedIds.add(use.id);
    },
    toolFinished: (use, result, reused) => {
      say(renderResult(style, use.name, result, reused, refusedIds.has(use.id)));
    },
    compactionStarted: ({ trigger, tokensBefore }) =>
      say(style.dim(`compacting the conversation (${trigger}, about ${tokensBefore} tokens): asking the model for a summary`)),
    compaction: ({ seq, compaction }) => say(style.dim(compactionLine(seq, compaction))),
    compactionRefused: (error) => say(style.dim(`no compaction: ${error.message}`)),
    runFinished: (outcome) => {
      for (const line of endLines(outcome, refused, style, command)) say(line);
    },
  };
}

type Say = (line: string) => void;

/** Says each block of a turn: its text, thinking, tool calls and results; `toolNames` learns each call's name for its result. */
function narrate(say: Say, style: Style, blocks: readonly ContentBlockLike[], toolNames: Map<string, string>): void {
  for (const block of blocks) {
    if (isOtherBlock(block)) say(style.dim(describeOtherBlock(block)));
    else if (block.type === "text" && block.text.trim() !== "") say(block.text.trimEnd());
    else if (block.type === "thinking") say(style.dim(`(thinking) ${firstLine(block.thinking)}`));
    else if (block.type === "tool_use") {
      toolNames.set(block.id, block.name);
      say(style.dim(`→ ${describeToolUse(block as ToolUseBlock)}`));
    } else if (block.type === "tool_result") {
      say(renderResult(style, toolNames.get(block.tool_use_id) ?? "tool", block));
    }
  }
}

/** A resumed session's conversation so far: the user's prompts, then what the model said and did. */
function replayConversation(say: Say, style: Style, messages: readonly Message[]): void {
  say(style.bold("── the conversation so far ──"));
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "user") {
      for (const block of message.content) if (block.type === "text") say(style.bold(`› ${block.text}`));
      narrate(
        say,
        style,
        message.content.filter((block) => block.type === "tool_result"),
        names,
      );
    } else {
      narrate(say, style, message.content, names);
    }
  }
  say(style.bold("── resuming ──"));
}

/** What is said when a run ends: the calls refused, then what waits, how to resume, or why it stopped. */
function endLines(outcome: RunOutcome, refused: readonly string[], style: Style, command: (args: readonly string[]) => string): string[] {
  const lines = refused.length > 0 ? [style.red(refusedLine(refused, outcome.checkpointed))] : [];
  if (outcome.reason === "awaiting_approval") {
    lines.push(...waitingLines(outcome, command));
  } else if (outcome.reason === "suspended" && outcome.checkpointed && outcome.message === CHAT_ENDED) {
    lines.push(`Chat ended; session ${outcome.runId} is saved, resume it with: ${resumeHint(outcome.runId, command)}`);
  } else if (outcome.reason === "suspended" && outcome.checkpointed) {
    lines.push(`Suspended session ${outcome.runId}; resume with: ${resumeHint(outcome.runId, command)}`);
  } else if (outcome.reason !== "completed") {
    const resume = outcome.checkpointed ? ` (session ${outcome.runId})` : "";
    lines.push(style.red(`fisk-ai: ${outcome.message ?? outcome.reason}${resume}${raiseHint(outcome, command)}`));
  }
  return lines;
}

/** A parked run: the calls that wait, and the commands that decide them and go on. */
function waitingLines({ runId, waiting = [] }: RunOutcome, command: (args: readonly string[]) => string): string[] {
  const calls = waiting.map(
    (call) => `  ${call.toolUseId}  ${call.kind === "question" ? `asks: ${questionOf(call.input)}` : `${call.name} ${JSON.stringify(call.input)}`}`,
  );
  const approvals = waiting.some((call) => call.kind === "approval");
  const questions = waiting.some((call) => call.kind === "question");
  return [
    `Session ${runId} waits for ${waiting.length === 1 ? "a decision on 1 call" : `decisions on ${waiting.length} calls`}:`,
    ...calls,
    "Decide with:",
    ...(approvals ? [`  ${command(["session", "approve", runId, "--resume"])}`] : []),
    `  ${command(["session", "deny", runId, "--reason", "TEXT"])}`,
    ...(questions ? [`  ${command(["session", "answer", runId, "TEXT"])}`] : []),
    `(name TOOL_USE_IDs after ${runId} to decide only some; without --resume, resume later with: ${resumeHint(runId, command)})`,
  ];
}

function resumeHint(runId: string, command: (args: readonly string[]) => string): string {
  return command(["run", "--resume", runId]);
}

/** For a run stopped by a limit: the config key that raises it, and how to go on. */
function raiseHint(outcome: RunOutcome, command: (args: readonly string[]) => string): string {
  const key = outcome.reason === "max_iterations" ? "budget.max_iterations" : outcome.reason === "budget" ? "budget.max_tokens" : undefined;
  if (key === undefined) return "";
  return outcome.checkpointed
    ? `: raise ${key} in agent.yaml, then resume with: ${resumeHint(outcome.runId, command)} --force`
    : `: raise ${key} in agent.yaml`;
}

/** The end of a run that went on without calls it was refused: so its answer does not read as if they had run. */
function refusedLine(names: readonly string[], checkpointed: boolean): string {
  const line = `${counted(names.length, "call")} refused (${names.join(", ")}): the run went on without ${names.length === 1 ? "it" : "them"}`;
  return checkpointed ? line : `${line}; with --checkpoint a call no one can be asked about waits for 'session approve' instead`;
}

function renderResult(style: Style, name: string, result: Parameters<typeof describeToolResult>[0], reused = false, refused = false): string {
  const outcome = refused ? " refused" : result.is_error === true ? " failed" : "";
  const line = `← ${name}${reused ? " (from the journal)" : ""}${outcome}: ${describeToolResult(result)}`;
  return result.is_error === true ? style.red(line) : style.dim(line);
}

function firstLine(text: string): string {
  const line = text.trim().split("\n")[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}
