#!/usr/bin/env bash
# One command for the whole test suite on a fresh Debian machine:
# installs the engines and browser the tests use, builds .venv, then runs
# ruff, mypy --strict and pytest (the timing-sensitive tests as a step of their own); run
# whole (no arguments), it then runs the tests that lean on python-chess most against its
# newest release, in .venv-latest. With arguments, they go to one pytest run.
# Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(stockfish fairymax gnuchess phalanx sjeng hoichess chromium strace)
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

# Syzygy tablebases for the adjudication tests: python-chess's source release ships small ones.
syzygy=.cache/syzygy
if [ ! -f "$syzygy/KQvK.rtbw" ]; then
    version=$(.venv/bin/python -c 'import chess; print(chess.__version__)')
    tmp=$(mktemp -d)
    .venv/bin/python -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: \
        "chess==$version" -d "$tmp"
    tar xzf "$tmp"/chess-*.tar.gz -C "$tmp"
    mkdir -p "$syzygy"
    cp "$tmp"/chess-*/data/syzygy/regular/*.rtb? "$syzygy"/
    rm -rf "$tmp"
fi
export TMANAGER_TEST_SYZYGY="$PWD/$syzygy"

.venv/bin/ruff check tmanager tests tools
.venv/bin/mypy --strict tmanager tests tools
if [ $# -gt 0 ]; then
    exec .venv/bin/pytest -q -p no:cacheprovider "$@"
fi
# Most tests wait on engines, servers and browsers: two at a time (pytest-xdist) keep both cores busy, and the 30
# slowest are listed, to keep CI under 40 minutes. Tests that assert wall-clock bounds or play tight clocks (marked
# timing) run one at a time as a step of their own, after the rest, so that a failure there is known for what it is.
.venv/bin/pytest -q -p no:cacheprovider -n 2 --durations=30 -m "not timing"
.venv/bin/pytest -q -p no:cacheprovider -m timing

# The project allows any python-chess 1.x and uses none of its private names (tests/unit/test_architecture.py): the
# engine layer's tests run again against the newest release, on uvloop only, in a second venv.
python3 -m venv .venv-latest
.venv-latest/bin/python -m pip install -q --disable-pip-version-check -e ".[test]"
.venv-latest/bin/python -m pip install -q --disable-pip-version-check --upgrade chess
echo "against python-chess $(.venv-latest/bin/python -c 'import chess; print(chess.__version__)'):" >&2
.venv-latest/bin/pytest -q -p no:cacheprovider -m "not timing" -k "not asyncio" \
    tests/unit/test_architecture.py tests/unit/test_outcome.py tests/unit/test_adjudication_rules.py \
    tests/unit/test_engine_text.py tests/unit/test_pvcheck.py tests/integration/test_uci.py \
    tests/integration/test_transport.py tests/integration/test_xboard_engines.py \
    tests/integration/test_game_runner.py tests/integration/test_gamepgn.py
