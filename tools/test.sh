#!/usr/bin/env bash
# One command for the whole test suite on a fresh Debian machine:
# installs the engines and browser the tests use, builds .venv, then runs
# ruff, mypy --strict and pytest. Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(stockfish fairymax gnuchess phalanx sjeng hoichess chromium)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

bash tools/bootstrap.sh test

.venv/bin/ruff check tmanager tests tools
.venv/bin/mypy --strict tmanager
.venv/bin/pytest -q -p no:cacheprovider "$@"
