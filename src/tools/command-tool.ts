// Command tools from agent.yaml: an argv template run without a shell, so a model's
// input can never become shell syntax. `{field}` in an argument is replaced by that
// input field's string value, once the input is checked (tool-input.ts): against the
// tool's input_schema, and for values that would become options.
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { forgetGroup, spawnWatched } from "./group-reaper.js";
import type { CrashPolicy, Tool, ToolContext, ToolOutput } from "./tool.js";
import { optionLikeField, PLACEHOLDER, type InputCheck } from "./tool-input.js";

export interface CommandToolDefinition {
  name: string;
  description: string;
  command: string[];
  input_schema: Record<string, unknown>;
  timeoutMs: number;
  outputLimitBytes: number;
  confirm: boolean;
  onCrash: CrashPolicy;
  /** The whole environment the command starts with (see tool-env.ts). */
  env: Record<string, string>;
  /** Fields whose value may start an argument with '-' (allow_leading_dash); default none. */
  allowLeadingDash?: readonly string[];
  /** The input_schema compiled (compileInputCheck), when the agent loads: a schema that is none stops the start, not a call. */
  inputCheck: InputCheck;
}

const STDERR_TAIL_BYTES = 2048;
export function commandTool(definition: CommandToolDefinition): Tool {
  return {
    name: definition.name,
    description: definition.description,
    input_schema: definition.input_schema,
    confirm: definition.confirm,
    onCrash: definition.onCrash,
    run: async (input, context) => {
      const problem = definition.inputCheck(input);
      if (problem !== undefined) return { content: `invalid input for ${definition.name}: ${problem}`, is_error: true };
      return runCommand(definition, input, context);
    },
  };
}

/** The argv for one call, or the name of the first input field it needs and lacks. */
export function expandArgv(template: string[], input: Record<string, unknown>): string[] | { missing: string } {
  const argv: string[] = [];
  for (const argument of template) {
    let missing: string | undefined;
    const expanded = argument.replace(PLACEHOLDER, (_match, field: string) => {
      const value = input[field];
      if (value === undefined || value === null) {
        missing ??= field;
        return "";
      }
      return typeof value === "string" ? value : JSON.stringify(value);
    });
    if (missing !== undefined) return { missing };
    argv.push(expanded);
  }
  return argv;
}

/** The call's argv, or the is_error result that refuses it: a field it lacks, or a value that would be an option. */
function argvFor(definition: CommandToolDefinition, input: Record<string, unknown>): [string, ...string[]] | ToolOutput {
  const argv = expandArgv(definition.command, input);
  if (!Array.isArray(argv)) return { content: `missing input field "${argv.missing}" for tool ${definition.name}`, is_error: true };
  const optionLike = optionLikeField(definition.command, argv, definition.allowLeadingDash ?? []);
  if (optionLike === undefined) return argv as [string, ...string[]];
  const refusal = `${optionLike} starts with '-', which would make it an option of ${argv[0]}; its tool takes such a value only after '--' or with allow_leading_dash`;
  return { content: `invalid input for ${definition.name}: ${refusal}`, is_error: true };
}

function runCommand(definition: CommandToolDefinition, input: Record<string, unknown>, context: ToolContext): Promise<ToolOutput> {
  const argv = argvFor(definition, input);
  if (!Array.isArray(argv)) return Promise.resolve(argv);
  const [program, ...args] = argv;
  if (context.signal.aborted) return Promise.resolve({ content: `${definition.name} stopped: the run is shutting down`, is_error: true });
  return new Promise((resolve) => {
    // Its own process group, so a timeout also ends whatever the command started.
    const child = spawnWatched(program, args, {
      shell: false,
      ...(context.cwd === undefined ? {} : { cwd: context.cwd }),
      env: context.env === undefined ? definition.env : { ...definition.env, ...context.env },
      stdio: ["ignore", "pipe", "pipe"],
    }) as ChildProcessByStdio<null, Readable, Readable>;
    const stdout = new CappedBuffer(definition.outputLimitBytes);
    const stderr = new TailBuffer(STDERR_TAIL_BYTES);
    child.stdout.on("data", (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.add(chunk));
    let stoppedBy: string | undefined;
    const stop = (why: string) => {
      stoppedBy ??= why;
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => stop(`timed out after ${definition.timeoutMs / 1000}s`), definition.timeoutMs);
    const onAbort = () => stop("stopped: the run is shutting down");
    context.signal.addEventListener("abort", onAbort, { once: true });
    const finish = (output: ToolOutput) => {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
      resolve(output);
    };
    child.on("error", (error: NodeJS.ErrnoException) => {
      const reason = error.code === "ENOENT" ? `command not found: ${program}` : `cannot run ${program}: ${error.message}`;
      finish({ content: reason, is_error: true });
    });
    // What the command left running in the background ends with it: it would otherwise hold
    // the output pipes open, and the call would wait for it until the timeout.
    child.on("exit", () => {
      try {
        process.kill(-(child.pid as number), "SIGKILL");
      } catch {
        // The group is already empty.
      }
    });
    child.on("close", (code, signal) => {
      if (child.pid !== undefined) forgetGroup(child.pid);
      const out = stdout.text();
      if (stoppedBy !== undefined) return finish({ content: joinParts(`${definition.name} ${stoppedBy}`, out, stderr.text()), is_error: true });
      if (code === 0) return finish({ content: out === "" ? "(no output)" : out });
      const status = code === null ? `killed by ${signal}` : `exit status ${code}`;
      finish({ content: joinParts(status, out, stderr.text()), is_error: true });
    });
  });
}

function joinParts(...parts: string[]): string {
  return parts.filter((part) => part !== "").join("\n");
}

/** Keeps the first `limit` bytes of a stream and says how much it dropped. */
class CappedBuffer {
  readonly #limit: number;
  #chunks: Buffer[] = [];
  #kept = 0;
  #dropped = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(chunk: Buffer): void {
    const room = this.#limit - this.#kept;
    if (room > 0) {
      const kept = chunk.subarray(0, room);
      this.#chunks.push(kept);
      this.#kept += kept.length;
    }
    this.#dropped += Math.max(0, chunk.length - Math.max(room, 0));
  }

  text(): string {
    const text = Buffer.concat(this.#chunks).toString("utf8");
    return this.#dropped > 0 ? `${text}\n[output truncated: ${this.#dropped} more bytes]` : text;
  }
}

/** Keeps the last `limit` bytes of a stream: where a failing command says why. */
class TailBuffer {
  readonly #limit: number;
  #tail: Buffer = Buffer.alloc(0);

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(chunk: Buffer): void {
    const joined = Buffer.concat([this.#tail, chunk]);
    this.#tail = joined.subarray(Math.max(0, joined.length - this.#limit));
  }

  text(): string {
    const text = this.#tail.toString("utf8").trimEnd();
    return text === "" ? "" : `stderr: ${text}`;
  }
}
