// A browser for the sign-in tests, named in BROWSER: it opens the page it is given and
// follows the redirects, as a browser does when the person is already signed in to the
// authorization server and approves; so the code reaches the CLI's loopback port for real.
// BROWSER_LOG, when set, gets each page it opened on a line.
import { appendFileSync } from "node:fs";

const page = process.argv[2];
if (page === undefined) throw new Error("usage: headless-browser URL");
if (process.env.BROWSER_LOG !== undefined) appendFileSync(process.env.BROWSER_LOG, `${page}\n`);
const response = await fetch(page);
process.stdout.write(`${response.status} ${await response.text()}`);
