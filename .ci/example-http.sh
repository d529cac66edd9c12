#!/usr/bin/env bash
# Runs the Example against a real HTTP server on loopback serving Example/fixtures, and checks
# that every scenario ended as expected (the Example exits non-zero otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 -d Example/fixtures >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/login.json')" 2>/dev/null && break
  sleep 0.1
done
status=0
output=$(swift run Example --base-url "http://127.0.0.1:$port" --trace .build/example-http-trace) || status=$?
echo "$output"
if [ "$status" -ne 0 ]; then echo "the Example exited with $status"; exit "$status"; fi
grep -q "HTTP 404 for /feed-missing.json" <<<"$output"
grep -q "Example finished: 4 of 4 scenarios ended as expected." <<<"$output"
echo "Example over real HTTP: ok"
