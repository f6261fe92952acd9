# sidefile: Read/Edit/Write/NotebookEdit over HTTP for remote coding agents, as a sidecar.
# Build: docker build -t sidefile:local .   Run: see docker-compose.yml and docs/deploy.md.

# The base image of every stage. Point it at a mirror or a local copy to build without Docker
# Hub: docker build --build-arg NODE_IMAGE=registry.example.com/library/node:22-slim .
ARG NODE_IMAGE=node:22-slim

# --- build: bundle the TypeScript (esbuild) with the locked dev dependencies --------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# An npm registry mirror, when there is one: --build-arg NPM_CONFIG_REGISTRY=https://npm.example.com/
ARG NPM_CONFIG_REGISTRY
COPY package.json package-lock.json ./
# --ignore-scripts: no install script of any dependency runs at build time (esbuild's binary
# comes as its optional platform package, which npm installs without one).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

# --- deps: production dependencies only ---------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ARG NPM_CONFIG_REGISTRY
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
# No git binary: git_diff reads the HEAD blob in-process (docs/security.md).
ENV NODE_ENV=production \
    SIDEFILE_HOST=0.0.0.0 \
    SIDEFILE_PORT=8080 \
    SIDEFILE_ROOT=/workspace \
    SIDEFILE_DATA_DIR=/var/lib/sidefile
# Listening on 0.0.0.0 makes a token mandatory: set SIDEFILE_TOKEN_FILE (preferred, e.g. a
# mounted secret) or SIDEFILE_TOKEN, or the process exits with status 2 and says why.

WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./

# Security: runs as the image's unprivileged node user (numeric, so Kubernetes' runAsNonRoot
# can verify it); the code and node_modules stay root-owned and read-only to it.
RUN mkdir -p /workspace /var/lib/sidefile \
 && chown 1000:1000 /workspace /var/lib/sidefile \
 && chmod 0700 /var/lib/sidefile
USER 1000:1000

# The workspace (shared with the agent) and the data dir (history, write journal) are volumes;
# keep the data dir on the same file system as the workspace if you can: history then keeps
# previous versions as hard links instead of copies.
VOLUME ["/workspace", "/var/lib/sidefile"]
EXPOSE 8080

# No curl in the image: Node's own fetch probes /healthz (public, reveals nothing).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SIDEFILE_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

# Started directly (not through npm) so SIGTERM reaches Node, which finishes writes in flight,
# closes event streams and exits.
STOPSIGNAL SIGTERM
CMD ["node", "--initial-old-space-size=128", "--no-allocation-site-pretenuring", "dist/server.js"]
