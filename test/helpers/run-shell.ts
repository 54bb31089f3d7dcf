// A command line run by the shell, as a person pasting a printed hint would.
import { spawn } from "node:child_process";
import { once } from "node:events";
import type { CliResult } from "./cli-harness.js";

export async function runShell(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<CliResult> {
  const child = spawn("sh", ["-c", command], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
  return { code, signal, stdout, stderr };
}
