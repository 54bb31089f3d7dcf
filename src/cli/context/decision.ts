// What `session approve`, `deny` and `answer` share around the library call that decides:
// the store and the options it is called with (each decision printed as it is journaled),
// then what goes on: the calls that still wait, the spans of the waits it ended when tracing
// is on, and the resume, when asked to.
import type { DecideOptions, DecisionResult } from "../../session/decide-calls.js";
import type { Store } from "../../runstate/store/store.js";
import { EXIT } from "../exit-codes.js";
import { commandLine, traceAgain } from "./resume-hint.js";
import { storeWhere, tracingEnvironment, type SessionContext } from "./session-context.js";
import { decidedLine, stillWaitingLine } from "../text/decisions.js";
import { keyCreatedLine } from "../text/signing-key.js";

type DecisionContext = SessionContext<{ resume: { flag: "--resume"; help: string } }>;

/** A decision about to be made: the session's store, and the options to decide with. */
export interface Deciding {
  store: Store;
  options: DecideOptions;
  tracingEnv: NodeJS.ProcessEnv | undefined;
}

/** Opens the session's backend to decide on `runId`; a telemetry block that cannot be used refuses the command first. */
export async function deciding({ values, io, sessionBackend }: DecisionContext, runId: string): Promise<Deciding> {
  const tracingEnv = await tracingEnvironment(values, io.env);
  const { store, queue } = await sessionBackend(values);
  const options: DecideOptions = {
    ...(queue === undefined ? {} : { queue }),
    env: io.env,
    onKeyCreated: (path: string) => io.stderr.write(`${keyCreatedLine(path)}\n`),
    onDecided: (decisions) => {
      for (const decision of decisions) io.stdout.write(`${decidedLine(decision, runId)}\n`);
      // A test's hook between the decisions and the terminal record.
      io.decisionsJournaled?.();
    },
  };
  return { store, options, tracingEnv };
}

/** Says what still waits (or how the session goes on), sends the spans of the waits ended, and resumes with --resume. */
export async function afterDecision(context: DecisionContext, { store, tracingEnv }: Deciding, result: DecisionResult): Promise<number> {
  const { values, io } = context;
  const resuming = values.resume === true;
  const hint = commandLine(["run", "--resume", result.runId], storeWhere(values), io.env);
  const waiting = stillWaitingLine(result, resuming ? undefined : hint);
  if (waiting !== undefined) io.stdout.write(`${waiting}\n`);
  if (tracingEnv !== undefined) {
    const { sendDecisionSpans } = await import("../../telemetry/traced-run.js");
    const ids = result.decided.map((decision) => decision.tool_use_id);
    const notSent = await sendDecisionSpans(store, result.runId, ids, tracingEnv);
    if (notSent !== undefined)
      io.stderr.write(`fisk-ai: the decision's traces were not sent: ${notSent}; ${traceAgain(result.runId, storeWhere(values), io.env)}\n`);
  }
  if (!resuming) return EXIT.completed;
  const { runCommand } = await import("../run/run-command.js");
  return runCommand([], { resume: result.runId, config: values.config, stateDir: values.stateDir, store: values.store }, io);
}
