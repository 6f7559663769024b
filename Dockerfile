# syntax=docker/dockerfile:1
# The webhook image: compiled JavaScript and production dependencies on a slim Node 20 base.
#   docker build -t version-policy .
#   docker run --read-only -v "$PWD/deploy:/etc/version-policy:ro" version-policy --config /etc/version-policy/config/config.yaml
ARG NODE_IMAGE=node:20-bookworm-slim

# Compile with the dev dependencies (TypeScript).
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only, installed apart so no dev dependency leaks into the image.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
# The image's `node` user, by number so the kubelet can check runAsNonRoot. Nothing is written at
# run time, so the root filesystem can be read-only.
USER 1000:1000
EXPOSE 9443
# Exec form: node is PID 1 and receives SIGTERM itself; `serve` drains and exits on it.
ENTRYPOINT ["node", "/app/dist/cli/main.js", "serve"]
