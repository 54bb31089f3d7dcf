// Files the package ships beside its code (package.json, schemas, examples, the CLI's entry),
// found from wherever this module runs: dist/package/ as tsc emits it, a chunk of the CLI's
// bundle in dist/cli/bundle/, or a test build. A path relative to the calling file would
// break as soon as the bundler moves that file.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

let root: string | undefined;

/** The package's directory: the nearest one above this module that holds a package.json. */
function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}: the fisk-ai package is incomplete, install it again`);
    dir = parent;
  }
  root = dir;
  return root;
}

/** The absolute path of `relative` (forward slashes) inside the package. */
export function packageFile(relative: string): string {
  return join(packageRoot(), ...relative.split("/"));
}

/** The package's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(packageFile("package.json"), "utf8")) as { version: string }).version;
}
