# syntax=docker/dockerfile:1
# One image for every shardline service: `crawl` (default) and `api` are subcommands of the
# `shardline` CLI, which runs the TypeScript sources through tsx (a runtime dependency), so
# there is no build step. Redis is a separate service (compose, Kubernetes); the image has no
# redis-server, so `shardline crawl` without REDIS_URL (embedded mode) is not for containers.
#
#   docker build -t shardline .
#   docker run --rm -e REDIS_URL=redis://redis:6379 shardline            # a crawler pod
#   docker run --rm -e REDIS_URL=redis://redis:6379 -e API_HOST=0.0.0.0 shardline api

ARG NODE_IMAGE=node:20-bookworm-slim

# --- deps: production node_modules only -------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# Only the manifests, so this layer is rebuilt when dependencies change, not when code does.
# npm ci needs every workspace's package.json to lay out the workspace links.
COPY package.json package-lock.json ./
COPY packages/dns/package.json packages/dns/
COPY packages/frontier/package.json packages/frontier/
COPY packages/membership/package.json packages/membership/
COPY packages/ring/package.json packages/ring/
COPY packages/robots/package.json packages/robots/
COPY packages/url/package.json packages/url/
COPY services/api/package.json services/api/
COPY services/cli/package.json services/cli/
COPY services/crawler/package.json services/crawler/
# --ignore-scripts: no runtime dependency needs an install script (esbuild, under tsx, finds
# its platform binary through its optional dependency without its postinstall check).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force

# --- runtime --------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# NODE_OPTIONS: the crawler pod's production heap setting (services/crawler/README.md,
# "Memory"): a 256 MB old-space limit makes V8 grow the heap by a small factor (RSS ~150 MB
# instead of ~215 MB); the API and CLI stay far below it.
ENV NODE_ENV=production \
  HEALTH_PORT=8081 \
  NODE_OPTIONS=--max-old-space-size=256
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
# Sources, Lua scripts and the dashboard; tests, benches and docs stay out (.dockerignore).
COPY --chown=root:root package.json ./
COPY --chown=root:root packages ./packages
COPY --chown=root:root services ./services
COPY --chown=root:root deploy/docker ./deploy/docker
# The files belong to root and are read-only for the process; it runs as the image's
# unprivileged `node` user (uid 1000). tsx writes its transform cache under /tmp.
USER node
EXPOSE 8080 8081
# The crawler's liveness endpoint on HEALTH_PORT; the api service passes its own URL
# (compose does). Kubernetes ignores this and uses the probes in deploy/k8s.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.mjs"]
ENTRYPOINT ["node", "services/cli/bin/shardline.js"]
CMD ["crawl"]
