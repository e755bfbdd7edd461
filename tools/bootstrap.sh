#!/usr/bin/env bash
# Creates .venv beside the project and installs tmanager into it (editable), with uvloop
# for the workers' event loop, and with the test tools when called as `bootstrap.sh test`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
extra="[fast]"
[ "${1:-}" = "test" ] && extra="[test,dask,fast]"
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".${extra}"
