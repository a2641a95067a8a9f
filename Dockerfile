# Threshold in a container: one image, three ways to run it (README "Containers").
#   docker build -t threshold .
#   docker run -p 8080:8080 -p 8081:8081 -v threshold-data:/data threshold          # the whole service, one process
#   docker compose up                                                               # gateway and engine as separate services
# The image runs as the unprivileged `node` user; everything it writes goes to /data (DATA_DIR).
# Node.js 22, the oldest maintained LTS line package.json `engines` admits (>=22) and the one CI tests (.ci/run).

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: `prepare` would compile before the sources are here. better-sqlite3 ships its binaries
# (Node-API, linux-x64 and linux-arm64 among them); protobufjs's install step runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild protobufjs
COPY tsconfig.json ./
COPY proto proto
COPY domain domain
COPY storage storage
COPY engine engine
COPY gateway gateway
COPY cli cli
COPY bench bench
COPY test test
RUN npx tsc -p tsconfig.json \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/proto proto
COPY --from=build /app/domain/data domain/data
# The release notes the service serves at /changelog (gateway/routes/changelog.ts reads them beside dist/).
COPY CHANGELOG.md ./
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
USER node
VOLUME ["/data"]
# 8080: the API, sign-in and account pages; 8081: hosted pages (PAGES_PORT, their own origin).
EXPOSE 8080 8081
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/cli/threshold.js", "serve"]
