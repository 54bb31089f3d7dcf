// Stops the stdio MCP servers of a process that died without stopping them (a kill -9, a
// crash of ours). One small `sh` per process, in its own process group, reads the process
// groups of the running servers on a pipe; when the pipe closes (we exited, however) it
// sends each group SIGTERM. A server closed normally is forgotten first, so a reused id
// is never signalled.
import { spawn, type ChildProcess } from "node:child_process";

const SCRIPT = `groups=" "
while read -r line; do
  case $line in
    -*) groups=$(printf '%s' "$groups" | sed "s/ \${line#-} / /") ;;
    *) groups="$groups$line " ;;
  esac
done
for group in $groups; do kill -TERM -"$group" 2>/dev/null; done`;

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

/** The process group (the leader's pid) of a server to stop if this process dies. */
export function watchGroup(pid: number): void {
  started().stdin?.write(`${pid}\n`);
}

export function forgetGroup(pid: number): void {
  reaper?.stdin?.write(`-${pid}\n`);
}
