# Sourced by the entry scripts: installs dependencies when node_modules is missing or older
# than the lock file, and puts the pinned Node 24 (the `node` devDependency) first on PATH.
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "==> installing dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
export PATH="$PWD/node_modules/.bin:$PATH"
# The console's browser tests drive Debian's Chromium (playwright-core downloads no browser).
if ! command -v chromium >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing chromium (apt) for the console's browser tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 \
    || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y --no-install-recommends chromium >/dev/null; } \
    || echo "==> chromium could not be installed: the console's browser test will fail"
fi
