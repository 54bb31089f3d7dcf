// Starts hold-run.ts in a child process, which holds a session's lock until killed.
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";

export async function holdInChild(dir: string, runId: string): Promise<{ child: ChildProcess; pid: number }> {
  const child = spawn(process.execPath, [new URL("./hold-run.js", import.meta.url).pathname, dir, runId], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, "data")) as [Buffer];
  assert.match(line.toString(), new RegExp(`^held ${runId} `));
  return { child, pid: child.pid as number };
}
