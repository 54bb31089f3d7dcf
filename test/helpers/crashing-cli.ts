// The CLI as built in dist/, with the crash hook the shipped entry does not have:
// FISK_AI_TEST_CRASH_AT=<point>:<n> (see crash-point.ts) kills the process at an exact
// step of a run. The test harness spawns this in place of dist/cli/main.js when the
// variable is set.
import type * as CliProcess from "../../src/cli/cli-process.js";
import { decideCrashPoint, moveCrashPoint, withCrashPoint } from "./crash-point.js";

// Loaded from the shipped bundle (an entry of its own beside dist/cli/main.js's chunks), not
// this build's copy of src/, so that everything but the hook is the shipped code: the resume
// commands it prints name dist/cli/main.js, as a user's do.
const DIST_CLI_PROCESS = new URL("../../../dist/cli/bundle/cli-process.js", import.meta.url).href;
const { runCliProcess } = (await import(DIST_CLI_PROCESS)) as typeof CliProcess;

const crashAt = process.env.FISK_AI_TEST_CRASH_AT;
runCliProcess({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  wrapRunEvents: (events) => withCrashPoint(events, crashAt),
  ...(decideCrashPoint(crashAt) === undefined ? {} : { decisionsJournaled: decideCrashPoint(crashAt) }),
  ...(moveCrashPoint(crashAt) === undefined ? {} : { moveStep: moveCrashPoint(crashAt) }),
});
