# The service image. One image for every role: ROLES picks what a container runs
# (docker-compose.yml runs api, worker and simulator containers from it; unset, all roles).
# Production runs compiled JavaScript with plain node: no TypeScript loader in the image.

# Stage 1: compile src/ (and the simulator it mounts) to dist/ with the dev dependencies.
FROM node:24-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY simulator/src ./simulator/src
RUN npm run build

# Stage 2: the runtime dependencies, the compiled code and the data the service reads at start
# (catalog, adapters, mappings, scenarios, the console's browser files). better-sqlite3 13 ships
# Node-API binaries for linux-x64 and linux-arm64 in its package, so the slim image needs no
# compiler (with better-sqlite3 12 it did, and the full image carried one).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY catalog ./catalog
COPY adapters ./adapters
COPY mappings ./mappings
COPY simulator/scenarios ./simulator/scenarios
COPY src/console/assets ./src/console/assets
COPY deploy ./deploy
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data

USER node
ENV PORT=8080 HOST=0.0.0.0 DATA_DIR=/app/data
EXPOSE 8080
# Liveness only; orchestrators use /ready for traffic (docker-compose.yml does). The script
# probes PORT for an api process and PROBE_PORT for any other (workers, simulator).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "deploy/healthcheck.mjs", "/health"]
# Node itself, not `npm run start:prod`: npm runs the service through `sh -c`, and a SIGTERM
# sent to npm (docker stop) never reaches the service, which then gets no graceful shutdown
# but a SIGKILL at the end of the grace period.
CMD ["node", "dist/src/server.js"]
