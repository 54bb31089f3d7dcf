// Stops what a process started in process groups of their own (command tools, stdio MCP
// servers) when it dies without stopping them (a kill -9, a crash of ours): else a tool
// cut short by a crash would go on running beside its re-run. One small `sh` per process,
// in its own group, reads the live groups on a pipe; when the pipe closes (we exited,
// however) it sends each SIGTERM, then SIGKILL. A group stopped normally is forgotten
// first, so a reused id is never signalled.
import { spawn, type ChildProcess } from "node:child_process";

const SCRIPT = `groups=" "
while read -r line; do
  case $line in
    -*) kept=" "; for group in $groups; do [ "$group" = "\${line#-}" ] || kept="$kept$group "; done; groups=$kept ;;
    *) groups="$groups$line " ;;
  esac
done
[ -z "\${groups# }" ] && exit 0
for group in $groups; do kill -TERM -"$group" 2>/dev/null; done
sleep 2
for group in $groups; do kill -KILL -"$group" 2>/dev/null; done`;

let reaper: ChildProcess | undefined;

function started(): ChildProcess {
  if (reaper === undefined) {
    reaper = spawn("/bin/sh", ["-c", SCRIPT], { stdio: ["pipe", "ignore", "ignore"], detached: true });
    // Neither the reaper nor its pipe may keep this process alive.
    reaper.unref();
    (reaper.stdin as unknown as { unref?: () => void }).unref?.();
    reaper.on("error", () => undefined);
    reaper.stdin?.on("error", () => undefined);
  }
  return reaper;
}

/** A process group (its leader's pid) to stop if this process dies. */
export function watchGroup(pid: number): void {
  started().stdin?.write(`${pid}\n`);
}

export function forgetGroup(pid: number): void {
  reaper?.stdin?.write(`-${pid}\n`);
}
