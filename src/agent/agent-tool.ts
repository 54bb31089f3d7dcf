// A tool that is another agent (docs/sub-agents.md). Each call runs a child session in the
// caller's store, its meta naming the caller and the call, under an id derived from both:
// whatever resumes the caller runs the call again and so finds the same child, and takes it
// up where its journal ends instead of starting it over. A child that suspends or parks
// holds the call unanswered (CallHeld), so the caller stops the same way.
import * as z from "zod";
import { RunStateError } from "../runstate/errors.js";
import type { RunState } from "../runstate/views/fold.js";
import { childRunId } from "../runstate/records/run-id.js";
import type { RunStatus, Store } from "../runstate/store/store.js";
import type { JournalRecord } from "../runstate/records/records.js";
import { recordsOf } from "../runstate/store/records-of.js";
import { CallHeld, defineTool, type CallingRun, type Tool, type ToolContext, type ToolOutput } from "../tools/tool.js";
import { answerText } from "./agent-loop.js";
import { AGENT_DEFAULTS } from "./defaults.js";
import { bothEvents, type ChildRunHooks, type RunOutcome } from "./events.js";
import { runAgent, type RunAgentOptions } from "./run-agent.js";
import type { WaitingCall } from "./waiting-calls.js";

/** How deep children may nest when the definition does not say: a child is 1, its child 2, ... */
export const DEFAULT_MAX_DEPTH = AGENT_DEFAULTS.maxDepth;

/** What a child agent is run with: runAgent's options but those the call and the calling run give. */
export type ChildAgentOptions = Omit<
  RunAgentOptions,
  | "prompt"
  | "title"
  | "store"
  | "runId"
  | "resume"
  | "force"
  | "followUp"
  | "nextPrompt"
  | "parent"
  | "tenant"
  | "recordVersion"
  | "suspendSignal"
  | "abortSignal"
  | "confirm"
  | "askUser"
  | "askRerun"
  | "decidedBy"
  | "movedHeld"
  | "parentBudget"
  | "treeMaxDepth"
>;

/** A child agent made for one call, closed after it (loadAgent's, whose MCP servers it stops). */
export interface ChildAgent {
  /** What the child runs with (loadAgent's AgentSpec). */
  spec: ChildAgentOptions;
  /** Called once the call is over (loadAgent's stops its MCP servers). */
  close?(): Promise<void>;
}

/** What agentTool takes. */
export interface AgentToolDefinition {
  /** The name the model calls the child by. */
  name: string;
  /** What the child does, for the model. */
  description: string;
  /** The child: its options, or a function that makes it for each call (and is closed after it). */
  agent: ChildAgentOptions | (() => Promise<ChildAgent>);
  /**
   * The deepest a child of this tool may be (the caller's depth plus one); a call past it is an
   * error result, not a run. Default DEFAULT_MAX_DEPTH. Within a child session the limit of
   * the tree's top run holds too: a child's own agent tools may lower it, never raise it.
   */
  maxDepth?: number;
}

const Input = z.strictObject({
  prompt: z.string().min(1).describe("What the sub-agent should do: it sees only this, not your conversation."),
  title: z.string().min(1).max(200).optional().describe("A short title for the sub-agent's session."),
});

/** The terminal reasons after which a child is over: its call is answered from its journal, never run again. */
const OVER: readonly string[] = ["completed", "error", "budget", "max_iterations"];

/**
 * A tool whose calls run another agent as a child session. The model calls it with
 * `{"prompt": "..."}` (and an optional `title`) and gets the child's final answer, or an
 * is_error result saying how the child ended otherwise.
 */
export function agentTool(definition: AgentToolDefinition): Tool {
  const maxDepth = definition.maxDepth ?? DEFAULT_MAX_DEPTH;
  return defineTool({
    name: definition.name,
    description: definition.description,
    input: Input,
    // Running the call again resumes the child where its journal ends: never a second child.
    onCrash: "rerun",
    run: async (input, context) => {
      const depth = (context.run?.depth ?? 0) + 1;
      const limit = Math.min(maxDepth, context.run?.maxDepth ?? maxDepth);
      if (depth > limit) {
        return {
          content: `${definition.name} was not run: its session would be ${depth} deep, past the limit of ${limit} (max_depth); do the work yourself or with fewer levels of sub-agents`,
          is_error: true,
        };
      }
      const child = typeof definition.agent === "function" ? await definition.agent() : { spec: definition.agent };
      try {
        return await callChild(definition.name, child.spec, { ...input, depth, limit }, context);
      } finally {
        await child.close?.();
      }
    },
  });
}

interface ChildCall {
  prompt: string;
  title?: string | undefined;
  depth: number;
  /** The deepest a session below the child may be. */
  limit: number;
}

async function callChild(name: string, options: ChildAgentOptions, call: ChildCall, context: ToolContext): Promise<ToolOutput> {
  const caller = context.run;
  const base: RunAgentOptions = {
    ...options,
    suspendSignal: caller?.suspend,
    abortSignal: context.signal,
    ...caller?.deciders,
    parentBudget: caller?.budget,
    treeMaxDepth: call.limit,
  };
  const { title } = call;
  if (caller === undefined) return answerOf(name, await runAgent({ ...base, prompt: call.prompt, title }), caller);
  const runId = childRunId(caller.runId, caller.toolUseId);
  if (caller.store === undefined) return answerOf(name, await runAgent({ ...hooked(base, caller, runId, []), runId, prompt: call.prompt, title }), caller);
  // Its status from the journal's ends: the child's journal is folded once, by whichever of
  // the two below reads it.
  const before = await statusIfAny(caller.store, runId);
  if (before === undefined) {
    const parent = { run_id: caller.runId, call_id: caller.toolUseId, depth: call.depth };
    const start = { ...hooked(base, caller, runId, []), store: caller.store, prompt: call.prompt, runId, parent, tenant: caller.tenant, title };
    return answerOf(name, await runAgent(start), caller);
  }
  // A child that ended before the caller journaled its answer (a crash in between): its journal answers.
  if (OVER.includes(before)) return endedAnswer(name, await caller.store.load(runId));
  // The caller's hooks are given the child's records so far (a tracer sends a part its crash left unsent).
  const records = caller.childRuns === undefined ? [] : await recordsOf(caller.store, runId);
  return answerOf(name, await runAgent({ ...hooked(base, caller, runId, records), store: caller.store, resume: runId }), caller);
}

/** The child's options with what the caller's run gives it (childRuns: a tracer's events, call environment and its own childRuns). */
function hooked(base: RunAgentOptions, caller: CallingRun, runId: string, records: readonly JournalRecord[]): RunAgentOptions {
  const start = { runId, parentRunId: caller.runId, callId: caller.toolUseId, provider: base.provider.name, model: base.model, records };
  // The tools layer cannot name the agent layer's type: what a run's childRuns returns is a ChildRunHooks.
  const hooks = caller.childRuns?.(start) as ChildRunHooks | undefined;
  if (hooks === undefined) return base;
  const [own, given] = [base.callEnvironment, hooks.callEnvironment];
  return {
    ...base,
    events: hooks.events === undefined || base.events === undefined ? (hooks.events ?? base.events) : bothEvents(base.events, hooks.events),
    callEnvironment: given === undefined || own === undefined ? (given ?? own) : (id, use) => ({ ...own(id, use), ...given(id, use) }),
    childRuns: hooks.childRuns ?? base.childRuns,
  };
}

async function statusIfAny(store: Store, runId: string): Promise<RunStatus | undefined> {
  try {
    return (await store.summarize(runId, { digest: false })).status;
  } catch (error) {
    if (error instanceof RunStateError && error.code === "ERR_NOT_FOUND") return undefined;
    throw error;
  }
}

/** The call's answer from how the child's run ended; a suspend or a park holds the call instead. */
function answerOf(name: string, outcome: RunOutcome, caller: CallingRun | undefined): ToolOutput {
  if (outcome.reason === "completed") return { content: outcome.answer ?? "" };
  if (outcome.reason === "suspended") throw new CallHeld("suspended");
  if (outcome.reason === "awaiting_approval") {
    const waiting = (outcome.waiting ?? []).map(
      (waits): WaitingCall => ({ ...waits, path: [...(caller === undefined ? [] : [caller.runId]), ...(waits.path ?? [waits.runId])] }),
    );
    throw new CallHeld("awaiting_approval", waiting);
  }
  return stoppedResult(name, outcome.runId, outcome.reason, outcome.message);
}

/** The call's answer from the journal of a child that is over. */
function endedAnswer(name: string, state: RunState): ToolOutput {
  const terminal = state.terminal as NonNullable<RunState["terminal"]>;
  if (terminal.reason !== "completed") return stoppedResult(name, state.runId, terminal.reason, terminal.message);
  const last = state.messages.at(-1);
  return { content: last?.role === "assistant" ? answerText(last) : "" };
}

function stoppedResult(name: string, runId: string, reason: string, message: string | undefined): ToolOutput {
  return { content: `${name} stopped without an answer (${reason}${message === undefined ? "" : `: ${message}`}); its session is ${runId}`, is_error: true };
}
