// The browser console that `fisk-ai serve` serves at / (docs/console.md): console/src bundled
// with Preact by esbuild into dist/console/, beside its page and style sheet, so the package
// holds every file the page loads and it needs no network. Run by `npm run build`.
import { copyFileSync, mkdirSync } from "node:fs";
import { build } from "esbuild";

const OUT = "dist/console";

mkdirSync(OUT, { recursive: true });
await build({
  entryPoints: { console: "console/src/main.tsx" },
  outdir: OUT,
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2022",
  jsx: "automatic",
  jsxImportSource: "preact",
  define: { "process.env.NODE_ENV": '"production"' },
  legalComments: "none",
  logLevel: "warning",
});
copyFileSync("console/index.html", `${OUT}/index.html`);
copyFileSync("console/style.css", `${OUT}/console.css`);
