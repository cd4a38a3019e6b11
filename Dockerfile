# The service image: `npm ci` then `npm start` (src/server.ts, every role of ROLES in one process).
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
# Liveness only; orchestrators use /ready for traffic (docker-compose.yml does).
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:8080/health').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["npm", "start"]
