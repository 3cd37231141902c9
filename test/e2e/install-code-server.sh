#!/usr/bin/env bash
# Installs what the real-VS-Code tests need, offline-safe (npm registry and Debian packages only):
#   1. apt packages chromium, ripgrep, libkrb5-dev, build-essential, python3 (only when missing; needs root)
#   2. code-server from npm into DEST (default ${XDG_CACHE_HOME:-~/.cache}/cudascript-e2e/code-server-VER),
#      doing by hand what its postinstall would do without downloading anything from GitHub.
# Reuses DEST when it already holds a working install (marker file .complete).
# usage: install-code-server.sh [DEST] [VERSION]      prints the code-server binary path on its last line
set -euo pipefail
VER=${2:-${CS_VERSION:-4.100.3}}
DEST=${1:-${CS_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/cudascript-e2e/code-server-$VER}}
T0=$(date +%s); T=$T0
step() { local now; now=$(date +%s); echo "== $1 ($((now - T))s)" >&2; T=$now; }

# --- 1. system packages -------------------------------------------------------------------------
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v rg >/dev/null 2>&1 || need+=(ripgrep)
command -v g++ >/dev/null 2>&1 || need+=(build-essential)
command -v make >/dev/null 2>&1 || need+=(build-essential)
command -v python3 >/dev/null 2>&1 || need+=(python3)
[ -e /usr/include/krb5.h ] || [ -e /usr/include/krb5/krb5.h ] || [ -e /usr/include/gssapi/gssapi.h ] || need+=(libkrb5-dev)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "== apt-get install ${need[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends chromium ripgrep libkrb5-dev build-essential python3 >&2
    step "apt packages"
  else
    echo "missing system packages: ${need[*]} (install them: apt-get install chromium ripgrep libkrb5-dev build-essential python3)" >&2
    exit 1
  fi
fi

# --- 2. code-server -------------------------------------------------------------------------------
BIN="$DEST/node_modules/.bin/code-server"
if [ -f "$DEST/.complete" ] && [ -x "$BIN" ]; then
  echo "== code-server $VER cached in $DEST" >&2
  echo "$BIN"; exit 0
fi
NODE_MAJOR=$(node -p 'process.versions.node.split(".")[0]')
case "$VER" in 4.100.*) [ "$NODE_MAJOR" = 20 ] || echo "warning: code-server $VER expects Node 20 (this is $(node -v))" >&2 ;; esac
rm -rf "$DEST"; mkdir -p "$DEST"; cd "$DEST"
echo '{"private":true}' > package.json
# the npm config of the calling project must not leak in (workspaces etc.): run npm from DEST
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
[ -n "${npm_config_nodedir:-}" ] || { [ -f /usr/include/node/node.h ] && export npm_config_nodedir=/usr; } || true
# 2a. code-server without its postinstall (which would npm install lib/vscode and let @vscode/ripgrep download rg)
npm install --ignore-scripts --no-audit --no-fund --loglevel=error "code-server@$VER" >&2
step "npm install code-server@$VER"
# 2b. argon2: build from source instead of node-pre-gyp's GitHub download
npm_config_build_from_source=true npm rebuild argon2 --loglevel=error >&2
step "argon2 built"
# 2c. what postinstall.sh does
CS="$DEST/node_modules/code-server"
cd "$CS/lib/vscode"
npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error >&2
step "lib/vscode dependencies"
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
npm_config_yes=true npm_config_build_from_source=true npm rebuild --loglevel=error >&2
step "lib/vscode native modules"
ln -sfn node_modules node_modules.asar
(cd bin/remote-cli && ln -sfn code-linux.sh code-server)
(cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
cd extensions
npm install --omit=dev --no-audit --no-fund --loglevel=error >&2
step "lib/vscode/extensions dependencies"
"$BIN" --version >&2
touch "$DEST/.complete"
echo "== code-server installed in $(( $(date +%s) - T0 ))s: $DEST ($(du -sh "$DEST" | cut -f1))" >&2
echo "$BIN"
