#!/usr/bin/env python3
"""The live inspector in a real browser: `Example --inspect` driven through Debian's Chromium.

    python3 .ci/inspector-live-test.py EXAMPLE_BINARY LOG_DIR

Starts the Example with --inspect (it prints the URL and runs its four log-in scenarios, then runs
them again at each line of input), opens the page in headless Chromium, and checks: the page has
the steps of the first round; steps of a second round appear while the page stays open; "Jump app
to this step" adds a JumpedToStep step whose state is the selected step's; "Dispatch this action
again" adds the same action again; pause stops recording while the app goes on, and resume records
what changed as one RecordingResumed step; the offline export and the Redux DevTools export work;
no console error. Ends the Example by closing its input. Every wait has a deadline.
"""
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

binary, log_dir = sys.argv[1], sys.argv[2]
os.makedirs(log_dir, exist_ok=True)
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what, flush=True)
    if not condition:
        failures.append(what)


app = subprocess.Popen([binary, "--inspect", "--inspect-for", "300"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, bufsize=1, env=dict(os.environ, NSUnbufferedIO="YES"))
lines = queue.Queue()


def pump_output():
    for line in app.stdout:
        lines.put(line.rstrip("\n"))
    lines.put(None)


threading.Thread(target=pump_output, daemon=True).start()
output = open(os.path.join(log_dir, "example-inspect.log"), "w")


def wait_line(pattern, seconds=120):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            continue
        if line is None:
            raise SystemExit("the Example ended while waiting for: " + pattern)
        output.write(line + "\n")
        found = re.search(pattern, line)
        if found:
            return found
    raise SystemExit("no line like %r within %d s" % (pattern, seconds))


def wait_until(what, condition, seconds=30):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    check(False, what + " (within %d s)" % seconds)
    return None


url = wait_line(r"^inspector: (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{32})$").group(1)
first = int(wait_line(r"^live: round 1 .* (\d+) steps recorded").group(1))
print("live page: %s (%d steps after round 1)" % (url.split("?")[0], first), flush=True)

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900", "--disable-dev-shm-usage",
             "--no-first-run", "--disable-background-networking"):
    options.add_argument(flag)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
js = driver.execute_script
try:
    driver.get(url)
    wait_until("the live page renders and connects",
               lambda: js("return document.body.dataset.ready === '1' && document.body.dataset.live === 'connected'"))
    check(js("return window.inspector.data.steps.length") == first, "the page has round 1's %d steps" % first)
    check(js("return document.querySelector('meta[http-equiv=Content-Security-Policy]').content").endswith(
        "connect-src 'self'"), "the page's policy adds only connect-src 'self'")

    # Steps appear as the app commits them.
    app.stdin.write("\n")
    app.stdin.flush()
    second = int(wait_line(r"^live: round 2 .* (\d+) steps recorded").group(1))
    shown = wait_until("round 2's steps appear on the open page",
                       lambda: js("return window.inspector.data.steps.length") == second and second)
    check(shown == second and second > first, "round 2: %d steps shown, no reload" % second)
    check(js("return window.inspector.data.runs.length") >= 8, "round 2's runs are on the page")
    driver.save_screenshot(os.path.join(log_dir, "live-1-round-2.png"))

    # Jump the app to a recorded state.
    target = js("return window.inspector.data.steps.findIndex(s => s[2] === 'SignedIn') + 1")
    js("window.inspector.select(arguments[0])", target)
    number = js("return window.inspector.stepNumber()")
    driver.find_element(By.ID, "livejump").click()
    wait_until("a JumpedToStep step appears",
               lambda: js("const s = window.inspector.data.steps; return s[s.length - 1][2] === 'JumpedToStep'"))
    same = js("const s = window.inspector.data.steps.length;"
              "return JSON.stringify(window.inspector.state(s)) === JSON.stringify(window.inspector.state(arguments[0]))",
              target)
    check(same, "after the jump, the app's state is step %d's" % number)
    check(js("return window.inspector.stepNumber()") == number, "the selected step stays selected while steps arrive")
    check("jumped" in driver.find_element(By.ID, "livemessage").text, "the page says it jumped")

    # Dispatch a recorded action again.
    banner = js("return window.inspector.data.steps.findIndex(s => s[2] === 'ShowBanner') + 1")
    js("window.inspector.select(arguments[0])", banner)
    before = js("return window.inspector.data.steps.length")
    driver.find_element(By.ID, "liveagain").click()
    wait_until("the action dispatched again appears",
               lambda: js("const s = window.inspector.data.steps; return s.length === arguments[0] + 1 && s[s.length - 1][2] === 'ShowBanner'", before))
    again = js("const s = window.inspector.data.steps; return JSON.stringify(s[s.length - 1][3]) === JSON.stringify(s[arguments[0] - 1][3])", banner)
    check(again, "the action dispatched again is the recorded one (through the registry's coding)")
    driver.save_screenshot(os.path.join(log_dir, "live-2-jump-and-dispatch.png"))

    # Pause: the app goes on, nothing is recorded; resume records what changed as one step.
    driver.find_element(By.ID, "livepause").click()
    wait_until("the page says paused", lambda: js("return document.body.dataset.live") == "paused")
    paused_at = js("return window.inspector.data.steps.length")
    app.stdin.write("\n")
    app.stdin.flush()
    wait_line(r"^live: round 3 ")
    wait_until("the page counts the actions not recorded",
               lambda: re.search(r"\((\d+) actions not recorded\)", driver.find_element(By.ID, "livestatus").text))
    check(js("return window.inspector.data.steps.length") == paused_at, "no step recorded while paused")
    driver.save_screenshot(os.path.join(log_dir, "live-3-paused.png"))
    driver.find_element(By.ID, "livepause").click()
    # The app made new stores while paused: the recorder marks where the last one begins (its
    # diff: the state then), then RecordingResumed (its diff: what that store changed since).
    resumed = wait_until("a RecordingResumed step appears",
                         lambda: js("const s = window.inspector.data.steps; return s.length > arguments[0] && s[s.length - 1][2] === 'RecordingResumed' && s.slice(arguments[0]).map(x => x[2])", paused_at))
    check(resumed is not None and len(resumed) <= 2, "resumed: %s" % resumed)
    check(js("return document.body.dataset.live") == "connected", "recording again")
    changed = js("return window.inspector.data.steps.slice(arguments[0]).some(x => x[4].length > 0)", paused_at)
    check(changed, "the steps after resuming hold, in their diffs, what changed while paused")

    # Exports.
    offline = driver.execute_async_script(
        "const done = arguments[0]; fetch(document.getElementById('livesave').href).then(r => r.text()).then(done, e => done(String(e)))")
    check(offline.startswith("<!DOCTYPE html>") and "inspector-live" not in offline and "connect-src" not in offline,
          "Save offline page: the offline page, with no live script and no connect-src")
    lifted = json.loads(js("return JSON.stringify(window.inspector.devToolsExport())"))
    check(len(lifted["computedStates"]) == js("return window.inspector.data.steps.length") + 1,
          "the Redux DevTools export has every live step")

    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not errors, "no console error" + (": " + json.dumps(errors)[:600] if errors else ""))
    driver.save_screenshot(os.path.join(log_dir, "live-4-resumed.png"))
finally:
    driver.quit()
    try:
        app.stdin.close()
    except OSError:
        pass
    try:
        code = app.wait(timeout=60)
    except subprocess.TimeoutExpired:
        app.kill()
        code = None
    check(code == 0, "the Example stops at the end of its input (exit %s)" % code)
    while True:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            break
        if line is None:
            break
        output.write(line + "\n")
    output.close()

print("live inspector: %d failed" % len(failures))
sys.exit(1 if failures else 0)
