# syntax=docker/dockerfile:1
# The webhook image: compiled JavaScript and production dependencies on Node 22 LTS (Debian
# bookworm, slim). ENTRYPOINT is the version-policy CLI: by default it serves the webhook (CMD),
# and the same image runs `check` in CI. docs/operations/image.md has more; these commands are run
# by test/image/production-install.e2e.ts (without Docker: see there what it cannot run).
#
#   docker build -t version-policy --build-arg VERSION=0.1.0 --build-arg REVISION="$(git rev-parse HEAD)" --build-arg CREATED="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
#
# Serve the demo state with a dev certificate written to ./dev-certs, then ask it:
#   mkdir -p dev-certs && docker run --rm -d --name version-policy --read-only --user "$(id -u):$(id -g)" -p 9443:9443 -e VERSION_POLICY_DEV_CERT_DIR=/dev-certs -v "$PWD/dev-certs:/dev-certs" -v "$PWD/docs/operations/examples:/etc/version-policy:ro" -v "$PWD/test/fixtures:/demo:ro" version-policy serve --config /etc/version-policy/docker-config.yaml --state /demo/demo-state.yaml
#   curl --cacert dev-certs/ca.crt -H 'Content-Type: application/json' --data @test/fixtures/review-remove-version-in-use.json https://localhost:9443/validate
#   docker stop version-policy
#
# Check a change in CI (exit 0 allowed, 1 denied, 2 usage or input error):
#   docker run --rm --read-only -v "$PWD:/work:ro" -w /work version-policy check --state test/fixtures/demo-state.yaml test/fixtures/demo-aws-without-1.31.7.yaml

# node:22-bookworm-slim, pinned by digest so every build starts from the same bytes. The digest was
# read from public Dockerfiles that pin this tag, not pulled here: verify it with
# `docker buildx imagetools inspect node:22-bookworm-slim` and update both together.
ARG NODE_IMAGE=node:22-bookworm-slim@sha256:43ac6c60b8f89723f746e8a92ce91abd5017e627ce1ddfe4238355d3a30b772c

# Compile with the dev dependencies (TypeScript).
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --omit=optional: the Node 22 that npm ci brings for the npm scripts of a clone (scripts/node22),
# and platform builds of tools, are not needed to compile on the Node 22 of this image.
RUN npm ci --ignore-scripts --omit=optional --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only, installed apart so no dev dependency leaks into the image.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
# Set by the build (see the docker build line above); empty when not given.
ARG VERSION=""
ARG REVISION=""
ARG CREATED=""
LABEL org.opencontainers.image.title="version-policy" \
      org.opencontainers.image.description="Admission webhook and CI check for the Gardener version policy" \
      org.opencontainers.image.source="https://github.com/gardener-version-policy/version-policy" \
      org.opencontainers.image.url="https://github.com/gardener-version-policy/version-policy" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.base.name="docker.io/library/node:22-bookworm-slim" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.created="${CREATED}"
ENV NODE_ENV=production
# A fixed mmap threshold: glibc then returns a freed multi-MB request body to the kernel, where by
# default it raises the threshold on the first such free and keeps the next ones in its arenas
# (about 100 MB of RSS after big bodies at once, bench/memory-50k.js).
ENV GLIBC_TUNABLES=glibc.malloc.mmap_threshold=131072
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
# The image's `node` user, by number so the kubelet can check runAsNonRoot. With certificate files
# configured nothing is written at run time, so the root filesystem can be read-only; a dev
# certificate goes to $VERSION_POLICY_DEV_CERT_DIR, or else to the OS temp dir.
USER 1000:1000
EXPOSE 9443
# Exec form: node is PID 1 and receives SIGTERM itself; `serve` drains and exits on it.
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["serve"]
