// The library's entry point: one call runs an agent, starting a session or resuming one.
// It is the loop with defaults filled in, so a program needs to know no more than the
// model, the prompt and its tools, and the outcome says how the run ended.
import { ConfigError } from "./agent-errors.js";
import { resumeRun, startRun, type RunOptions } from "./agent-loop.js";
import { COMPACT, type RunContext } from "./run-context.js";
import { agentSpec, type AgentOptions } from "./agent-spec.js";
import type { RunOutcome } from "./events.js";
import type { ParentLink } from "../runstate/records/records.js";
import { installationKeys } from "../trust/installation-keys.js";

export { COMPACT };

/**
 * What runAgent runs: an agent (AgentOptions, or an AgentSpec such as loadAgent's), the
 * session (a new one's prompt, or the one to resume) and the run's context.
 */
export type RunAgentOptions = AgentOptions & RunSession & RunContext;

export type { RunContext };

/** Which session a run starts or takes up. */
export interface RunSession {
  /** What the agent should do: required for a new session, not given on resume. */
  prompt?: string | undefined;
  /** The id of a new run, its session id (default: a new KSUID). */
  runId?: string | undefined;
  /** A title for a new session, journaled after its meta record (a session's title is the latest given; titleSession gives one later). */
  title?: string | undefined;
  /**
   * Makes a new session a child of another (agentTool does): its meta names the parent
   * session, the call that started it and its depth, and is of CHILD_RECORD_VERSION.
   */
  parent?: ParentLink | undefined;
  /**
   * The tenant a shared service runs a new session for (docs/server.md#keys-and-tenants),
   * journaled and signed in its meta; its child sessions inherit it. Default: the default tenant.
   */
  tenant?: string | undefined;
  /** Recorded in a new session's meta: the absolute directory its tools run in, so a resume elsewhere can run them there. */
  cwd?: string | undefined;
  /** The id of a session in `store` to resume instead of starting one. */
  resume?: string | undefined;
  /** Resume even though the configuration changed (never across providers). */
  force?: boolean | undefined;
  /** With `resume`: a prompt that takes the session further, journaled as a `user` record (also after a completed run). */
  followUp?: string | undefined;
  /** For a session marked moved: whether the store it was moved to holds it (then the resume is refused as ERR_MOVED); without it, a moved session is refused. */
  movedHeld?: ((to: string) => Promise<boolean>) | undefined;
}

/** How the run ended, as the runFinished event reports it. A failed model call or an over-budget run is an outcome (reason `error`, `budget`), not a rejection. */
export type AgentOutcome = RunOutcome;

/**
 * Runs an agent until it answers or stops: a new session on `prompt`, or the session
 * `resume` names. Rejects with a RunStateError (with a `code`) when the store refuses,
 * a ResumeRefusedError when the session cannot be resumed, a ConfigError for options
 * that do not fit together.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentOutcome> {
  const run: RunOptions = {
    spec: agentSpec(options),
    store: options.store,
    events: options.events,
    suspendSignal: options.suspendSignal,
    abortSignal: options.abortSignal,
    confirm: options.confirm,
    askUser: options.askUser,
    askRerun: options.askRerun,
    decidedBy: options.decidedBy,
    nextPrompt: options.nextPrompt,
    callEnvironment: options.callEnvironment,
    childRuns: options.childRuns,
    toolCwd: options.toolCwd,
    parentBudget: options.parentBudget,
    treeMaxDepth: options.treeMaxDepth,
    keys: installationKeys(options.store, { keyring: options.keyring, onKeyCreated: options.events?.signingKeyCreated }),
  };
  if (options.resume !== undefined) {
    if (options.store === undefined) throw new ConfigError("resume needs the store the session is in: pass store");
    if (options.prompt !== undefined) throw new ConfigError("a resumed session continues its own conversation: pass no prompt (a followUp takes it further)");
    return resumeRun(
      { ...run, store: options.store },
      { runId: options.resume, force: options.force === true, followUp: options.followUp, movedHeld: options.movedHeld },
    );
  }
  if (options.prompt === undefined || options.prompt.trim() === "") throw new ConfigError("prompt is empty: say what the agent should do");
  if (options.followUp !== undefined) throw new ConfigError("followUp takes a resumed session further: pass it with resume");
  return startRun(run, {
    prompt: options.prompt,
    runId: options.runId,
    title: options.title,
    interactive: options.nextPrompt !== undefined,
    cwd: options.cwd,
    parent: options.parent,
    tenant: options.tenant,
  });
}
