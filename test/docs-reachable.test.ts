// covers: README.md, docs/
// Every page of the docs is reachable from the README by its links, directly or through
// other pages: a page nobody links to is a page nobody reads.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

/** The repository's root: tests run from .test-build/test, sources in test/. */
function repoRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json")) && existsSync(join(dir, "README.md")) && existsSync(join(dir, "docs"))) return dir;
    if (dirname(dir) === dir) throw new Error("no repository root above this test");
  }
}

function markdownUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The local Markdown files a page links to: [text](path.md#anchor), relative to the page. */
function linkedPages(page: string): string[] {
  const text = readFileSync(page, "utf8");
  const targets = [...text.matchAll(/\]\(([^)\s#]+\.md)(?:#[^)\s]*)?\)/g)].map((match) => match[1] as string);
  return targets.filter((target) => !/^[a-z]+:/i.test(target)).map((target) => resolve(dirname(page), target));
}

test("every page under docs/ is reachable from README.md by links", () => {
  const root = repoRoot();
  const reached = new Set<string>();
  const pending = [join(root, "README.md")];
  for (let page = pending.pop(); page !== undefined; page = pending.pop()) {
    if (reached.has(page) || !existsSync(page)) continue;
    reached.add(page);
    pending.push(...linkedPages(page));
  }
  const unreached = markdownUnder(join(root, "docs"))
    .filter((page) => !reached.has(page))
    .map((page) => relative(root, page));
  assert.deepEqual(unreached, [], "link each of these from the README or from a page it reaches");
});
