# Sourced by the entry scripts: installs dependencies when node_modules is missing or older
# than the lock file, and puts the pinned Node 24 (the `node` devDependency) first on PATH.
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "==> installing dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
export PATH="$PWD/node_modules/.bin:$PATH"
