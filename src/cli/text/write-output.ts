// Where a command's output of any length goes: standard output, or a file written aside and
// renamed into place, so the file is never half an output; 0600, as it holds the prompts.
import { once } from "node:events";
import { createWriteStream, renameSync, rmSync } from "node:fs";
import { RunStateError } from "../../runstate/errors.js";
import { UsageError } from "../cli-errors.js";
import { fileErrorText } from "./file-error.js";
import { PacedOutput } from "./paced-output.js";

/**
 * Runs `write` on `output` (a file), or on `stdout` when it is undefined. A failure to write
 * the file is a UsageError naming it, and leaves nothing behind; a journal's error (ERR_CORRUPT
 * met while reading) is passed on as it is.
 */
export async function writeOutput(output: string | undefined, stdout: NodeJS.WritableStream, write: (out: PacedOutput) => Promise<void>): Promise<void> {
  if (output === undefined) {
    const out = new PacedOutput(stdout);
    await write(out);
    await out.flush();
    return;
  }
  const temporary = `${output}.tmp-${process.pid}`;
  const file = createWriteStream(temporary, { mode: 0o600, flags: "wx" });
  try {
    await once(file, "open");
  } catch (error) {
    throw new UsageError(`cannot write ${output}: ${fileErrorText(error)}`);
  }
  try {
    const out = new PacedOutput(file);
    await write(out);
    await out.flush();
    file.end();
    await once(file, "finish");
    renameSync(temporary, output);
  } catch (error) {
    file.destroy();
    rmSync(temporary, { force: true });
    if (error instanceof RunStateError) throw error;
    throw new UsageError(`cannot write ${output}: ${fileErrorText(error)}`);
  }
}
