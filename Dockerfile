# syntax=docker/dockerfile:1.7
# The statement gateway (and, with another command, its emulator) in one image.
#   docker build -t statement-gateway .
#   docker run -p 4000:4000 -e UPSTREAM_SANDBOX_URL=... -e UPSTREAM_PRODUCTION_URL=... \
#     -e REDIS_URL=redis://redis:6379 -e CREDENTIAL_KEY=... statement-gateway
ARG NODE_IMAGE=node:20.19-bookworm-slim

# Build stage: every dependency, then the Mesh artifacts (.mesh/) from .meshrc.ts and the sources.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json .meshrc.ts ./
COPY sources ./sources
COPY additional-resolvers ./additional-resolvers
COPY src ./src
COPY emulator ./emulator
RUN npx mesh build

# Runtime stage: production dependencies only, the Mesh build, and the code it loads.
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/tsconfig.json /app/.meshrc.ts ./
COPY --from=build /app/.mesh ./.mesh
COPY --from=build /app/sources ./sources
COPY --from=build /app/additional-resolvers ./additional-resolvers
COPY --from=build /app/src ./src
COPY --from=build /app/emulator ./emulator
# Not root: the image's `node` user (uid 1000) owns nothing here but may read everything.
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthcheck').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# One gateway process per container, as PID 1 without npm in between: SIGTERM reaches the
# gateway, which stops taking requests, finishes the ones in flight and closes Redis.
STOPSIGNAL SIGTERM
# A larger young generation: fewer scavenges per request (bench/README.md has the figures).
CMD ["node", "--max-semi-space-size=32", "--import", "tsx", "src/main.ts"]
