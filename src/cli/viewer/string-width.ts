// string-width under a relative name, which screen-text.ts requires on first use: the CLI's
// bundle makes each module required that way an entry of its own, found by the same name.
export { default } from "string-width";
