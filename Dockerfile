# The service image. One image for every role: ROLES picks what a container runs
# (docker-compose.yml runs api, worker and simulator containers from it; unset, all roles).
FROM node:20-bookworm

WORKDIR /app

# Dependencies first, so a code change does not reinstall them. The full image has the
# compilers better-sqlite3 falls back to when no prebuilt binary fits.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

COPY . .
RUN mkdir -p /app/data && chown node:node /app/data

USER node
ENV PORT=8080 HOST=0.0.0.0 DATA_DIR=/app/data
EXPOSE 8080
# Liveness only; orchestrators use /ready for traffic (docker-compose.yml does). The script
# probes PORT for an api process and PROBE_PORT for any other (workers, simulator).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "deploy/healthcheck.mjs", "/health"]
# Node itself, not `npm start`: npm runs the service through `sh -c`, and a SIGTERM sent to
# npm (docker stop) never reaches the service, which then gets no graceful shutdown but a
# SIGKILL at the end of the grace period. This is exactly what `npm start` runs.
CMD ["node", "--import", "tsx", "src/server.ts"]
