// Installing fisk-ai from its tarball on a new user's machine (issue 59): an empty HOME and npm
// cache, no nodedir, no compiler on the PATH (test/helpers/new-user-machine.ts).
//   npm run bench:install    (INSTALL_ROUNDS=<n>, STARTUP_ROUNDS=<n>)
// Prints: `npm install -g` of the tarball with an empty cache (the registry fetched) and again
// with the cache that install filled (--prefer-offline), wall and CPU, beside the same two
// installs of the floor: the tarball of an empty package with exactly fisk-ai's dependencies,
// npm's own time for them, interleaved round by round, and fisk-ai's ratio to it;
// the installed size (du of the global prefix) and the packages that make it; and the installed
// `fisk-ai --help` against `node -e 0` on Node 20, 22 and 24 side by side, interleaved. Node 22
// and 24 are the npm packages CI runs the suite on: `npm ci --prefix .ci/node-versions` first.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { newUserMachine } from "../test/helpers/new-user-machine.js";
import { formatMb, formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const INSTALL_ROUNDS = Number(process.env.INSTALL_ROUNDS ?? 2);
const STARTUP_ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 20);
const REPO = new URL("../../", import.meta.url).pathname;
const NODE_VERSIONS = join(REPO, ".ci", "node-versions", "node_modules");
const NPM_FLAGS = ["--no-audit", "--no-fund"];
/** Issue 59's goal for an install from the tarball on a clean home, in seconds of wall time. */
const GOAL_S = 30;

interface Timed {
  wallMs: number;
  cpuMs: number;
}

/** Runs `program` under /usr/bin/time: its wall and CPU time (user + system, children included). */
function timedRun(program: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Timed {
  const timing = join(cwd, "time.txt");
  const started = performance.now();
  const child = spawnSync("/usr/bin/time", ["-f", "%U %S", "-o", timing, program, ...args], { cwd, env, encoding: "utf8" });
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`${program} ${args.join(" ")} failed: ${child.stderr}`);
  const [user, system] = readFileSync(timing, "utf8").trim().split(/\s+/).map(Number);
  return { wallMs, cpuMs: ((user ?? 0) + (system ?? 0)) * 1000 };
}

function duBytes(paths: string[]): Map<string, number> {
  const output = spawnSync("du", ["-sk", ...paths], { encoding: "utf8" }).stdout;
  return new Map(
    output
      .trim()
      .split("\n")
      .map((line) => [line.slice(line.indexOf("\t") + 1), Number(line.split("\t")[0]) * 1024] as const),
  );
}

/** Each package an install holds (a scope's packages one by one), and its size on disk. */
function packageSizes(modules: string): [string, number][] {
  const dirs = readdirSync(modules)
    .filter((name) => !name.startsWith("."))
    .flatMap((name) => (name.startsWith("@") ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]));
  const sizes = duBytes(dirs.map((name) => join(modules, name)));
  return dirs.map((name) => [name, sizes.get(join(modules, name)) ?? 0] as [string, number]).sort((a, b) => b[1] - a[1]);
}

/** The tarball `npm pack` makes of the package in `dir`, into `destination`. */
function pack(dir: string, destination: string): string {
  const packed = spawnSync("npm", ["pack", "--ignore-scripts", "--pack-destination", destination, ...NPM_FLAGS], { cwd: dir, encoding: "utf8" });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  return join(destination, packed.stdout.trim().split("\n").at(-1) as string);
}

/** The floor's tarball: a package of no files with fisk-ai's dependencies, optional ones and allowed scripts. */
function floorTarball(dir: string): string {
  const own = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as Record<string, unknown>;
  const floor = join(dir, "floor");
  mkdirSync(floor);
  const { dependencies, optionalDependencies, allowScripts, engines } = own;
  writeFileSync(
    join(floor, "package.json"),
    JSON.stringify({ name: "fisk-ai-dependencies-floor", version: "0.0.0", type: "module", engines, dependencies, optionalDependencies, allowScripts }),
  );
  return pack(floor, dir);
}

interface Install {
  cold: Timed;
  warm: Timed;
  prefix: string;
}

/** `npm install -g` of `tarball` on a new user's machine made in `dir`: with its empty cache, then with the cache filled. */
function install(dir: string, tarball: string): Install {
  const machine = newUserMachine(dir);
  const prefix = join(dir, "prefix");
  const cold = timedRun("npm", ["install", "-g", "--prefix", prefix, ...NPM_FLAGS, tarball], machine.env, dir);
  const warm = timedRun("npm", ["install", "-g", "--prefix", join(dir, "prefix-warm"), "--prefer-offline", ...NPM_FLAGS, tarball], machine.env, dir);
  return { cold, warm, prefix };
}

/** fisk-ai's installs and the floor's, interleaved; prints them and the ratios; returns where fisk-ai was installed. */
async function installs(dir: string, tarball: string, floor: string): Promise<string> {
  let machines = 0;
  const on = (file: string) => async () => install(join(dir, `machine-${++machines}`), file);
  const results = await interleave({ "fisk-ai": on(tarball), floor: on(floor) }, INSTALL_ROUNDS, 0);
  const row = (label: string, side: Install) => [label, ...[side.cold, side.warm].flatMap((t) => [formatMs(t.wallMs / 1000), formatMs(t.cpuMs / 1000)])];
  const rows = results["fisk-ai"].flatMap((fisk, round) => [
    row(`round ${round + 1}: fisk-ai`, fisk),
    row(`round ${round + 1}: floor`, results.floor[round] as Install),
  ]);
  const medianOf = (side: Install[], phase: "cold" | "warm", key: keyof Timed) => median(side.map((install) => install[phase][key]));
  const ratio = (phase: "cold" | "warm", key: keyof Timed) => formatRatio(medianOf(results["fisk-ai"], phase, key) / medianOf(results.floor, phase, key));
  const coldWallS = medianOf(results["fisk-ai"], "cold", "wallMs") / 1000;
  const floorWallS = medianOf(results.floor, "cold", "wallMs") / 1000;
  rows.push(["fisk-ai / floor, medians", ratio("cold", "wallMs"), ratio("cold", "cpuMs"), ratio("warm", "wallMs"), ratio("warm", "cpuMs")]);
  printTable(
    `npm install -g on a new user's machine (no compiler, empty HOME): fisk-ai's tarball beside the floor's, ${INSTALL_ROUNDS} rounds interleaved`,
    ["", "empty cache: wall s", "cpu s", "cache filled: wall s", "cpu s"],
    rows,
    [
      `tarballs: fisk-ai ${formatMb(statSync(tarball).size)} MB; floor (no files, fisk-ai's dependencies) ${formatMb(statSync(floor).size)} MB`,
      `goal, under ${GOAL_S} s with an empty cache: fisk-ai ${formatMs(coldWallS)} s, ${goalRatio(coldWallS / GOAL_S, coldWallS < GOAL_S)}; the floor ${formatMs(floorWallS)} s`,
      machineLine(dir),
    ],
  );
  return results["fisk-ai"].at(-1)?.prefix as string;
}

function sizeReport(prefix: string): void {
  const fisk = join(prefix, "lib", "node_modules", "fisk-ai");
  const total = duBytes([prefix]).get(prefix) ?? 0;
  const packages = packageSizes(join(fisk, "node_modules"));
  const own = (duBytes([fisk]).get(fisk) ?? 0) - packages.reduce((sum, [, bytes]) => sum + bytes, 0);
  const rows = [["fisk-ai's own files (dist, schemas, examples)", formatMb(own)], ...packages.slice(0, 10).map(([name, bytes]) => [name, formatMb(bytes)])];
  printTable(`Installed size: du of the global prefix, ${formatMb(total)} MB in all; ${packages.length} packages, the largest`, ["", "MB"], rows, [
    `the ${packages.length - 10} other packages: ${formatMb(packages.slice(10).reduce((sum, [, bytes]) => sum + bytes, 0))} MB`,
    `of which the run lock's (koffi and its binary, @koromix/*): ${formatMb(packages.filter(([name]) => name === "koffi" || name.startsWith("@koromix/")).reduce((sum, [, bytes]) => sum + bytes, 0))} MB`,
  ]);
}

async function startUp(dir: string, prefix: string): Promise<void> {
  const cli = join(prefix, "lib", "node_modules", "fisk-ai", "dist", "cli", "main.js");
  const nodes: Record<string, string> = { [process.version]: process.execPath };
  for (const name of ["node-22", "node-24"]) {
    const binary = join(NODE_VERSIONS, name, "bin", "node");
    if (existsSync(binary)) nodes[spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim()] = binary;
    else console.log(`${binary} is missing: npm ci --prefix .ci/node-versions`);
  }
  const sides: Record<string, () => Promise<Timed>> = {};
  for (const [version, binary] of Object.entries(nodes)) {
    sides[`${version} node -e 0`] = async () => timedRun(binary, ["-e", "0"], process.env, dir);
    sides[`${version} fisk-ai --help`] = async () => timedRun(binary, [cli, "--help"], process.env, dir);
  }
  const results = await interleave(sides, STARTUP_ROUNDS, 2);
  const medianOf = (label: string, key: keyof Timed): number => median((results[label] ?? []).map((sample) => sample[key]));
  const rows = Object.keys(nodes).map((version) => {
    const help = `${version} fisk-ai --help`;
    const bare = `${version} node -e 0`;
    return [
      version,
      formatMs(medianOf(bare, "wallMs")),
      formatMs(medianOf(bare, "cpuMs")),
      formatMs(medianOf(help, "wallMs")),
      formatMs(medianOf(help, "cpuMs")),
      formatRatio(medianOf(help, "wallMs") / medianOf(bare, "wallMs")),
    ];
  });
  printTable(
    `Start-up of the installed fisk-ai --help: median of ${STARTUP_ROUNDS} fresh processes each, interleaved`,
    ["node", "node -e 0 ms", "cpu ms", "--help ms", "cpu ms", "--help / node, wall"],
    rows,
    [machineLine(dir)],
  );
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-install-bench-"));
  try {
    const prefix = await installs(dir, pack(REPO, dir), floorTarball(dir));
    sizeReport(prefix);
    await startUp(dir, prefix);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
