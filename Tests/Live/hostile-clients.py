#!/usr/bin/env python3
"""Hostile clients against a live inspector, from plain sockets.

    python3 hostile-clients.py URL DISPATCHABLE_STEP QUEUE_LIMIT MAX_CONNECTIONS REQUEST_TIMEOUT

URL is the inspector's URL with its token; DISPATCHABLE_STEP a recorded step whose action the
registry can dispatch again (the flood that makes a slow stream fall behind); QUEUE_LIMIT, the
server's maximumStreamQueueBytes; MAX_CONNECTIONS, its maximumConnections; REQUEST_TIMEOUT, its
requestTimeout in seconds. Run by Tests/Live/LiveHostileClientTests.swift against a server on
127.0.0.1 with small limits. Every wait has a deadline; every loop is bounded. Exits 0 when every
hostile client was refused with the expected status and the server still serves; prints a table.

Nothing here depends on how fast the host is or how large its socket buffers are: the flood
dispatches steps the server promises to keep (the newest it reports), goes on until the server
itself counts the never-reading stream as dropped, and only bounds how long that may take.
"""
import json
import os
import re
import resource
import select
import selectors
import socket
import sys
import time
import urllib.parse

url, step, queue_limit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
max_connections, request_timeout = int(sys.argv[4]), float(sys.argv[5])
parts = urllib.parse.urlsplit(url)
HOST, PORT = parts.hostname, parts.port
TOKEN = urllib.parse.parse_qs(parts.query)["token"][0]
GOOD_HOST = "%s:%d" % (HOST, PORT)
rows = []
failures = []


def check(name, ok, detail):
    rows.append((name, "ok" if ok else "FAIL", detail))
    if not ok:
        failures.append(name)


# Deadlines bound a hang, nothing else: a passing run finishes long before them, and a slow host
# (a sanitizer, other processes on every core) only takes longer.
PATIENCE = 60.0


def connect(timeout=PATIENCE):
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    return s


def exchange(raw, timeout=PATIENCE):
    """Sends raw bytes, reads until the server closes (or the deadline); returns (status, text)."""
    s = connect()
    try:
        s.settimeout(timeout)
        try:
            s.sendall(raw)
        except OSError:
            pass  # the server may refuse before reading everything
        data = b""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
        return status_of(data), data.decode("utf-8", "replace")
    finally:
        s.close()


def status_of(data):
    try:
        return int(data.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return None


def request(method, path, headers=None, body=b"", token=True, host=GOOD_HOST):
    target = path
    if token:
        target += ("&" if "?" in path else "?") + "token=" + TOKEN
    lines = ["%s %s HTTP/1.1" % (method, target), "Host: " + host]
    for name, value in (headers or {}).items():
        lines.append("%s: %s" % (name, value))
    if body:
        lines.append("Content-Length: %d" % len(body))
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def status_json():
    code, text = exchange(request("GET", "/status"))
    if code != 200:
        return None
    return json.loads(text.split("\r\n\r\n", 1)[1])


def dispatch_again(target):
    body = json.dumps({"step": target}).encode()
    return exchange(request("POST", "/dispatch", {"Content-Type": "application/json"}, body))


# ---- Refused requests, one connection each ---------------------------------------------------

code, text = exchange(request("GET", "/", token=False))
check("no token", code == 401, "status %s" % code)
code, _ = exchange(request("GET", "/?token=" + "0" * len(TOKEN), token=False))
check("wrong token, same length", code == 401, "status %s" % code)
code, _ = exchange(request("GET", "/?token=" + TOKEN[:-1], token=False))
check("wrong token, one character short", code == 401, "status %s" % code)
code, _ = exchange(request("GET", "/?token=" + TOKEN + "0", token=False))
check("wrong token, one character long", code == 401, "status %s" % code)
code, _ = exchange(request("GET", "/", {"X-Big": "a" * 40000}))
check("huge header (40 KB)", code == 431, "status %s" % code)
code, _ = exchange(request("GET", "/", {"X-H%d" % i: "v" for i in range(200)}))
check("200 header lines", code == 431, "status %s" % code)
code, _ = exchange(b"\x00\xff\x13\x80garbage \x07\x1b[31m\r\n\r\n" + os.urandom(256))
check("garbage bytes", code == 400, "status %s" % code)
code, _ = exchange(b"GET / HTTP/1.1\nHost: " + GOOD_HOST.encode() + b"\n\n")
check("bare LF line ends", code == 400, "status %s" % code)
code, _ = exchange(request("GET", "/", host="attacker.example:%d" % PORT))
check("rebinding Host (attacker.example)", code == 403, "status %s" % code)
code, _ = exchange(request("GET", "/", host="127.0.0.1:1"))
check("Host with another port", code == 403, "status %s" % code)
code, _ = exchange(("GET /?token=%s HTTP/1.1\r\n\r\n" % TOKEN).encode())
check("no Host", code == 400, "status %s" % code)
code, text = exchange(request("POST", "/pause", {"Origin": "http://attacker.example", "Content-Type": "application/json"}, b"{}"))
check("foreign Origin", code == 403, "status %s" % code)
code, _ = exchange(request("GET", "/", {"Origin": "null"}))
check("Origin null", code == 403, "status %s" % code)
code, _ = exchange(request("POST", "/jump", {"Content-Type": "application/json", "Content-Length": "100000"}))
check("body too large (100 KB announced)", code == 413, "status %s" % code)
code, _ = exchange(request("POST", "/jump", {"Content-Type": "application/json", "Transfer-Encoding": "chunked"}))
check("chunked body", code == 501, "status %s" % code)
code, _ = exchange(request("POST", "/pause", {"Content-Type": "text/plain"}, b"{}"))
check("command not JSON (CSRF form)", code == 415, "status %s" % code)
for media_type in ["application/jsonx", "application/json-patch+json", "application/json+x", "text/json",
                   "application/json, text/plain"]:
    code, _ = exchange(request("POST", "/pause", {"Content-Type": media_type}, b"{}"))
    check("command as %s" % media_type, code == 415, "status %s" % code)
code, _ = exchange(request("POST", "/pause", {"Content-Type": "application/json", "content-type": "text/plain"}, b"{}"))
check("two Content-Types", code == 415, "status %s" % code)
for media_type in ["application/json; charset=utf-8", "Application/JSON ;charset=UTF-8"]:
    code, _ = exchange(request("POST", "/resume", {"Content-Type": media_type}, b"{}"))
    check("command as %s" % media_type, code == 200, "status %s" % code)
code, text = exchange(request("OPTIONS", "/", {"Origin": "http://attacker.example", "Access-Control-Request-Method": "POST"}))
check("CORS preflight", code in (403, 405) and "access-control" not in text.lower(), "status %s, no CORS header" % code)
code, text = exchange(request("GET", "/status"))
check("no CORS header on success", code == 200 and "access-control" not in text.lower(), "status %s" % code)
code, _ = exchange(request("GET", "/nowhere"))
check("unknown path", code == 404, "status %s" % code)

# ---- Slowloris: a byte now and then never completes a request ----------------------------------
# At a byte each 0.2 s the head would take about 14 s; the server must answer 408 and close before
# the last byte, whenever its timeout fires on this host.

s = connect()
start = time.time()
head = request("GET", "/")
sent = 0
closed_after = None
answer = b""
s.settimeout(0.2)
while time.time() - start < request_timeout + PATIENCE and sent < len(head):
    try:
        s.sendall(head[sent:sent + 1])
        sent += 1
    except OSError:
        closed_after = time.time() - start
        break
    try:
        chunk = s.recv(4096)
        if chunk:
            answer += chunk
        else:
            closed_after = time.time() - start
            break
    except socket.timeout:
        pass
    except OSError:
        closed_after = time.time() - start
        break
s.close()
check("slowloris (1 byte / 0.2 s)", status_of(answer) == 408 and closed_after is not None and sent < len(head),
      "status %s after %.1f s and %d of its %d bytes (limit %.1f s)"
      % (status_of(answer), closed_after or -1, sent, len(head), request_timeout))

# ---- 1,000 connections at once -----------------------------------------------------------------

soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if soft < 1200:
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(max(1200, soft), hard), hard))
flood = []
refused_connect = 0
for _ in range(1000):
    try:
        flood.append(connect())
    except OSError:
        refused_connect += 1
selector = selectors.DefaultSelector()
for s in flood:
    s.setblocking(False)
    selector.register(s, selectors.EVENT_READ)
statuses = {}
answered = 0
deadline = time.time() + request_timeout + 2 * PATIENCE
while answered < len(flood) and time.time() < deadline:
    for key, _ in selector.select(timeout=0.5):
        try:
            data = key.fileobj.recv(4096)
        except OSError:
            data = b""
        code = status_of(data)
        statuses[code] = statuses.get(code, 0) + 1
        answered += 1
        selector.unregister(key.fileobj)
for s in flood:
    s.close()
selector.close()
state = status_json()
largest = state and state["largestConnections"]
check("1,000 connections",
      answered == len(flood) and set(statuses) <= {503, 408} and statuses.get(503, 0) >= len(flood) // 2
      and largest is not None and largest <= max_connections,
      "%d connected, %d refused at connect; answers %s; at most %s open at once (limit %d)"
      % (len(flood), refused_connect, dict(sorted((str(k), v) for k, v in statuses.items())), largest, max_connections))

# ---- Slow clients holding every slot do not keep the page's holder out ------------------------
# More slow clients than slots trickle a request that never ends and reconnect at once whenever
# they are answered or closed; meanwhile the holder of the token asks for the status a bounded
# number of times. A newcomer takes the slot of the slowest request, so the holder gets in.

SLOW_CLIENTS = max_connections + 8
HOLDER_TRIES = 20
slow_head = b"GET / HTTP/1.1\r\nX-Slow: "


def open_slow():
    try:
        s = connect()
    except OSError:
        return None
    s.setblocking(False)
    try:
        s.send(slow_head)
    except OSError:
        pass
    return s


slow_clients = [open_slow() for _ in range(SLOW_CLIENTS)]
reconnected = 0
holder_ok = 0
holder_codes = {}
holder_tries = 0
evicted = None
start = time.time()
next_trickle = start
# From when every slot is taken until well past the moment the first slow clients time out and
# all come back at once.
next_holder = start + 0.5
holder_every = (request_timeout * 2) / HOLDER_TRIES
while holder_tries < HOLDER_TRIES and time.time() - start < 3 * request_timeout + 4 * PATIENCE:
    # Every slow client that was answered or closed comes back at once; the others send a byte.
    trickle = time.time() >= next_trickle
    if trickle:
        next_trickle = time.time() + 0.2
    for index, s in enumerate(slow_clients):
        alive = s is not None
        if alive:
            try:
                s.recv(4096)
                alive = False  # answered (408, or 503 to make room) or closed
            except BlockingIOError:
                alive = True
            except OSError:
                alive = False
        if alive and trickle:
            try:
                s.send(b"a")
            except BlockingIOError:
                pass
            except OSError:
                alive = False
        if not alive:
            if s is not None:
                s.close()
            slow_clients[index] = open_slow()
            reconnected += 1
    if time.time() < next_holder:
        # Wait for what this loop acts on: a slow client answered or closed, or the next trickle or
        # holder's turn, whichever comes first.
        live = [s for s in slow_clients if s is not None]
        wake = min(next_holder, next_trickle) - time.time()
        if live and wake > 0:
            select.select(live, [], [], wake)
        continue
    next_holder += holder_every
    holder_tries += 1
    code, text = exchange(request("GET", "/status"))
    holder_codes[code] = holder_codes.get(code, 0) + 1
    if code == 200:
        holder_ok += 1
        evicted = json.loads(text.split("\r\n\r\n", 1)[1])["evicted"]
for s in slow_clients:
    if s is not None:
        s.close()
check("the holder among %d slow clients" % SLOW_CLIENTS, holder_ok * 2 > holder_tries and (evicted or 0) >= 1,
      "answered 200 in %d of %d tries (%s); %d slow reconnections; %s slow requests evicted"
      % (holder_ok, holder_tries, dict(sorted((str(k), v) for k, v in holder_codes.items())), reconnected, evicted))

# ---- A stream that never reads falls behind, is told so, and is let go -----------------------
# The flood dispatches the newest step the server reported (it keeps the newest
# maximumKeptSteps), so no step leaves the window however many the stream takes to fall behind;
# a 404 names the oldest step kept, which is dispatched instead. A 429 asks the flood to wait.

slow = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
slow.settimeout(PATIENCE)
slow.connect((HOST, PORT))
slow.sendall(request("GET", "/events?after=0"))
dispatched = 0
dropped = 0
target = step
answers = {}
deadline = time.time() + 3 * PATIENCE
while dispatched < 20000 and time.time() < deadline and sum(answers.values()) < 40000:
    code, text = dispatch_again(target)
    answers[code] = answers.get(code, 0) + 1
    if code == 429:
        # The app is behind on the commands queued; a status round trip is answered once the
        # server's thread comes back to it, and the flood tries again after it.
        status_json()
        continue
    if code == 404:
        oldest = re.search(r"oldest kept is step (\d+)", text)
        if oldest is None or answers[404] > 20:
            break
        target = int(oldest.group(1))
        continue
    if code != 202:
        break
    dispatched += 1
    if dispatched % 100 == 0:
        state = status_json()
        if state and state["droppedStreams"] >= 1:
            dropped = state["droppedStreams"]
            break
        if state and state["newest"] > target:
            target = state["newest"]
check("flood: dispatch again", dropped >= 1 and set(answers) <= {202, 404, 429} and answers.get(404, 0) <= 20,
      "%d dispatched until the stream was dropped; answers %s"
      % (dispatched, dict(sorted((str(k), v) for k, v in answers.items()))))
received = b""
slow.settimeout(2)
deadline = time.time() + PATIENCE
while time.time() < deadline:
    try:
        chunk = slow.recv(65536)
    except socket.timeout:
        continue
    except OSError:
        break
    if not chunk:
        break
    received += chunk
slow.close()
told = b"event: dropped" in received
tail = received[received.rfind(b"event: dropped"):][:80].decode("utf-8", "replace").replace("\n", " ")
check("slow stream (never reads)", dropped >= 1 and told,
      "dropped after %d dispatched steps; its last event: %s" % (dispatched, tail))

# ---- The server still serves, and holds no more than it should --------------------------------

code, text = exchange(request("GET", "/"))
check("the page after all that", code == 200 and "inspector-live" in text, "status %s, %d bytes" % (code, len(text)))
state = status_json()
check("bounded afterwards", state is not None and state["connections"] <= 1 and state["streams"] == 0
      and state["largestQueuedBytes"] <= queue_limit + 256 * 1024,
      "connections %s, streams %s, largest queue %s bytes (limit %d + one update)"
      % (state and state["connections"], state and state["streams"], state and state["largestQueuedBytes"], queue_limit))

width = max(len(r[0]) for r in rows)
for name, result, detail in rows:
    print("%-*s  %-4s  %s" % (width, name, result, detail))
print("hostile clients: %d checks, %d failed" % (len(rows), len(failures)))
sys.exit(1 if failures else 0)
