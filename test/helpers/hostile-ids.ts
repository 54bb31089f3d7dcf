// The ids live with the exported conformance suite, which needs them too.
export * from "../../src/conformance/hostile-ids.js";
