// What Ctrl-C and SIGTERM do to a `fisk-ai run`: the first suspends the run at its next
// step; a second, or the first when nothing is checkpointed, aborts at once as a crash
// does; at a chat's prompt one ends the chat as /exit does.
import { EXIT } from "../exit-codes.js";
import { resumeCommand, type ResumeWhere } from "../context/resume-hint.js";

export class RunSignals {
  readonly abort = new AbortController();
  /** Aborted by the first signal: the run suspends at its next step. */
  readonly suspend = new AbortController();
  /**
   * Set once the outcome is known: a Ctrl-C after that finds nothing to stop and must not
   * turn the outcome's exit code into 130, so the handlers stay until the process is gone.
   */
  finishedWith: number | undefined;
  /** The session being run, for the second Ctrl-C's resume hint. */
  currentRunId: string | undefined;
  /** Set while a chat waits at its prompt. */
  atPrompt: (() => void) | undefined;

  /** Handles both signals from now on. `checkpoint`: the run is journaled, so it can be suspended. */
  constructor(
    private readonly checkpoint: boolean,
    private readonly where: ResumeWhere,
    private readonly io: { stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv },
  ) {
    process.on("SIGINT", this.onSignal);
    process.on("SIGTERM", this.onSignal);
  }

  /** Stops handling the signals, unless the outcome is known. */
  release(): void {
    if (this.finishedWith !== undefined) return;
    process.off("SIGINT", this.onSignal);
    process.off("SIGTERM", this.onSignal);
  }

  private readonly onSignal = (): void => {
    if (this.finishedWith !== undefined) process.exit(this.finishedWith);
    if (this.atPrompt !== undefined) {
      this.atPrompt();
      return;
    }
    const { io } = this;
    if (!this.checkpoint || this.suspend.signal.aborted) {
      // Crash semantics: stop tools at once, write nothing more.
      this.abort.abort(new Error("interrupted"));
      io.stderr.write(
        this.currentRunId === undefined || !this.checkpoint
          ? "\nfisk-ai: interrupted\n"
          : `\nfisk-ai: interrupted; session ${this.currentRunId} was left open as a crash leaves it, resume it with: ${resumeCommand(this.currentRunId, this.where, io.env)}\n`,
      );
      process.exit(EXIT.interrupted);
    }
    this.suspend.abort();
    io.stderr.write("\nfisk-ai: suspending at the next step (Ctrl-C again aborts at once)\n");
  };
}
