// Shows a sign-in page to the person at the terminal: the URL on stderr, and the browser
// BROWSER names opened on it (its first choice; `%s` stands for the URL, else it is added).
import { spawn } from "node:child_process";
import type { ShowSignInPage } from "../../tools/mcp/sign-in-provider.js";

export function showSignInPage(stderr: NodeJS.WritableStream, env: NodeJS.ProcessEnv): ShowSignInPage {
  return (page, server) => {
    stderr.write(`fisk-ai: sign in to MCP server ${server} at ${page.href}\n`);
    openInBrowser(page.href, env);
  };
}

/** Opens `url` in the browser BROWSER names, else in `fallback` (a program given the URL); nothing when neither is set. */
export function openInBrowser(url: string, env: NodeJS.ProcessEnv, fallback?: string): void {
  const browser = env.BROWSER?.split(":")[0]?.trim() || fallback;
  if (browser === undefined || browser === "") return;
  // The URL reaches the shell as "$1", never as text to parse.
  const command = browser.includes("%s") ? browser.replaceAll("%s", '"$1"') : `${browser} "$1"`;
  const child = spawn("/bin/sh", ["-c", command, "sh", url], { stdio: "ignore", detached: true, env });
  child.on("error", () => undefined);
  child.unref();
}
