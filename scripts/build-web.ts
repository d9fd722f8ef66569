/**
 * Builds the browser client (web/src) into web/dist with esbuild: one bundle per page with a
 * content hash in its name (served as immutable), plus the two HTML pages that name them. Code a
 * page loads with `import()` (each page language but English, lib/i18n/catalog/loaders.ts) becomes
 * a chunk of its own, `app/chunks/<name>-<hash>.js`, fetched only by the readers who need it. Each
 * page is built on its own, so its bundle holds all its code and no chunk is cut out of what the two
 * pages share; what a bundle still imports statically (esbuild's small helper it shares with the
 * language chunks) the page names as a modulepreload, so it does not wait for the bundle.
 * `npm start` and `npm test` run it first; it takes well under a second.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type BuildOptions, type Metafile } from "esbuild";

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

interface Outputs {
  script: string;
  style: string | undefined;
  /** Chunks the script imports statically (code it shares with the language chunks): preloaded, so they do not wait for the script. */
  preloads: string[];
}

function html(page: Page, { script, style, preloads }: Outputs): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<link rel="icon" href="data:,">
${style ? `<link rel="stylesheet" href="/app/${style}">\n` : ""}${preloads.map((chunk) => `<link rel="modulepreload" href="/app/${chunk}">\n`).join("")}<script type="module" src="/app/${script}"></script>
</head>
<body>
<div id="root"></div>
<noscript>This page needs JavaScript.</noscript>
</body>
</html>
`;
}

/** Output file names (under /app/) of one entry point: its script, the CSS it imported and the chunks it imports. */
function outputsOf(metafile: Metafile, entry: string): Outputs {
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (output.entryPoint !== entry) continue;
    const preloads = output.imports.filter((imported) => imported.kind === "import-statement").map((imported) => underApp(imported.path));
    return { script: basename(path), style: output.cssBundle ? basename(output.cssBundle) : undefined, preloads };
  }
  throw new Error(`esbuild produced nothing for ${entry}`);
}

const OPTIONS: BuildOptions = {
  absWorkingDir: ROOT,
  outdir: join(DIST, "app"),
  entryNames: "[name]-[hash]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  target: ["es2022", "chrome110", "firefox115", "safari16"],
  jsx: "automatic",
  jsxImportSource: "preact",
  sourcemap: "linked",
  metafile: true,
  legalComments: "linked",
  logLevel: "warning",
  define: { "process.env.NODE_ENV": '"production"' },
};

/** An output's path under web/dist/app ("chunks/fr-….js"), from the metafile's path relative to the root. */
function underApp(path: string): string {
  return relative(join(DIST, "app"), join(ROOT, path));
}

/** The chunks (under /app/) one page's build wrote. */
function chunksOf(metafile: Metafile): string[] {
  return Object.keys(metafile.outputs)
    .map(underApp)
    .filter((path) => path.startsWith("chunks/") && path.endsWith(".js"));
}

export async function buildWeb({ minify = true } = {}): Promise<{ ms: number; files: string[] }> {
  const started = performance.now();
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(join(DIST, "app"), { recursive: true });
  const files = new Set<string>();
  // Both builds write a language's chunk; its content, and so its name, is the same in each.
  const built = await Promise.all(
    Object.entries(PAGES).map(async ([name, page]) => ({ page, result: await build({ ...OPTIONS, minify, entryPoints: { [name]: page.entry } }) })),
  );
  for (const { page, result } of built) {
    const outputs = outputsOf(result.metafile!, page.entry);
    writeFileSync(join(DIST, page.file), html(page, outputs));
    for (const file of [page.file, outputs.script, ...(outputs.style ? [outputs.style] : []), ...chunksOf(result.metafile!)]) files.add(file);
  }
  return { ms: Math.round(performance.now() - started), files: [...files] };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { ms, files } = await buildWeb();
  process.stdout.write(`› built the browser client into web/dist in ${ms} ms (${files.join(", ")})\n`);
}
