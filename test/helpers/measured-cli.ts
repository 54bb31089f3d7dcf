// Runs the built CLI with its peak RSS reported (report-peak-rss.ts loaded with --import),
// so a test can hold a command to a memory bound.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI } from "./cli-harness.js";

const PEAK_RSS = new URL("./report-peak-rss.js", import.meta.url).pathname;

let measuredRuns = 0;

/** Runs the CLI in `cwd` (HOME too); resolves to its exit code, stdout, stderr and peak RSS in bytes. */
export async function measured(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string; peakRss: number }> {
  const rssFile = join(cwd, `rss-${process.pid}-${++measuredRuns}`);
  const child = spawn(process.execPath, ["--import", PEAK_RSS, CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: cwd, NO_COLOR: "1", FISK_AI_TEST_RSS_FILE: rssFile },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stdout, stderr, peakRss: Number(readFileSync(rssFile, "utf8")) * 1024 };
}
