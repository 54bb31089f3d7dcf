// The server's console secret: 32 random bytes that seal sign-in cookies, made once and kept
// in a file only its owner can read, so a restarted server still takes the cookies it gave.
// FISK_AI_CONSOLE_SECRET (64 hex digits) gives it instead, for servers on several machines.
import { randomBytes } from "node:crypto";
import { link, mkdir, readFile, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ServerError } from "../problem.js";

const SECRET_BYTES = 32;

export async function consoleSecret(path: string, env: NodeJS.ProcessEnv): Promise<Uint8Array> {
  const given = env.FISK_AI_CONSOLE_SECRET;
  if (given !== undefined) {
    if (!/^[0-9a-fA-F]{64}$/.test(given))
      throw new ServerError("ERR_BAD_REQUEST", "FISK_AI_CONSOLE_SECRET must be 64 hex digits (32 random bytes): make one with `openssl rand -hex 32`");
    return Buffer.from(given, "hex");
  }
  try {
    const mode = (await stat(path)).mode & 0o077;
    if (mode !== 0) throw new ServerError("ERR_BAD_REQUEST", `the console secret ${path} can be read by others: run chmod 600 ${path}`);
    const secret = await readFile(path);
    if (secret.length !== SECRET_BYTES)
      throw new ServerError("ERR_BAD_REQUEST", `the console secret ${path} is not ${SECRET_BYTES} bytes: remove it, and every console sign-in starts again`);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(join(path, ".."), { recursive: true, mode: 0o700 });
  const secret = randomBytes(SECRET_BYTES);
  // Written whole under a name of this process's, then linked into place: two servers starting
  // at once keep one secret, the first linked, and neither reads a half-written one.
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
  await writeFile(temporary, secret, { mode: 0o600, flag: "wx" });
  try {
    await link(temporary, path);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return consoleSecret(path, env);
    throw error;
  } finally {
    await unlink(temporary);
  }
}
