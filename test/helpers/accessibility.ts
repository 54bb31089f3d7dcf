// axe-core, the accessibility checker, run in a page as it stands: what it finds of serious or
// critical impact, one line each. It is evaluated through the browser's debugging protocol, which
// the page's Content-Security-Policy does not govern, so the page keeps its own CSP while checked.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** Each serious or critical violation axe-core finds in `page` now: its rule, impact, help and where. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  // A string: it runs in the page, whose globals the tests' types do not have.
  const violations = await page.evaluate<Violation[]>("axe.run(document, { resultTypes: ['violations'] }).then((results) => results.violations)");
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}
