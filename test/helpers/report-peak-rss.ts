// Loaded into a CLI process with `node --import`: when it exits, its peak RSS in KiB goes
// to the file FISK_AI_TEST_RSS_FILE names, so a test can hold a command to a memory bound.
import { writeFileSync } from "node:fs";

const file = process.env.FISK_AI_TEST_RSS_FILE;
if (file !== undefined) process.on("exit", () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
