// covers: src/
// process: shared
// A function a reader can hold in their head: none outside the conformance suites (whose
// cases read as one scenario each) is over MAX_LINES lines.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";

const MAX_LINES = 60;
const root = new URL("../../", import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Each function-like node over MAX_LINES lines, as `file:line name (N lines)`. */
function longFunctions(path: string): string[] {
  const text = readFileSync(path, "utf8");
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > MAX_LINES) found.push(`${relative(root, path)}:${start + 1} ${nameOf(node)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText();
  const parent = node.parent;
  if (parent !== undefined && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent))) return parent.name.getText();
  return "(anonymous)";
}

describe("the source", () => {
  it(`has no function over ${MAX_LINES} lines outside the conformance suites`, () => {
    const files = sourceFiles(join(root, "src")).filter((path) => !relative(root, path).startsWith("src/conformance/"));
    const long = files.flatMap(longFunctions);
    assert.equal(long.length, 0, `${long.length} functions over ${MAX_LINES} lines: split each by what its parts do\n${long.join("\n")}`);
  });
});
