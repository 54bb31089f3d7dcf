// Run as a child process: opens a session for writing and holds it until killed,
// so tests can see the lock from another process.
import { FileStore } from "../../src/index.js";

const [dir, runId] = process.argv.slice(2);
const journal = await new FileStore({ dir }).open(runId as string);
process.stdout.write(`held ${journal.runId} ${process.pid}\n`);
setInterval(() => undefined, 60_000);
