// The run lock's system call: flock(2), exclusive and non-blocking, called through koffi's
// FFI, whose prebuilt N-API binaries load on every Node version and need no compiler at
// install. flock and not fcntl/OFD locks (which fs-native-extensions takes on Linux): on Linux
// the two kinds never exclude each other, and the Go fisk-ai takes flock on the same file.
import { constants } from "node:os";
import { dirname } from "node:path";
import { packageFile } from "../../package/package-files.js";
import { RunStateError } from "../../runstate/errors.js";

// The same values on Linux, macOS and the BSDs (<sys/file.h>).
const LOCK_EX = 2;
const LOCK_NB = 4;

interface Flock {
  call(fd: number, operation: number): number;
  errno(): number;
}

/** Loaded with the first lock taken: a listing takes none. */
let loaded: Flock | undefined;

/** Takes an exclusive flock on `fd` without blocking; an error with code EWOULDBLOCK when it is held. */
export async function flockExclusive(fd: number): Promise<void> {
  loaded ??= await loadFlock();
  // Non-blocking, so the call is made on this thread: it returns at once, held or not.
  if (loaded.call(fd, LOCK_EX | LOCK_NB) === 0) return;
  throw errnoError(loaded.errno());
}

async function loadFlock(): Promise<Flock> {
  try {
    const koffi = (await import("koffi")).default;
    // The process's own symbols: flock comes from the C library Node is linked with (glibc, musl, libSystem).
    const call = koffi.load(null).func("int flock(int fd, int operation)") as Flock["call"];
    return { call, errno: () => koffi.errno() };
  } catch (error) {
    const packageDir = dirname(packageFile("package.json"));
    throw new RunStateError(
      "ERR_IO",
      `the run lock (flock through the koffi package) cannot load on ${process.platform}-${process.arch}, Node.js ${process.versions.node}: reinstall fisk-ai in ${packageDir} with its optional dependencies (npm install --include=optional), or keep sessions on NATS (--store nats://HOST:PORT/STREAM)`,
      { cause: error },
    );
  }
}

/** An error as Node's own fs calls make them: `code` the errno's name, so callers test it the same way. */
function errnoError(errno: number): NodeJS.ErrnoException {
  const code =
    errno === constants.errno.EWOULDBLOCK ? "EWOULDBLOCK" : (Object.entries(constants.errno).find(([, value]) => value === errno)?.[0] ?? `errno ${errno}`);
  return Object.assign(new Error(`flock: ${code}`), { errno, code, syscall: "flock" });
}
