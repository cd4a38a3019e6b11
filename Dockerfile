# The service image. One image for every role: ROLES picks what a container runs (unset, all
# roles). Production runs compiled JavaScript with plain node: no TypeScript loader in the image.
#
# Two targets:
#   (default)  the production image: the service without the virtual wing (src/virtual/,
#              simulator/). Its build (tsconfig.build.json) leaves the wing out, and SIMULATOR is
#              off, so no simulated manufacturer, authorization server or sandbox runs in it.
#   wing       the same plus the virtual wing (`docker build --target wing`), SIMULATOR on: the
#              simulated manufacturers, for docker-compose.yml's demonstration topology.

# Stage 1: compile src/ to dist/ with the dev dependencies (the wing is not compiled).
FROM node:24-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.wing.json ./
COPY src ./src
RUN npm run build

# Stage 1b: the same build with the virtual wing (tsconfig.wing.json: the same dist/ tree).
FROM build AS build-wing
COPY simulator/src ./simulator/src
RUN npm run build:wing

# Stage 2: the runtime dependencies and the data the service reads at start (catalog, adapters,
# mappings, the console's browser files). better-sqlite3 13 ships Node-API binaries for
# linux-x64 and linux-arm64 in its package, so the slim image needs no compiler (with
# better-sqlite3 12 it did, and the full image carried one).
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY catalog ./catalog
COPY adapters ./adapters
COPY mappings ./mappings
COPY src/console/assets ./src/console/assets
COPY deploy ./deploy
RUN mkdir -p /app/data && chown node:node /app/data
ENV PORT=8080 HOST=0.0.0.0 DATA_DIR=/app/data
EXPOSE 8080
# Liveness only; orchestrators use /ready for traffic (docker-compose.yml does). The script
# probes PORT for an api process and PROBE_PORT for any other (workers, simulator).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "deploy/healthcheck.mjs", "/health"]

# The image with the virtual wing: its compiled code and its vehicles' scenarios.
FROM runtime AS wing
COPY simulator/scenarios ./simulator/scenarios
COPY --from=build-wing /app/dist ./dist
ENV SIMULATOR=on
USER node
CMD ["node", "dist/src/server.js"]

# The production image (the default target, so it comes last): the compiled service alone.
FROM runtime AS service
COPY --from=build /app/dist ./dist
ENV SIMULATOR=off
USER node
# Node itself, not `npm run start:prod`: npm runs the service through `sh -c`, and a SIGTERM
# sent to npm (docker stop) never reaches the service, which then gets no graceful shutdown
# but a SIGKILL at the end of the grace period.
CMD ["node", "dist/src/server.js"]
