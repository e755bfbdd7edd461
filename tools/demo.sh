#!/usr/bin/env bash
# One command for a real demo on a fresh machine: builds .venv, creates a
# 4-engine round robin of the engines tmanager ships (demo/demo.toml), plays it
# with two workers and prints the standings and cross-table.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/bootstrap.sh
mkdir -p demo
rm -f demo/demo.toml demo/demo.pgn
.venv/bin/tmanager new demo/demo.toml --name "tmanager demo" \
    -e greedy-uci -e greedy-xboard -e random-uci -e random-xboard \
    --games 2 --cycles 2 --tc 5+0.05 --openings ../tourneys/openings/sample.epd
.venv/bin/tmanager run demo/demo.toml --workers 2
.venv/bin/tmanager crosstable demo/demo.pgn
echo "files: demo/demo.toml (the tourney), demo/demo.pgn (the games), demo/demo.log (the workers' log)"
