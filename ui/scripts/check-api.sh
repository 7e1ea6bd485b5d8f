#!/usr/bin/env bash
# Fails when the committed API contract has drifted from the server:
#   1. ui/openapi.json must equal what `<binary> openapi` prints now;
#   2. ui/src/lib/backend/api.gen.ts must equal what openapi-typescript makes from ui/openapi.json;
#   3. ui/src/lib/backend/operations.gen.ts (the operation catalog: names, routes, roles, window
#      commands) must equal what `<binary> manifest --typescript` prints now.
# Usage: ui/scripts/check-api.sh path/to/approval-console   (needs `npm ci` done in ui/)
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 path/to/approval-console" >&2
  exit 2
fi
bin=$1
ui=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
spec="$ui/openapi.json"
gen="$ui/src/lib/backend/api.gen.ts"
generator="$ui/node_modules/.bin/openapi-typescript"

if [ ! -x "$bin" ]; then
  echo "check-api: no executable server binary at $bin (build it first: cargo build --bins)" >&2
  exit 2
fi
if [ ! -x "$generator" ]; then
  echo "check-api: $generator is missing: run 'npm ci' in ui/" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$bin" openapi >"$tmp/openapi.json"
if ! cmp -s "$tmp/openapi.json" "$spec"; then
  echo "check-api: ui/openapi.json is stale: run '$bin openapi > ui/openapi.json && (cd ui && npm run gen:api)' and commit both files." >&2
  diff -u "$spec" "$tmp/openapi.json" | head -n 40 >&2 || true
  exit 1
fi

ops="$ui/src/lib/backend/operations.gen.ts"
"$bin" manifest --typescript >"$tmp/operations.gen.ts"
if ! cmp -s "$tmp/operations.gen.ts" "$ops"; then
  echo "check-api: ui/src/lib/backend/operations.gen.ts is stale: run '$bin manifest --typescript > ui/src/lib/backend/operations.gen.ts' and commit it." >&2
  diff -u "$ops" "$tmp/operations.gen.ts" | head -n 40 >&2 || true
  exit 1
fi

# Same generator, same options as `npm run gen:api`; run from ui/ so it reads the same config.
(cd "$ui" && "$generator" openapi.json --output "$tmp/api.gen.ts" >/dev/null 2>"$tmp/gen.log") || {
  cat "$tmp/gen.log" >&2
  echo "check-api: openapi-typescript failed on ui/openapi.json" >&2
  exit 1
}
if ! cmp -s "$tmp/api.gen.ts" "$gen"; then
  echo "check-api: ui/src/lib/backend/api.gen.ts is stale: run '(cd ui && npm run gen:api)' and commit it." >&2
  diff -u "$gen" "$tmp/api.gen.ts" | head -n 40 >&2 || true
  exit 1
fi
echo "check-api: ui/openapi.json, ui/src/lib/backend/api.gen.ts and operations.gen.ts match the server."
