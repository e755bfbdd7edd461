#!/usr/bin/env bash
# Creates .venv beside the project and installs tmanager into it (editable), with the test
# tools when called as `bootstrap.sh test`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
extra=""
[ "${1:-}" = "test" ] && extra="[test,dask]"
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extra}"
