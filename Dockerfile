# skillnet-chat: one image for the server, the workers and the migrate job (docker-compose.yml
# picks the command). It runs compiled JavaScript: the build stage type-checks and bundles each
# entry point with esbuild into dist/ (`npm run build`, scripts/build.ts); the runtime stage has
# production dependencies and dist/ only — no TypeScript, no tsx, no sources.

# --- build: all dependencies, type-check, bundle -------------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# --- runtime -------------------------------------------------------------------------------
FROM node:20-bookworm-slim AS runtime
# Stack traces point at the TypeScript sources through the bundles' source maps.
ENV NODE_ENV=production NODE_OPTIONS=--enable-source-maps
WORKDIR /app

# OCR for scanned PDF pages and image uploads (workers/ingestion/extract/ocr.ts) and the Word/Excel
# 97–2003 converters (legacy-office.ts): the same Debian packages scripts/ensure-deps.sh installs;
# prlimit (util-linux) bounds each of their processes.
RUN apt-get update -q \
  && apt-get install -y -q --no-install-recommends tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa poppler-utils antiword catdoc \
  && rm -rf /var/lib/apt/lists/*

# Dependencies first, so a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# dist/server, dist/workers (with the extraction-thread bundle), dist/ops (the database commands and `node dist/ops/cli/org.js`), dist/telemetry (the tracing preload), dist/web (browser client).
COPY --from=build /app/dist ./dist

# Files stay root-owned and read-only to the app.
USER node

EXPOSE 3000
# On SIGTERM the server stops accepting and sends its sockets to reconnect elsewhere; a worker
# hands its unfinished jobs back. Both exit within SHUTDOWN_GRACE_MS (8 s), inside compose's
# and Kubernetes' kill timeouts (docs/operations.md, "Shutdown and deploys").
STOPSIGNAL SIGTERM
# The preload starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set and does nothing otherwise.
CMD ["node", "--import", "./dist/telemetry/register.js", "dist/server/main.js"]
