// A new user's machine inside a directory: an empty HOME (so an empty npm cache, no npmrc and
// no `nodedir`), no npm settings from the environment, and a PATH of node, npm and a few shell
// tools only: no compiler, make or python. The rest of the environment (a proxy's CA) is kept.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";

/** The programs the install and the quick start run besides node: the examples' tools are sh, date, cat and sleep. */
const PROGRAMS = ["npm", "npx", "sh", "date", "cat", "sleep"];
/** What a machine without build tools lacks, and node-gyp would need. */
export const BUILD_TOOLS = ["cc", "gcc", "g++", "make", "python3"];

/** Where `program` is on `path`, or undefined. */
export function onPath(program: string, path: string | undefined): string | undefined {
  const found = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8", env: { PATH: path ?? "" } });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

export interface NewUserMachine {
  home: string;
  /** The only directory on the PATH: links to `node` (the one given) and the programs above. */
  bin: string;
  env: NodeJS.ProcessEnv;
}

/** Makes `dir`/home (empty) and `dir`/bin, and the environment of a new user of `node`. */
export function newUserMachine(dir: string, node = process.execPath): NewUserMachine {
  const home = join(dir, "home");
  const bin = join(dir, "bin");
  mkdirSync(home, { recursive: true });
  mkdirSync(bin, { recursive: true });
  symlinkSync(node, join(bin, "node"));
  for (const program of PROGRAMS) {
    const found = onPath(program, process.env.PATH);
    assert.ok(found !== undefined, `${program} is on this machine's PATH`);
    symlinkSync(realpathSync(found), join(bin, program));
  }
  const env: NodeJS.ProcessEnv = {};
  // `npm test` passes npm's settings on (nodedir among them), and XDG directories would point outside HOME.
  for (const [name, value] of Object.entries(process.env)) if (!/^(npm_|xdg_)/i.test(name)) env[name] = value;
  // No global npmrc either: a fresh npm has none, and this machine's may name a nodedir.
  return { home, bin, env: { ...env, HOME: home, PATH: bin, npm_config_globalconfig: join(home, "no-global-npmrc") } };
}
