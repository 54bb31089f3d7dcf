// A module loader hook for tests of start-up: `node --import <this file> ...` appends the
// URL of every module the process loads to the file FISK_MODULE_LOG names.
import { appendFileSync } from "node:fs";
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

type NextLoad = (url: string, context: unknown) => Promise<unknown>;

/** The hook itself (run on the loader thread, registered below from the main one). */
export async function load(url: string, context: unknown, next: NextLoad): Promise<unknown> {
  const log = process.env.FISK_MODULE_LOG;
  if (log !== undefined) appendFileSync(log, `${url}\n`);
  return next(url, context);
}

// The copy imported with --import registers the hook; the loader thread's copy must not.
if (isMainThread) register(import.meta.url);
