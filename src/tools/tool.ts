// A tool the model can call. The loop sees only this interface: command tools from the
// config, function tools from library users, and later MCP tools all implement it.
import * as z from "zod";
import type { ToolSpec } from "../llm/model-provider.js";
import type { ImageBlock, JournalRecord, TextBlock, ToolResultBlock } from "../runstate/records/records.js";
import type { Store } from "../runstate/store/store.js";

/** What a tool call returns: the content of the tool_result block the model gets. */
export interface ToolOutput {
  /** Text, or text and images (an MCP tool's screenshot). */
  content: string | (TextBlock | ImageBlock)[];
  /** `true` tells the model the call failed; absent or `false`, it succeeded. */
  is_error?: boolean;
}

/** What a running tool call is given besides its input. */
export interface ToolContext {
  /** Aborted when the run is torn down; a tool should stop promptly. */
  signal: AbortSignal;
  /** Variables for the processes the call starts, over their own environment: the call's trace context (TRACEPARENT) when the run is traced. */
  env?: Readonly<Record<string, string>> | undefined;
  /** The directory the call's processes run in (a pooled run's: where it was submitted); the process's own when absent. */
  cwd?: string | undefined;
  /** The run making the call: what a tool that starts a child session needs (agentTool). */
  run?: CallingRun | undefined;
}

/** The run a call is made in, as a tool that runs a child session sees it. */
export interface CallingRun {
  /** The calling session's id. */
  runId: string;
  /** The call's id (its `tool_use` block's). */
  toolUseId: string;
  /** How deep the calling session is: 0 for a top-level session, 1 for its child, ... */
  depth: number;
  /** The store the calling session is journaled in; undefined for a run in memory. */
  store?: Store | undefined;
  /** The calling session's tenant, which a child session inherits; absent for the default tenant. */
  tenant?: string | undefined;
  /** Aborted when a suspend is asked for: a child suspends at its next step, as the caller does. */
  suspend?: AbortSignal | undefined;
  /** Who decides the calls of the caller, so a child asks the same people (or parks as the caller would). */
  deciders: CallDeciders;
  /** The caller's token budget, which a child's tokens count against too. */
  budget?: TreeBudget | undefined;
  /** The deepest a session of the caller's tree may be, as the run the tree started from allows; absent in a top-level run. */
  maxDepth?: number | undefined;
  /**
   * Told of each child session the call starts or resumes, before it runs: answers what that
   * run is given besides its own options (the agent layer's ChildRunHooks: a traced run's
   * tracer, continued into the child). Absent when the caller's run gives its children nothing.
   */
  childRuns?: ((child: ChildRunStart) => unknown) | undefined;
}

/** A child session about to run, as the run whose call starts it is told. */
export interface ChildRunStart {
  /** The child session's id. */
  runId: string;
  /** The calling session: the child's parent. */
  parentRunId: string;
  /** The call of the calling session that starts the child. */
  callId: string;
  /** The child's provider: `anthropic`, `openai`, `script`. */
  provider: string;
  /** The child's model. */
  model: string;
  /** The child's records so far: empty for a new child, its journal for one resumed. */
  records: readonly JournalRecord[];
}

/** A session's token budget as the sessions below it see it: a parent's max_tokens bounds its whole tree. */
export interface TreeBudget {
  /** Counts tokens a session below journaled against this session's budget and those of the sessions above it. */
  spent(tokens: number): void;
  /** Why a session below must stop: this session's budget, or one above it, is used up; undefined while it may go on. */
  exhausted(): string | undefined;
}

/** The callbacks a run asks people through; each absent one means no one is there to ask. */
export interface CallDeciders {
  /** Asked whether a `confirm: true` call may run. */
  confirm?: ((tool: Tool, input: Record<string, unknown>) => Promise<boolean>) | undefined;
  /** Asked an ask_user question. */
  askUser?: ((question: string) => Promise<string>) | undefined;
  /** Asked whether an `on_crash: ask` call cut short by a crash runs again. */
  askRerun?: ((tool: Tool, input: Record<string, unknown>) => Promise<boolean>) | undefined;
  /** Who they speak for, journaled with their decisions. */
  decidedBy?: string | undefined;
}

/** Why a call has no answer yet: the child session it ran was suspended, or waits for a decision. */
export type HeldReason = "suspended" | "awaiting_approval";

/**
 * Thrown by a tool whose call cannot be answered yet (a child session that suspended or
 * parked). The loop journals no result for it, and stops the run the same way once the
 * batch's other calls are done, so the call is still unanswered when the run is resumed
 * and runs again, taking the child up where it stopped. `waiting` are the calls the child
 * waits on (WaitingCall, which lives in the agent layer above this one).
 */
export class CallHeld extends Error {
  constructor(
    readonly reason: HeldReason,
    readonly waiting: readonly object[] = [],
  ) {
    super(reason === "suspended" ? "the call's child session was suspended" : "the call's child session waits for a decision");
    this.name = "CallHeld";
  }
}

/**
 * What a resume does with a call that may have been running when the run stopped (a
 * crash, a kill, a second Ctrl-C): run it again, ask the operator, or never run it again
 * and tell the model its effect is unknown. For tools whose side effect must not repeat.
 */
export const CRASH_POLICIES = ["rerun", "ask", "never"] as const;
/**
 * One of CRASH_POLICIES. `rerun` (the default) runs the call again; `ask` asks the operator
 * (runAgent's `askRerun`), and a no, or no one to ask, is treated as `never`; `never` answers
 * the model with an is_error result saying the call may have run and its effect is unknown.
 */
export type CrashPolicy = (typeof CRASH_POLICIES)[number];

/** Decides, from a call's input, whether it may run; a refused call gets an is_error result. */
export type ConfirmCall<Input> = (input: Input) => boolean | Promise<boolean>;

/**
 * A tool the model can call, as the loop sees it: its spec and its handler. Make one with
 * defineTool; MCP servers' tools come from connectMcpServers in `fisk-ai/mcp`, and the
 * memory tools from memoryTools.
 */
export interface Tool extends ToolSpec {
  /**
   * `true`: ask the operator (the run's `confirm` callback) before each call; denied where
   * there is no one to ask. A function decides itself.
   */
  confirm: boolean | ConfirmCall<Record<string, unknown>>;
  /** Absent: rerun, the default. */
  onCrash?: CrashPolicy;
  /** The MCP server that runs this tool: its calls are remote, and its tools are fingerprinted per server. */
  mcpServer?: string;
  /**
   * `true` for a question to the operator (the built-in askUserTool): a call is not run but
   * answered, on a terminal (runAgent's `askUser`) or, parked, by `answer` later.
   */
  asksOperator?: boolean;
  /**
   * Runs one call with the model's input. A rejection is not a failed run: the model gets
   * an is_error result `<name> failed: <message>`.
   */
  run(input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput>;
}

/** A JSON Schema object, as the model APIs take it. */
export type JsonSchema = Record<string, unknown>;

/**
 * What defineTool takes, besides `input` (a zod schema or a JSON Schema). `Input` is the
 * type of the input the handler gets.
 */
export interface ToolDefinition<Input> {
  /** The name the model calls the tool by: unique among a run's tools (runAgent rejects with a ConfigError otherwise). */
  name: string;
  /** What the tool does, for the model. */
  description: string;
  /**
   * `true`: ask the run's `confirm` callback before each call (denied without one); a
   * function decides from the input. A denied call gets an is_error result. Default `false`.
   */
  confirm?: boolean | ConfirmCall<Input>;
  /** What a resume does with a call a crash may have cut short; default `rerun`. */
  onCrash?: CrashPolicy;
  /**
   * The handler. A string is the result's text; a ToolOutput can carry images or
   * `is_error`. A throw becomes an is_error result `<name> failed: <message>`.
   */
  run(input: Input, context: ToolContext): Promise<ToolOutput | string> | ToolOutput | string;
}

/**
 * A tool defined in code. With a zod schema as `input` the model's input is validated
 * (a mismatch goes back to the model as an error, the handler never sees it) and typed;
 * with a JSON Schema it is passed as the model sent it, typed as `Input`.
 */
export function defineTool<Schema extends z.ZodType<Record<string, unknown>>>(definition: ToolDefinition<z.output<Schema>> & { input: Schema }): Tool;
export function defineTool<Input extends Record<string, unknown> = Record<string, unknown>>(definition: ToolDefinition<Input> & { input: JsonSchema }): Tool;
export function defineTool(definition: ToolDefinition<Record<string, unknown>> & { input: JsonSchema | z.ZodType<Record<string, unknown>> }): Tool {
  const schema = isZodSchema(definition.input) ? definition.input : undefined;
  const parse = (input: Record<string, unknown>): { input: Record<string, unknown> } | { problem: string } => {
    if (schema === undefined) return { input };
    const parsed = schema.safeParse(input);
    return parsed.success
      ? { input: parsed.data }
      : { problem: parsed.error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join("; ") };
  };
  const confirm = definition.confirm ?? false;
  return {
    name: definition.name,
    description: definition.description,
    input_schema: schema === undefined ? (definition.input as JsonSchema) : jsonSchemaOf(schema),
    // A refused parse is not asked about: the call fails in run() with the reason.
    confirm:
      typeof confirm === "function"
        ? async (input) => {
            const checked = parse(input);
            return "problem" in checked || (await confirm(checked.input));
          }
        : confirm,
    onCrash: definition.onCrash ?? "rerun",
    run: async (input, context) => {
      const checked = parse(input);
      if ("problem" in checked) return { content: `invalid input for ${definition.name}: ${checked.problem}`, is_error: true };
      const output = await definition.run(checked.input, context);
      return typeof output === "string" ? { content: output } : output;
    },
  };
}

function isZodSchema(value: unknown): value is z.ZodType<Record<string, unknown>> {
  return value instanceof z.ZodType;
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  // The APIs want the schema of what the model writes; `$schema` is noise to them.
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input" }) as JsonSchema;
  return json;
}

export function toolResultBlock(toolUseId: string, output: ToolOutput): ToolResultBlock {
  return output.is_error === true
    ? { type: "tool_result", tool_use_id: toolUseId, content: output.content, is_error: true }
    : { type: "tool_result", tool_use_id: toolUseId, content: output.content };
}
