#!/usr/bin/env bash
# Runs the Example against real HTTP servers on loopback: one serving Example/fixtures (every
# scenario must end as expected), then two that misbehave (one never answers, one closes the
# connection), where the Example must print one line naming the request and the cause, and stop
# after the failed log-in instead of trying the other scenarios.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --product Example >/dev/null
example=(swift run --skip-build Example)

servers=()
trap 'for s in "${servers[@]}"; do kill "$s" 2>/dev/null || true; done' EXIT

# Waits for a port file to be written by a server started in the background.
wait_for_port() {
  for _ in $(seq 100); do
    [ -s "$1" ] && { cat "$1"; return 0; }
    sleep 0.1
  done
  echo "the server did not start" >&2
  return 1
}

echo "-- a server that serves the fixtures"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
python3 -m http.server "$port" --bind 127.0.0.1 -d Example/fixtures >/dev/null 2>&1 &
servers+=($!)
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/login.json')" 2>/dev/null && break
  sleep 0.1
done
status=0
output=$("${example[@]}" --base-url "http://127.0.0.1:$port" --trace .build/example-http-trace) || status=$?
echo "$output"
if [ "$status" -ne 0 ]; then echo "the Example exited with $status"; exit "$status"; fi
grep -q "GET /feed-missing.json: HTTP 404" <<<"$output"
grep -Eq "Example finished: ([0-9]+) of \1 scenarios ended as expected." <<<"$output"

for mode in silent close; do
  echo "-- a server that misbehaves: $mode"
  port_file=$(mktemp)
  python3 .ci/misbehaving-server.py "$mode" "$port_file" &
  servers+=($!)
  port=$(wait_for_port "$port_file")
  rm -f "$port_file"
  start=$(date +%s)
  status=0
  output=$("${example[@]}" --base-url "http://127.0.0.1:$port" --timeout 1 --trace .build/example-http-trace) || status=$?
  echo "$output"
  elapsed=$(( $(date +%s) - start ))
  [ "$status" -eq 1 ] || { echo "expected exit status 1, got $status"; exit 1; }
  if [ "$mode" = silent ]; then
    grep -q "^log-in failed: GET /login.json: no answer within 1.0 seconds; " <<<"$output"
  else
    grep -q "^log-in failed: GET /login.json: the server closed the connection" <<<"$output"
  fi
  if grep -q "== 2\." <<<"$output"; then echo "the Example went on after log-in failed"; exit 1; fi
  [ "$elapsed" -lt 30 ] || { echo "took ${elapsed}s: the timeout did not hold"; exit 1; }
  echo "($mode: stopped after the failed log-in in ${elapsed}s)"
done
echo "Example over real HTTP: ok"
