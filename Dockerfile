# syntax=docker/dockerfile:1
# One image for every shardline service, running the compiled JavaScript on plain node (tsx and
# TypeScript stay in the build stage): the crawler pod by default (`services/crawler/dist/main.js`,
# configured by environment) and the stats API (`services/cli/bin/shardline.js api`). Redis is a
# separate service (compose, Kubernetes); the image has no redis-server, so `shardline crawl`
# without REDIS_URL (embedded mode) is not for containers.
#
#   docker build -t shardline .
#   docker run --rm -e REDIS_URL=redis://redis:6379 shardline            # a crawler pod
#   docker run --rm -e REDIS_URL=redis://redis:6379 -e API_HOST=0.0.0.0 shardline \
#     services/cli/bin/shardline.js api                                  # the stats API

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: TypeScript → dist/, then each workspace's files as `npm pack` ships them ---------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/dns/package.json packages/dns/
COPY packages/frontier/package.json packages/frontier/
COPY packages/membership/package.json packages/membership/
COPY packages/ring/package.json packages/ring/
COPY packages/robots/package.json packages/robots/
COPY packages/url/package.json packages/url/
COPY packages/warc/package.json packages/warc/
COPY services/api/package.json services/api/
COPY services/cli/package.json services/cli/
COPY services/crawler/package.json services/crawler/
COPY services/urlfrontier/package.json services/urlfrontier/
# --ignore-scripts: the root `prepare` script is the build, and the sources are not here yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.package.json tsconfig.build.json ./
COPY packages ./packages
COPY services ./services
# /out/<workspace>: its package.json and its "files" (dist/, lua/, public/, bin/, src/ for the
# declaration maps), exactly what a user installing the package gets.
RUN npm run build \
  && for dir in packages/* services/*; do \
    mkdir -p "/out/$dir" \
    && tarball="$(npm pack --silent --pack-destination /tmp "./$dir")" \
    && tar -xzf "/tmp/$tarball" -C "/out/$dir" --strip-components=1 \
    || exit 1; \
  done

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
COPY packages/warc/package.json packages/warc/
COPY services/api/package.json services/api/
COPY services/cli/package.json services/cli/
COPY services/crawler/package.json services/crawler/
COPY services/urlfrontier/package.json services/urlfrontier/
# --ignore-scripts: no runtime dependency needs an install script, and the root `prepare`
# (the build) belongs to the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force

# --- runtime --------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# NODE_OPTIONS: the crawler pod's production heap setting (services/crawler/README.md,
# "Memory"): a 256 MB old-space limit makes V8 grow the heap by a small factor, 4 MB semi-spaces
# keep the young generation from touching 32 MB; the API and CLI stay far below both.
ENV NODE_ENV=production \
  HEALTH_PORT=8081 \
  NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=4"
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
# The workspaces' node_modules links point here: package.json + dist/ (+ lua/, public/, bin/).
COPY --from=build --chown=root:root /out ./
COPY --chown=root:root deploy/docker ./deploy/docker
# WARC files go to /warc (WARC_DIR in the deploy files), a volume: created here owned by
# `node`, so a fresh named volume starts writable for the process.
RUN mkdir /warc && chown node:node /warc
# The files belong to root and are read-only for the process; it runs as the image's
# unprivileged `node` user (uid 1000).
USER node
EXPOSE 8080 8081
# The crawler's liveness endpoint on HEALTH_PORT; the api service passes its own URL
# (compose does). Kubernetes ignores this and uses the probes in deploy/k8s.
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "deploy/docker/healthcheck.mjs"]
ENTRYPOINT ["node"]
CMD ["services/crawler/dist/main.js"]
