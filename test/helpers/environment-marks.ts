// For the tests that tools get no secret: a run through the built CLI with secrets in its
// environment, each value starting MARK-, and which of them its journals hold.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, type CliResult } from "./cli-harness.js";

/** Runs agent.yaml in `dir` as session `env` with `secrets` set; every journal's text, and the MARK- values in it. */
export async function runWithMarkedSecrets(dir: string, secrets: Record<string, string>): Promise<{ result: CliResult; journal: string; marks: string[] }> {
  const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1", VISIBLE_SETTING: "seen", ...secrets };
  const result = await runCli(["run", "--config", "agent.yaml", "--checkpoint", "--name", "env", "go"], { cwd: dir, env });
  const runs = join(dir, "state", "fisk-ai", "runs");
  const journal =
    result.code === 0
      ? readdirSync(runs)
          .map((name) => readFileSync(join(runs, name), "utf8"))
          .join("")
      : "";
  return { result, journal, marks: [...new Set([...journal.matchAll(/MARK-[A-Za-z_-]+/g)].map((match) => match[0]))] };
}
