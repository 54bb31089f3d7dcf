// What a command reads and writes: the process's streams and environment, or a test's.
import type { AgentEvents } from "../../agent/events.js";
import type { MoveStep } from "../../session/move-session.js";

export interface CommandIO {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  /**
   * For tests only, never set by the shipped CLI: wraps the events of each run `run`
   * starts, so a test entry can act at an exact step (kill the process there).
   */
  wrapRunEvents?: ((events: AgentEvents) => AgentEvents) | undefined;
  /** For tests only, like wrapRunEvents: called once a decision command's decisions are durable, before its terminal record. */
  decisionsJournaled?: (() => void) | undefined;
  /** For tests only, like wrapRunEvents: called after each durable step of `session mv`. */
  moveStep?: ((step: MoveStep) => void) | undefined;
}
