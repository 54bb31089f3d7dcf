// The CLI on a pseudo-terminal, through util-linux script(1): for what fisk-ai asks only where a
// person can answer (y/N questions), with the answer typed at the first question.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { CLI } from "./cli-harness.js";

/** Why tests on a pseudo-terminal are skipped here, or false when script(1) is installed. */
export const NO_SCRIPT: string | false = spawnSync("script", ["--version"]).status === 0 ? false : "util-linux script(1) is not installed";

/** Runs the CLI on a pseudo-terminal in `cwd`, typing `answer` at its first y/N question; everything it printed, without carriage returns. */
export async function onTerminal(
  cwd: string,
  env: NodeJS.ProcessEnv,
  args: string[],
  answer: string | undefined,
): Promise<{ code: number | null; output: string }> {
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const child = spawn("script", ["-qfec", [process.execPath, CLI, ...args].map(quote).join(" "), "/dev/null"], {
    cwd,
    env: { ...env, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let output = "";
  let typed = false;
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    if (answer !== undefined && !typed && output.includes("[y/N]")) {
      typed = true;
      child.stdin.write(`${answer}\n`);
    }
  });
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, output: output.replaceAll("\r", "") };
}
