#!/usr/bin/env python3
"""The inspector page in a real browser: Debian's Chromium, headless, driven by selenium.

    python3 .ci/inspector-browser-test.py EXAMPLE_PAGE HOSTILE_PAGE EXPECTED_STEPS LOG_DIR

Opens the Example's page and a page of hostile strings written by a test, and checks: no console
error, no network request, the step count, the diff of a known step, node colours at a chosen step,
search and filters, the Redux DevTools export's shape, and that hostile strings are text. Saves
PNG screenshots in LOG_DIR. Selenium is pointed at /usr/bin/chromium and /usr/bin/chromedriver:
nothing is downloaded.
"""
import json
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

example_page, hostile_page, expected_steps, log_dir = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
os.makedirs(log_dir, exist_ok=True)
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                 "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def open_page(driver, path):
    url = "file://" + os.path.abspath(path)
    driver.get_log("performance")  # forget what came before
    driver.get(url)
    deadline = time.time() + 30
    while driver.execute_script("return document.body.dataset.ready") != "1":
        if time.time() > deadline:
            raise SystemExit("the page did not render within 30 s: " + path)
        time.sleep(0.05)
    return url


def quiet(driver, url, name):
    errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    check(errors == [], f"{name}: no console error or warning {errors}")
    requests = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requested = message["params"]["request"]["url"]
            if requested != url:
                requests.append(requested)
    check(requests == [], f"{name}: no network request besides the page itself {requests}")
    resources = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    check(resources == [], f"{name}: the page loaded no resource {resources}")


def step_index(driver, action_type, nth=0):
    return driver.execute_script(
        "const s = window.inspector.data.steps; let k = arguments[1];"
        "for (let i = 0; i < s.length; i++) if (s[i][2] === arguments[0] && k-- === 0) return i + 1; return -1;",
        action_type, nth)


def visible_steps(driver):
    """Steps that pass the filters (the list is virtual: only the rows in view are in the DOM)."""
    return driver.execute_script("return window.inspector.shownSteps()")


def node_status(driver, label):
    return driver.execute_script(
        "for (const g of document.querySelectorAll('#dag g.node'))"
        "  if (g.querySelector('title').textContent.startsWith(arguments[0] + ' (')) return g.dataset.status;"
        "return null;", label)


driver = browser()
try:
    # ---- The Example's page
    url = open_page(driver, example_page)
    driver.save_screenshot(os.path.join(log_dir, "example-last-step.png"))
    steps = driver.execute_script("return window.inspector.data.steps.length")
    check(steps == expected_steps, f"example: {steps} steps, as the Example printed ({expected_steps})")
    check(visible_steps(driver) == steps, "example: every step is in the list")
    rows = len(driver.find_elements(By.CSS_SELECTOR, "#steps .step"))
    check(0 < rows <= min(steps + 1, 80), f"example: only the rows in view are in the DOM ({rows})")

    signed_in = step_index(driver, "SignedIn")
    driver.execute_script("window.inspector.select(arguments[0])", signed_in)
    diff = driver.find_element(By.ID, "diffview").text
    check("-   session: nil" in diff and "+   session: Session(token: <redacted>, user: \"ada\")" in diff,
          "example: the diff of the first SignedIn shows the session set, its token redacted\n" + diff)
    check("… (6 unchanged)" in diff, "example: unchanged fields are folded")

    # The failing-feed scenario (store #2): its fallback step shows the feed failed and home skipped.
    banner = step_index(driver, "ShowBanner")
    driver.execute_script("window.inspector.select(arguments[0])", banner)
    check(node_status(driver, "fetch feed") == "failed", "example: at the fallback's step, the feed node is failed")
    check(node_status(driver, "show home") == "skipped", "example: at the fallback's step, home is skipped")
    check(node_status(driver, "fetch profile") == "succeeded", "example: ... and the profile succeeded")
    fill = driver.execute_script(
        "const g = [...document.querySelectorAll('#dag g.node')].find(g => g.dataset.status === 'failed');"
        "return getComputedStyle(g.querySelector('rect')).fill")
    check(fill == "rgb(217, 48, 37)", f"example: a failed node is drawn red ({fill})")
    driver.execute_script(
        "const run = window.inspector.data.runs.find(r => r.store === 2);"
        "window.inspector.chooseNode(run.nodes.find(n => n.label === 'fetch feed').index)")
    info = driver.find_element(By.ID, "nodeinfo").text
    check("failed" in info and "error" in info, "example: a node's details show its outcome and error")
    driver.save_screenshot(os.path.join(log_dir, "example-failed-feed.png"))

    start = step_index(driver, "StartLoading", 1)  # store #2's first step
    driver.execute_script("window.inspector.select(arguments[0])", start)
    check(node_status(driver, "show home") == "pending", "example: at store #2's first step, home is still pending")

    # Filters and search.
    type_select = driver.find_element(By.ID, "type")
    driver.execute_script("arguments[0].value = 'StartLoading'; arguments[0].dispatchEvent(new Event('change'))", type_select)
    check(visible_steps(driver) == 4, "example: the StartLoading filter shows the four scenarios' StartLoading")
    driver.execute_script("arguments[0].value = ''; arguments[0].dispatchEvent(new Event('change'))", type_select)
    search = driver.find_element(By.ID, "search")
    search.send_keys("could not load")
    check(visible_steps(driver) == 1, "example: searching the banner's text finds its one step")
    search.clear()
    driver.execute_script("document.getElementById('search').dispatchEvent(new Event('input'))")
    changed = driver.execute_script("return window.inspector.data.steps.filter(s => s[4].length).length")
    driver.find_element(By.ID, "hide").click()
    check(visible_steps(driver) == changed, f"example: hiding steps that changed nothing leaves {changed}")
    driver.find_element(By.ID, "hide").click()

    # The Redux DevTools export.
    lifted = json.loads(driver.execute_script("return JSON.stringify(window.inspector.devToolsExport())"))
    keys = {"actionsById", "computedStates", "committedState", "currentStateIndex", "nextActionId",
            "skippedActionIds", "stagedActionIds"}
    check(keys <= set(lifted), "devtools: the lifted state has every key")
    check(len(lifted["actionsById"]) == steps + 1 and lifted["actionsById"]["0"]["action"]["type"] == "@@INIT",
          "devtools: one PERFORM_ACTION per step, after @@INIT")
    check(all(a["type"] == "PERFORM_ACTION" and "timestamp" in a for a in lifted["actionsById"].values()),
          "devtools: every entry is a PERFORM_ACTION with a timestamp")
    check(len(lifted["computedStates"]) == steps + 1 and lifted["currentStateIndex"] == steps
          and lifted["nextActionId"] == steps + 1 and lifted["stagedActionIds"] == list(range(steps + 1))
          and lifted["skippedActionIds"] == [], "devtools: states, staged ids and indices agree")
    check(lifted["computedStates"][signed_in]["state"]["session"]["token"] == "<redacted>",
          "devtools: the state after SignedIn has the session, redacted")
    size = driver.execute_script("return window.inspector.devToolsBlob().size")
    check(size > 1000 and driver.find_element(By.ID, "notice").get_attribute("hidden") is not None,
          f"devtools: the export button's file is built in parts as a Blob ({size} bytes), with no message")

    # The live page's entry point: a step appended shows in the list, the count and the filters.
    driver.execute_script("window.inspector.select(window.inspector.data.steps.length)")
    driver.execute_script(
        "const s = window.inspector.data.steps; const last = s[s.length - 1];"
        "window.inspector.appendStep([last[0] + 1, last[1] + 1, 'Appended\u202E', last[3], [], null, Math.abs(last[6])])")
    check(visible_steps(driver) == steps + 1, "appendStep: the list has the new step")
    check(driver.execute_script("return window.inspector.stepNumber()") == steps + 1,
          "appendStep: a selection on the last step follows the new one")
    head = driver.find_element(By.ID, "stephead").get_attribute("textContent")
    check("Appended\\u{202E}" in head, "appendStep: its heading escapes what it shows: " + head)
    option = driver.execute_script("return [...document.querySelectorAll('#type option')].map(o => o.textContent).join('|')")
    check("Appended\\u{202E} (1)" in option, "appendStep: the type menu counts it")
    buttons = driver.execute_script(
        "window.inspector.render(); const d = window.inspector.data;"
        "return document.querySelectorAll('#runs button').length - d.runs.length - d.asyncActions.length")
    check(buttons == 0 and visible_steps(driver) == steps + 1, "render: draws the runs and the list again")
    quiet(driver, url, "example")

    # ---- Hostile strings
    url = open_page(driver, hostile_page)
    check(driver.title == "</title><script>alert(1)</script>", "hostile: the title is text")
    check(driver.execute_script("return document.body.dataset.pwned") is None, "hostile: no injected script ran")
    check(driver.find_elements(By.CSS_SELECTOR, "#content img, #steps img") == [], "hostile: no injected element")
    hostile = driver.execute_script("return window.inspector.data.steps.length")
    texts = []
    for i in range(1, hostile + 1):
        driver.execute_script("window.inspector.select(arguments[0])", i)
        texts.append(driver.find_element(By.ID, "diffview").get_attribute("textContent"))
    joined = "\n".join(texts)
    for needle in ["</script><script>document.body.dataset.pwned = 1</script>", "<!-- an open comment",
                   "<img src=x onerror=", "quotes \\\" and ' and `back`", "]]></script><![CDATA[",
                   "right-to-left \\u{202E}txet\\u{202C} and \\u{200F}marks\\u{200E}",
                   "control \\u{0}\\u{1}\\u{7}\\u{1B}[31m and \\u{2028}\\u{2029} line ends"]:
        check(needle in joined, "hostile: shown as text: " + needle)
    for raw in ["\u202e", "\u202c", "\u200f", "\u2028", "\u0007"]:
        check(raw not in joined, f"hostile: U+{ord(raw):04X} is never rendered in a diff")

    # A file name that renders as "invoiceexe.pdf" is shown with its bidi override escaped: in the
    # diff, the graph's node label, the node's heading, the timeline, the step list and search.
    spoofed = "invoice\\u{202E}fdp.exe\\u{202C}"
    set_notes = step_index(driver, "SetNotes")
    driver.execute_script("window.inspector.select(arguments[0])", set_notes)
    driver.find_element(By.CSS_SELECTOR, "#steptabs button[data-tab=diff]").click()
    diff = driver.find_element(By.ID, "diffview").get_attribute("textContent")
    check(f'"{spoofed}"' in diff and "\u202e" not in diff, "spoof: the diff shows the escape\n" + diff)
    run_nodes = driver.execute_script("return window.inspector.data.runs[0].nodes.map(n => n.label)")
    spoof_node = next(i for i, label in enumerate(run_nodes) if label.startswith("invoice"))
    driver.execute_script("window.inspector.chooseRun(0); window.inspector.chooseNode(arguments[0])", spoof_node)
    label = driver.execute_script(
        "const g = document.querySelector('#dag g.node[data-index=\"' + arguments[0] + '\"]');"
        "return g.querySelector('text').textContent + '|' + g.querySelector('title').textContent", spoof_node)
    check(label.startswith(spoofed + "|" + spoofed) and "\u202e" not in label, "spoof: the node label and tooltip show the escape: " + label)
    heading = driver.find_element(By.CSS_SELECTOR, "#nodeinfo h3").get_attribute("textContent")
    check(heading == spoofed, "spoof: the node's heading shows the escape: " + heading)
    timeline = driver.find_element(By.ID, "timeline").get_attribute("textContent")
    check(spoofed in timeline and "\u202e" not in timeline, "spoof: the timeline shows the escape")
    search = driver.find_element(By.ID, "search")
    search.send_keys("fdp.exe")
    rows = driver.execute_script("return [...document.querySelectorAll('#steps .step')].map(r => r.textContent)")
    check(visible_steps(driver) >= 1 and any("SetNotes" in r for r in rows), f"spoof: search finds the step {rows}")
    search.clear()
    driver.execute_script("document.getElementById('search').dispatchEvent(new Event('input'))")
    page_text = driver.execute_script("return document.querySelector('header').textContent + document.querySelector('main').textContent")
    check(all(c not in page_text for c in ["\u202e", "\u202c", "\u200b", "\u2028"]),
          "spoof: no bidi control, zero-width character or line separator anywhere in the page's text")
    driver.execute_script("window.inspector.select(arguments[0])", hostile)
    driver.find_element(By.CSS_SELECTOR, "#steptabs button[data-tab=state]").click()
    time.sleep(0.2)  # the tree builds its children on the toggle event
    big = driver.execute_script("return document.querySelector('#stepbody .tree').textContent.length")
    check(big > 1_000_000, f"hostile: the 1 MB value is shown whole, as text ({big} characters)")
    driver.execute_script("window.inspector.chooseRun(0); window.inspector.chooseNode(0)")
    info = driver.find_element(By.ID, "nodeinfo").get_attribute("textContent")
    check("</script><b>boom</b>" in info, "hostile: a node's label and error are text")
    driver.save_screenshot(os.path.join(log_dir, "hostile.png"))
    quiet(driver, url, "hostile")
finally:
    driver.quit()

print(f"\n{len(failures)} failed" if failures else "\nevery browser check passed")
sys.exit(1 if failures else 0)
