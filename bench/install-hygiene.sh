#!/usr/bin/env bash
# A global install leaves nothing behind: `npm pack`, installed into a root-owned prefix; run by
# another user, then by root (as `sudo -E` would, with that user's HOME), then by the user again;
# then `npm uninstall -g`. After each step the package folder is as installed (cardctl writes
# nothing there), root owns nothing in the user's home, and after the uninstall the package
# folder is gone. Needs root (useradd, runuser); makes a throwaway user and removes it, and every
# file it made, on exit.
#
#   sudo bench/install-hygiene.sh              # the Node on PATH
#   sudo NODE=/path/to/node bench/install-hygiene.sh   # another Node (22 and later have the compile cache)
#   sudo CARDCTL_CHECKOUT=/other/checkout bench/install-hygiene.sh   # another checkout's package
set -euo pipefail

[[ $(id -u) == 0 ]] || { echo "install-hygiene: run as root (it adds a user and installs into a root-owned prefix)" >&2; exit 2; }
ROOT=${CARDCTL_CHECKOUT:-$(cd "$(dirname "$0")/.." && pwd)}
NODE=${NODE:-$(command -v node)}
WORK=$(mktemp -d /tmp/cardctl-hygiene-XXXXXX)
chmod 755 "$WORK"
USER_NAME="cardctl-hyg-$$"
cleanup() {
  userdel -r "$USER_NAME" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Node first on PATH, for npm and for the installed bin's `#!/usr/bin/env node`.
mkdir -p "$WORK/node-bin"
ln -s "$NODE" "$WORK/node-bin/node"
export PATH="$WORK/node-bin:$PATH"
echo "node $(node --version), npm $(npm --version)"

# Packed from a staging copy, so this checkout's dist/ is not cleaned by prepack.
STAGE="$WORK/stage"
mkdir -p "$STAGE"
for item in package.json bin src scripts completions man README.md LICENSE; do cp -r "$ROOT/$item" "$STAGE/"; done
ln -s "$ROOT/node_modules" "$STAGE/node_modules"
TARBALL=$(cd "$STAGE" && npm pack --silent --pack-destination "$WORK" | tail -1)

PREFIX="$WORK/prefix"
npm install -g --prefix "$PREFIX" "$WORK/$TARBALL" --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null
PACKAGE="$PREFIX/lib/node_modules/cardctl"
CARDCTL="$PREFIX/bin/cardctl"
snapshot() { (cd "$PACKAGE" && find . -printf '%p %s %T@ %u\n' | sort); }
INSTALLED=$(snapshot)

USER_HOME="$WORK/home"
useradd --home-dir "$USER_HOME" --create-home --shell /bin/sh "$USER_NAME"
run_as_user() { runuser -u "$USER_NAME" -- env -i PATH="$PATH" HOME="$USER_HOME" CARDCTL_CONFIG_DIR="$USER_HOME/config" CARDCTL_DATA_DIR="$USER_HOME/data" "$CARDCTL" "$@" >/dev/null; }
run_as_root_with_user_home() { env -i PATH="$PATH" HOME="$USER_HOME" CARDCTL_CONFIG_DIR="$WORK/root-config" CARDCTL_DATA_DIR="$WORK/root-data" "$CARDCTL" "$@" >/dev/null; }

failures=0
check() {
  local step=$1
  if [[ "$(snapshot)" != "$INSTALLED" ]]; then
    echo "FAIL after $step: the package folder changed:"; diff <(echo "$INSTALLED") <(snapshot) | head -20; failures=$((failures + 1))
  fi
  local foreign
  foreign=$(find "$USER_HOME" ! -user "$USER_NAME" -print | head -5)
  if [[ -n "$foreign" ]]; then echo "FAIL after $step: files in the user's home that the user does not own:"; echo "$foreign"; failures=$((failures + 1)); fi
  echo "ok: $step"
}

COMMANDS=(--version --help "cards list --help" "completion bash" "sandbox --help")
for command in "${COMMANDS[@]}"; do run_as_user $command; done
check "the user ran cardctl"
for command in "${COMMANDS[@]}"; do run_as_root_with_user_home $command; done
check "root ran cardctl with the user's HOME (sudo -E)"
for command in "${COMMANDS[@]}"; do run_as_user $command; done
check "the user ran cardctl again"
if [[ -d "$USER_HOME/.cache/cardctl" ]]; then echo "the user's compile cache: $(find "$USER_HOME/.cache/cardctl" -type f | wc -l) files in ~/.cache/cardctl"; fi

npm uninstall -g --prefix "$PREFIX" cardctl --loglevel=error >/dev/null
if [[ -e "$PACKAGE" ]]; then
  echo "FAIL: npm uninstall -g left $PACKAGE behind:"; find "$PACKAGE" | head -20; failures=$((failures + 1))
else
  echo "ok: npm uninstall -g left nothing of the package folder"
fi
if ((failures > 0)); then echo "$failures check(s) failed"; exit 1; fi
echo "install hygiene: every check passed"
