#!/usr/bin/env python3
"""Times a large inspector page in headless Chromium: a benchmark, never a test (nothing asserted).

    python3 .ci/inspector-page-benchmark.py PAGE [RUNS]

Opens PAGE (written by `swift run -c release Benchmarks --inspector-page DIR 100000`) RUNS times
(default 3) in Debian's Chromium, driven by selenium (nothing is downloaded), and prints, measured
in the page with performance.now() and marks:
  - first steps painted: from navigation start to the first frame after the page drew its list
    (the mark `inspector-painted`), and the page ready: the selected last step's diff and runs
    drawn after that frame (`inspector-ready`);
  - select the last step: `inspector.select(last)` after selecting the first, with the layout it
    forces;
  - search: typing a query into the search box (one input event) and the layout, right after the
    page is ready (its search index not built yet: cold) and once the page is idle (warm);
  - the Redux DevTools export: whether it downloads or says in the page why not.
Prints one row per figure with the median and the range over the runs.
"""
import os
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

page = os.path.abspath(sys.argv[1])
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900",
                 "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_for(driver, script, what, seconds=120):
    deadline = time.time() + seconds
    while not driver.execute_script(script):
        if time.time() > deadline:
            raise SystemExit(f"{what}: not within {seconds} s")
        time.sleep(0.02)


def timed(driver, body):
    """Runs `body` (JavaScript) in the page and returns its milliseconds, layout included."""
    return driver.execute_script(
        "const t0 = performance.now();" + body + ";"
        "document.body.offsetHeight; document.getElementById('steps').scrollTop;"
        "return performance.now() - t0;")


figures = {}
notes = []
driver = browser()
try:
    for run in range(runs):
        driver.get("file://" + page)
        wait_for(driver, "return document.body.dataset.ready === '1'", "the page's first render")
        wait_for(driver, "return performance.getEntriesByName('inspector-painted').length > 0", "the first paint")
        steps = driver.execute_script("return window.inspector.data.steps.length")
        mark = lambda name: driver.execute_script(
            "return performance.getEntriesByName(arguments[0])[0].startTime", name)
        figures.setdefault("first steps painted (navigation start to the first frame)", []).append(mark("inspector-painted"))
        figures.setdefault("  of which: data parsed, list drawn", []).append(mark("inspector-list"))
        figures.setdefault("page ready (then the last step's diff and runs drawn)", []).append(mark("inspector-ready"))
        rows = driver.execute_script("return window.inspector.renderedRows()")

        cold = timed(driver, "const s = document.getElementById('search'); s.value = '9999'; s.dispatchEvent(new Event('input'))")
        shown = driver.execute_script("return window.inspector.shownSteps()")
        timed(driver, "const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input'))")
        figures.setdefault("search '9999', cold (index built by the search)", []).append(cold)

        driver.execute_script("window.inspector.select(1)")
        figures.setdefault("select the last step (after the first)", []).append(
            timed(driver, "window.inspector.select(window.inspector.data.steps.length)"))
        figures.setdefault("select a step in the middle", []).append(
            timed(driver, "window.inspector.select(Math.floor(window.inspector.data.steps.length / 2))"))

        time.sleep(2)  # the page builds its search index while idle
        warm = timed(driver, "const s = document.getElementById('search'); s.value = '9999'; s.dispatchEvent(new Event('input'))")
        figures.setdefault("search '9999', warm (index built while idle)", []).append(warm)
        timed(driver, "const s = document.getElementById('search'); s.value = ''; s.dispatchEvent(new Event('input'))")

        if run == 0:
            size = driver.execute_script("return window.inspector.devToolsSize()")
            limit = driver.execute_script("return window.inspector.exportLimit")
            driver.execute_script("document.getElementById('devtools').click()")
            notice = driver.execute_script("return document.getElementById('notice').textContent")
            errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
            notes.append(f"{steps} steps, {rows} rows in the DOM, search '9999' shows {shown} steps")
            notes.append(f"Redux DevTools export: about {size / 1048576:.0f} MB against the page's limit of "
                         f"{limit / 1048576:.0f} MB; the page says: {notice!r}; console errors: {errors}")
finally:
    driver.quit()

print(f"inspector page in headless Chromium, {runs} runs: {page}")
for note in notes:
    print("  " + note)
for name, values in figures.items():
    print(f"  {name:<58} median {statistics.median(values):8.1f} ms   (min {min(values):.1f}, max {max(values):.1f})")
