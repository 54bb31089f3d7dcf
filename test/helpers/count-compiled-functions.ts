// Loaded into a CLI process with `node --import`: counts the functions the process compiles
// from strings (`new Function`, `Function(...)`) and, when it exits, writes the count to the
// file FISK_AI_TEST_FUNCTIONS_FILE names.
import { writeFileSync } from "node:fs";

const file = process.env.FISK_AI_TEST_FUNCTIONS_FILE;
if (file !== undefined) {
  let compiled = 0;
  globalThis.Function = new Proxy(globalThis.Function, {
    construct: (target, args, newTarget) => {
      compiled++;
      return Reflect.construct(target, args, newTarget);
    },
    apply: (target, self, args) => {
      compiled++;
      return Reflect.apply(target, self, args);
    },
  });
  process.on("exit", () => writeFileSync(file, String(compiled)));
}
