# syntax=docker/dockerfile:1
# listkeeper: one image for every role (API, MCP, web pages, background jobs).
# Build: docker build -t listkeeper .   Run: docker compose up (compose.yaml), or
#   docker run -p 8080:8080 -v listkeeper-data:/data listkeeper   (embedded Postgres in /data)

# 1. Build: the same `npm pack` a release makes (prepack compiles sdk/dist/ and dist/; the SDK goes
#    inside the package as a bundled dependency), with dev dependencies.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY sdk/package.json sdk/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /pkg && mkdir /app && tar -xzf /pkg/listkeeper-*.tgz -C /app --strip-components=1

# 2. Production dependencies only, from the packed package (the install `make test-install` checks).
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY --from=build /app ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force

# 3. Runtime: a non-root user; the local embedding model ships inside node_modules.
FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    LISTKEEPER_DATA_DIR=/data \
    LOG_FORMAT=json
RUN groupadd --system --gid 10001 listkeeper \
 && useradd --system --uid 10001 --gid listkeeper --home-dir /app --shell /usr/sbin/nologin listkeeper \
 && mkdir /data && chown listkeeper:listkeeper /data
WORKDIR /app
COPY --from=deps --chown=listkeeper:listkeeper /app ./
USER listkeeper
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM drains requests in flight (SHUTDOWN_TIMEOUT_MS) before the process exits.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
