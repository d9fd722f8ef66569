# skillnet-chat: one image for the server, the workers and the migrate job (docker-compose.yml
# picks the command). TypeScript runs through tsx, which is a runtime dependency, so the image
# installs production dependencies only and has no build step.
FROM node:20-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so a source change does not reinstall them.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Sources (what .dockerignore leaves: lib, server, workers, queues, db, scripts, tsconfig.json, …).
COPY . .

# The files stay root-owned and read-only to the app; tsx writes its cache under /tmp.
# Document extraction runs in worker threads that register tsx themselves
# (workers/ingestion/isolation/thread-entry.mjs), so tsx must stay a production dependency.
USER node

EXPOSE 3000
CMD ["node", "--import", "tsx", "server/main.ts"]
