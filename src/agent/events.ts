// What the loop reports while it runs. The loop never prints: the CLI renders these
// (narration and traces to stderr), a library user may render them any way it likes.
import type { ModelCallError } from "../llm/model-provider.js";
import type { Counters } from "../runstate/fold.js";
import type { AssistantPayload, Message, TerminalReason, ToolResultBlock, ToolUseBlock } from "../runstate/records.js";

export interface RunOutcome {
  runId: string;
  reason: TerminalReason;
  /** The final answer's text, for `completed`. */
  answer?: string;
  /** Why the run stopped, for the other reasons. */
  message?: string;
  /** Whether the run was journaled (and can be resumed). */
  checkpointed: boolean;
  /** Model calls, tool calls and tokens over the whole run, resumes included. */
  counters: Counters;
}

export interface AgentEvents {
  runStarted?(info: { runId: string; resumed: boolean; checkpointed: boolean }): void;
  /** On resume: the conversation so far, before anything new happens. */
  replay?(messages: readonly Message[]): void;
  modelCallStarted?(iteration: number): void;
  modelCallRetrying?(attempt: number, delayMs: number, error: ModelCallError): void;
  /** The model's text as it streams, before its turn is journaled; a retried call streams again from the start. */
  textDelta?(text: string): void;
  /** A model turn, once it is journaled. */
  assistantTurn?(turn: AssistantPayload): void;
  toolStarted?(use: ToolUseBlock): void;
  /** A tool's result, once it is journaled; `reused` when a resume took it from the journal. */
  toolFinished?(use: ToolUseBlock, result: ToolResultBlock, reused: boolean): void;
  /** A final answer's text, once its turn is journaled; in a chat, one for each prompt. */
  answer?(text: string): void;
  /** On resume, before the pending batch is completed: the calls run again and those that are not (their tools' on_crash). */
  pendingBatch?(batch: { rerun: readonly ToolUseBlock[]; interrupted: readonly ToolUseBlock[] }): void;
  runFinished?(outcome: RunOutcome): void;
}
