// Spawns the real fisk-ai CLI (the built dist/cli/main.js) the way a user would, or, to
// crash it at an exact step, the test entry that runs the same code with a crash hook.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

export const CLI = new URL("../../../dist/cli/main.js", import.meta.url).pathname;
/** The same CLI with the crash hook of FISK_AI_TEST_CRASH_AT, which the shipped entry ignores. */
const CRASHING_CLI = new URL("./crashing-cli.js", import.meta.url).pathname;

export interface CliRun {
  child: ChildProcess;
  /** Resolves when the process exits, with everything it printed. */
  done: Promise<CliResult>;
  /** Resolves once stderr has contained `text`. */
  stderrIncludes(text: string): Promise<void>;
  /** Everything on stderr so far. */
  stderr(): string;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns the CLI; the test entry when the environment asks for a crash, so that the crash happens. */
export function startCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string | undefined }): CliRun {
  return startScript(options.env.FISK_AI_TEST_CRASH_AT === undefined ? CLI : CRASHING_CLI, args, options);
}

/** Spawns `node script ...args`: the CLI, or a program of a user's such as an example. */
export function startScript(script: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string | undefined }): CliRun {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of waiters.splice(0)) {
      if (stderr.includes(waiter.text)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  child.stdin?.end(options.stdin ?? "");
  const done = once(child, "close").then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stdout, stderr }));
  return {
    child,
    done,
    stderr: () => stderr,
    stderrIncludes: (text) =>
      stderr.includes(text)
        ? Promise.resolve()
        : new Promise((resolve, reject) => {
            waiters.push({ text, resolve });
            void done.then(() => reject(new Error(`the CLI exited before printing ${JSON.stringify(text)}:\n${stderr}`)));
          }),
  };
}

export function runCli(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string | undefined }): Promise<CliResult> {
  return startCli(args, options).done;
}
