// Programs some tests need that a fresh machine may lack. Without one, its tests are
// skipped with one line naming the program and how to get it, so `npm test` passes on a
// new clone; CI names them in FISK_AI_REQUIRE (comma-separated), under which a missing
// program fails the run instead of skipping what it would have tested.
import { spawnSync } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { test } from "node:test";

const HOW_TO_GET = {
  "nats-server": "apt-get install nats-server",
  zsh: "apt-get install zsh",
  tmux: "apt-get install tmux",
  chromium: "apt-get install chromium",
  // util-linux's flock(1): flock(2) from another program, as the Go fisk-ai takes it.
  flock: "apt-get install util-linux",
  postgres: "apt-get install postgresql",
} as const;

export type Program = keyof typeof HOW_TO_GET;

// Debian installs nats-server in /usr/sbin, which is not on every user's PATH.
const SBIN = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

// Debian installs Postgres's server programs in /usr/lib/postgresql/VERSION/bin, on no PATH.
const POSTGRES_VERSIONS = "/usr/lib/postgresql";

/** The newest of Debian's Postgres bin directories, or undefined when there is none. */
export function postgresBinDir(): string | undefined {
  let versions: string[];
  try {
    versions = readdirSync(POSTGRES_VERSIONS).filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? undefined : join(POSTGRES_VERSIONS, newest, "bin");
}

/** Where `program` is, searching PATH, then the sbin directories (and Postgres's bin); undefined when nowhere. */
export function programPath(program: Program, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const postgresBin = program === "postgres" ? postgresBinDir() : undefined;
  const dirs = [...(env.PATH ?? "").split(delimiter).filter((dir) => dir !== ""), ...SBIN, ...(postgresBin === undefined ? [] : [postgresBin])];
  for (const dir of dirs) {
    const path = join(dir, program);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here: the next directory.
    }
  }
  return undefined;
}

/** The programs FISK_AI_REQUIRE names: their absence is a failure, not a skip. */
export function requiredPrograms(env: NodeJS.ProcessEnv = process.env): Set<string> {
  return new Set(
    (env.FISK_AI_REQUIRE ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  );
}

/**
 * Programs whose tests only the full tier runs (`npm run test:full`, CI): a headless browser
 * costs more than the standard tier's small size of every capability allows.
 */
const FULL_TIER_PROGRAMS: ReadonlySet<Program> = new Set(["chromium"]);

/**
 * Why tests that run `program` wait for the full tier, or undefined when they run in this one:
 * the tier npm test runs (scripts/test.mjs sets FISK_AI_TEST_TIER); a file run by name runs them.
 */
export function leftToFullTier(program: Program, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const tier = env.FISK_AI_TEST_TIER;
  if (tier === undefined || tier === "full" || !FULL_TIER_PROGRAMS.has(program)) return undefined;
  return `${program}'s tests run in the full tier: npm run test:full`;
}

/** Why tests that run `program` cannot run here, or undefined when they can. */
export function missingProgram(program: Program, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (programPath(program, env) === undefined) return `needs ${program}, which is not on this machine: ${HOW_TO_GET[program]}`;
  return program === "postgres" ? clusterUserCannotRun() : undefined;
}

/**
 * Why the user the cluster runs as (root runs it as another) cannot start the programs initdb
 * starts, or undefined when it can: a shell it cannot reach (a directory only root may enter)
 * leaves Postgres as unusable as a machine without it.
 */
function clusterUserCannotRun(): string | undefined {
  const as = clusterUser();
  if (as === undefined) return undefined;
  const ran = spawnSync("/bin/sh", ["-c", "true"], { uid: as.uid, gid: as.gid, cwd: "/" });
  return ran.status === 0 ? undefined : `needs postgres, whose user (uid ${as.uid}) cannot start /bin/sh on this machine`;
}

/** Who runs the cluster: this process, or an unprivileged user when this process is root. */
export function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  for (const name of ["postgres", "nobody"]) {
    const entry = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((line) => line.startsWith(`${name}:`));
    const [, , uid, gid] = entry?.split(":") ?? [];
    if (uid !== undefined && gid !== undefined) return { uid: Number(uid), gid: Number(gid) };
  }
  throw new Error("running as root, with no postgres or nobody user to run the Postgres cluster as");
}

const failedAlready = new Set<Program>();

/**
 * The `skip` option for a group of tests that run `program`: false where it is found; the
 * reason where it is not, or where the tier being run leaves its tests to the full tier. When FISK_AI_REQUIRE names it, a missing program adds one
 * failing test saying so and the group runs (and fails) rather than being skipped.
 */
export function skipWithout(program: Program): string | false {
  const later = leftToFullTier(program);
  if (later !== undefined) return later;
  const missing = missingProgram(program);
  if (missing === undefined) return false;
  if (!requiredPrograms().has(program)) return missing;
  if (!failedAlready.has(program)) {
    failedAlready.add(program);
    test(`${program} is required here (FISK_AI_REQUIRE)`, () => {
      throw new Error(`FISK_AI_REQUIRE names ${program}, but this test ${missing}`);
    });
  }
  return false;
}
