/**
 * Builds the browser client (web/src) into web/dist with esbuild: one bundle per page with a
 * content hash in its name (served as immutable), plus the two HTML pages that name them.
 * `npm start` and `npm test` run it first; it takes well under a second.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Metafile } from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = join(ROOT, "web/dist");

interface Page {
  entry: string;
  file: string;
  title: string;
}

const PAGES: Record<string, Page> = {
  chat: { entry: "web/src/chat/main.tsx", file: "index.html", title: "skillnet tutor" },
  admin: { entry: "web/src/admin/main.tsx", file: "admin.html", title: "skillnet admin console" },
};

function html(page: Page, script: string, style: string | undefined): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="/app/${style}">\n` : ""}<script type="module" src="/app/${script}"></script>
</head>
<body>
<div id="root"></div>
<noscript>This page needs JavaScript.</noscript>
</body>
</html>
`;
}

/** Output file names (under /app/) of one entry point: its script and the CSS it imported. */
function outputsOf(metafile: Metafile, entry: string): { script: string; style: string | undefined } {
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint === entry) return { script: basename(path), style: output.cssBundle ? basename(output.cssBundle) : undefined };
  }
  throw new Error(`esbuild produced nothing for ${entry}`);
}

export async function buildWeb({ minify = true } = {}): Promise<{ ms: number; files: string[] }> {
  const started = performance.now();
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(join(DIST, "app"), { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(Object.entries(PAGES).map(([name, page]) => [name, page.entry])),
    outdir: join(DIST, "app"),
    entryNames: "[name]-[hash]",
    bundle: true,
    format: "esm",
    target: ["es2022", "chrome110", "firefox115", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    minify,
    sourcemap: "linked",
    metafile: true,
    legalComments: "linked",
    logLevel: "warning",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  const files: string[] = [];
  for (const page of Object.values(PAGES)) {
    const { script, style } = outputsOf(result.metafile, page.entry);
    writeFileSync(join(DIST, page.file), html(page, script, style));
    files.push(page.file, script, ...(style ? [style] : []));
  }
  return { ms: Math.round(performance.now() - started), files };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ms, files } = await buildWeb();
  process.stdout.write(`› built the browser client into web/dist in ${ms} ms (${files.join(", ")})\n`);
}
