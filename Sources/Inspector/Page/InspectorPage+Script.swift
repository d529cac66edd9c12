extension InspectorPage {
    /// The page's script: reads the embedded data, rebuilds states from the patches, and draws the
    /// step list, the diff, the state, the graph at the selected step, the timeline and the exports.
    static let script = #"""
        "use strict";
        (function () {
          const D = JSON.parse(document.getElementById("inspector-data").textContent);
          const steps = D.steps; // [number, timeMs, type, action, edits, origin, store (negative: a new store starts)]
          const storeName = (n) => (D.stores > 1 ? " in store #" + Math.abs(n) : "");
          const $ = (id) => document.getElementById(id);

          // ---- Text: every recorded string reaches the page through displayText, in setText and
          // textNode (the only writers of text), so bidi controls, zero-width and other invisible
          // characters, controls and line separators show as escapes (`\u{202E}`), never rendered.
          // The set is UntrustedText's, in Swift.
          const UNSAFE = /\#(UntrustedText.javaScriptClass)/gu;
          function displayText(text, keepLines) {
            const s = String(text);
            UNSAFE.lastIndex = 0;
            if (!UNSAFE.test(s)) return s;
            UNSAFE.lastIndex = 0;
            return s.replace(UNSAFE, (c) =>
              keepLines && (c === "\n" || c === "\t") ? c : c === "\n" ? "\\n" : c === "\r" ? "\\r" : c === "\t" ? "\\t"
                : "\\u{" + c.codePointAt(0).toString(16).toUpperCase() + "}");
          }
          function setText(node, text, keepLines) {
            node.textContent = text == null ? "" : displayText(text, keepLines);
          }
          function textNode(text) {
            return document.createTextNode(displayText(text));
          }
          function el(tag, cls, text) {
            const e = document.createElement(tag);
            if (cls) e.className = cls;
            if (text != null) setText(e, text);
            return e;
          }
          const SVG = "http://www.w3.org/2000/svg";
          function sv(tag, attrs, text) {
            const e = document.createElementNS(SVG, tag);
            for (const k in attrs) e.setAttribute(k, attrs[k]);
            if (text != null) setText(e, text);
            return e;
          }

          // ---- Described values: ["o", type, [[label, v]]], ["e", type, name, [[label, v]]], ["a", type, [v]],
          // ["d", type, [[k, v]]], ["s", text, fullLength?], ["v", type, text], ["n", type], ["r"], ["t", type]
          // A string as a Swift literal: quotes and backslashes escaped here, the rest by displayText.
          function quote(s) {
            return '"' + s.replace(/[\\"]/g, "\\$&") + '"';
          }
          function fieldsOf(v) {
            return v[0] === "o" ? v[2] : v[0] === "e" ? v[3] : null;
          }
          function short(v, budget) {
            budget = budget || 200;
            let out = "";
            function w(v) {
              if (out.length > budget) return;
              switch (v[0]) {
                case "s": out += quote(v[1].length > budget ? v[1].slice(0, budget) + "…" : v[1]); break;
                case "v": out += v[2]; break;
                case "n": out += "nil"; break;
                case "r": out += "<redacted>"; break;
                case "t": out += v[1] + "(…)"; break;
                case "o": case "e": {
                  out += v[0] === "o" ? (v[1].startsWith("(") ? "" : v[1]) : "." + v[2];
                  const f = fieldsOf(v);
                  if (v[0] === "e" && f.length === 0) break;
                  out += "(";
                  f.forEach((x, i) => { if (i) out += ", "; if (x[0] != null) out += x[0] + ": "; w(x[1]); });
                  out += ")";
                  break;
                }
                case "a":
                  out += "[";
                  for (let i = 0; i < v[2].length; i++) { if (i) out += ", "; if (out.length > budget) { out += "…"; break; } w(v[2][i]); }
                  out += "]";
                  break;
                case "d":
                  out += v[2].length ? "[" : "[:";
                  for (let i = 0; i < v[2].length; i++) { if (i) out += ", "; if (out.length > budget) { out += "…"; break; } w(v[2][i][0]); out += ": "; w(v[2][i][1]); }
                  out += "]";
                  break;
              }
            }
            w(v);
            return out.length > budget + 40 ? out.slice(0, budget) + "…" : out;
          }
          // Multi-line, custom-dump style; pushes [sign, text] into out.
          function dump(v, indent, prefix, sign, out, limit) {
            if (out.length > limit) return;
            const pad = " ".repeat(indent);
            const one = short(v, 100);
            const kids = v[0] === "a" || v[0] === "d" ? v[2] : fieldsOf(v);
            if (!kids || kids.length === 0 || (one.length + indent + prefix.length < 100 && !one.endsWith("…"))) {
              out.push([sign, pad + prefix + one]);
              return;
            }
            const open = v[0] === "o" ? (v[1].startsWith("(") ? "(" : v[1] + "(") : v[0] === "e" ? "." + v[2] + "(" : "[";
            const close = v[0] === "o" || v[0] === "e" ? ")" : "]";
            out.push([sign, pad + prefix + open]);
            for (let i = 0; i < kids.length; i++) {
              if (out.length > limit) { out.push([sign, pad + "  … (" + (kids.length - i) + " more)"]); break; }
              if (v[0] === "d") dump(kids[i][1], indent + 2, short(kids[i][0], 60) + ": ", sign, out, limit);
              else if (v[0] === "a") dump(kids[i], indent + 2, "", sign, out, limit);
              else dump(kids[i][1], indent + 2, kids[i][0] != null ? kids[i][0] + ": " : "", sign, out, limit);
            }
            out.push([sign, pad + close]);
          }

          // ---- States, rebuilt from the patches (copying only the edited paths), with checkpoints.
          // Copy on write: arrays made during one rebuild (`own`) are changed in place, the others
          // (shared with a checkpoint) are copied once, so a run of edits in one large collection
          // copies it once, not once per edit.
          function mine(own, a) {
            if (own.has(a)) return a;
            const c = a.slice();
            own.add(c);
            return c;
          }
          function setAt(node, path, k, fn, own) {
            if (k === path.length) return fn(node);
            const i = path[k];
            const c = mine(own, node);
            switch (node[0]) {
              case "o": case "d": { const f = (c[2] = mine(own, c[2])); f[i] = mine(own, f[i]); f[i][1] = setAt(f[i][1], path, k + 1, fn, own); break; }
              case "e": { const f = (c[3] = mine(own, c[3])); f[i] = mine(own, f[i]); f[i][1] = setAt(f[i][1], path, k + 1, fn, own); break; }
              case "a": { const f = (c[2] = mine(own, c[2])); f[i] = setAt(f[i], path, k + 1, fn, own); break; }
              default: return node;
            }
            return c;
          }
          function splice(node, hunks) {
            const c = node.slice();
            const list = [];
            let i = 0;
            for (const [at, removing, inserting] of hunks) {
              for (; i < at; i++) list.push(c[2][i]);
              for (const x of inserting) list.push(x);
              i = at + removing;
            }
            for (; i < c[2].length; i++) list.push(c[2][i]);
            c[2] = list;
            return c;
          }
          function applyEdits(state, edits, own) {
            for (const e of edits) {
              state = e[0] === "=" ? setAt(state, e[1], 0, () => e[2], own) : setAt(state, e[1], 0, (n) => splice(n, e[2]), own);
            }
            return state;
          }
          const every = 64;
          const checkpoints = [D.initial]; // checkpoints[k] = state after k * every kept steps
          // State after `count` kept steps (0 is the state before the first).
          function stateAfter(count) {
            while (checkpoints.length * every <= count) {
              let s = checkpoints[checkpoints.length - 1];
              const from = (checkpoints.length - 1) * every;
              const own = new Set();
              for (let j = from; j < from + every; j++) s = applyEdits(s, steps[j][4], own);
              checkpoints.push(s);
            }
            const k = Math.floor(count / every);
            let s = checkpoints[k];
            const own = new Set();
            for (let j = k * every; j < count; j++) s = applyEdits(s, steps[j][4], own);
            return s;
          }

          // ---- The diff of one step against the state before it, from its patch.
          function diffLines(prev, edits, limit) {
            const trie = { kids: new Map() };
            for (const e of edits) {
              let t = trie;
              for (const i of e[1]) { if (!t.kids.has(i)) t.kids.set(i, { kids: new Map() }); t = t.kids.get(i); }
              if (e[0] === "=") t.replace = e[2]; else t.splice = e[2];
            }
            const out = [];
            function walk(v, t, indent, prefix) {
              if (out.length > limit) return;
              const pad = " ".repeat(indent);
              if (t.replace !== undefined) {
                dump(v, indent, prefix, "-", out, limit);
                dump(t.replace, indent, prefix, "+", out, limit);
                return;
              }
              const isList = v[0] === "a" || v[0] === "d";
              const kids = isList ? v[2] : fieldsOf(v);
              if (!kids) return;
              const open = v[0] === "o" ? (v[1].startsWith("(") ? "(" : v[1] + "(") : v[0] === "e" ? "." + v[2] + "(" : "[";
              out.push([" ", pad + prefix + open]);
              let folded = 0;
              const fold = () => { if (folded) out.push(["…", pad + "  … (" + folded + " unchanged)"]); folded = 0; };
              const label = (i) => v[0] === "d" ? short(kids[i][0], 60) + ": " : v[0] === "a" ? "" : (kids[i][0] != null ? kids[i][0] + ": " : "");
              const child = (i) => v[0] === "a" ? kids[i] : kids[i][1];
              const hunks = new Map();
              for (const h of t.splice || []) hunks.set(h[0], h);
              for (let i = 0; i <= kids.length; i++) {
                const h = hunks.get(i);
                if (h) {
                  fold();
                  for (let r = i; r < i + h[1]; r++) dump(child(r), indent + 2, label(r), "-", out, limit);
                  for (const x of h[2]) {
                    if (v[0] === "d") dump(x[1], indent + 2, short(x[0], 60) + ": ", "+", out, limit);
                    else dump(x, indent + 2, "", "+", out, limit);
                  }
                  if (h[1] > 0) { i += h[1] - 1; continue; }
                }
                if (i === kids.length) break;
                const ct = t.kids.get(i);
                if (ct) { fold(); walk(child(i), ct, indent + 2, label(i)); } else folded++;
              }
              fold();
              out.push([" ", pad + (v[0] === "o" || v[0] === "e" ? ")" : "]")]);
            }
            walk(prev, trie, 0, "");
            if (out.length > limit) out.push(["…", "… (the diff goes on; see the State tab)"]);
            return out;
          }

          // ---- A value as a tree of <details>, children built when opened.
          function tree(v, label) {
            const kids = v[0] === "a" || v[0] === "d" ? v[2] : fieldsOf(v);
            if (!kids || kids.length === 0) {
              const d = el("div", "leaf");
              if (label) d.appendChild(el("span", "k", label + ": "));
              d.appendChild(textNode(v[0] === "s" ? quote(v[1]) + (v[2] ? "  (cut from " + v[2] + " characters)" : "") : short(v, 100000)));
              return d;
            }
            const det = el("details");
            const sum = el("summary");
            if (label) sum.appendChild(el("span", "k", label + ": "));
            sum.appendChild(textNode(short(v, 160)));
            det.appendChild(sum);
            det.addEventListener("toggle", () => {
              if (!det.open || det.dataset.built) return;
              det.dataset.built = "1";
              const max = Math.min(kids.length, 2000);
              for (let i = 0; i < max; i++) {
                if (v[0] === "a") det.appendChild(tree(kids[i], "[" + i + "]"));
                else if (v[0] === "d") det.appendChild(tree(kids[i][1], short(kids[i][0], 60)));
                else det.appendChild(tree(kids[i][1], kids[i][0] != null ? kids[i][0] : "." + i));
              }
              if (kids.length > max) det.appendChild(el("div", "leaf muted", "… " + (kids.length - max) + " more"));
            });
            return det;
          }
          function treeBox(v) {
            const box = el("div", "tree");
            const t = tree(v, "");
            if (t.tagName === "DETAILS") t.open = true;
            box.appendChild(t);
            return box;
          }

          // ---- Header
          function renderHeader() {
            document.title = displayText(D.title);
            setText($("title"), D.title);
            setText($("meta"), "state " + D.stateType + " · " + steps.length + " steps · " + D.runs.length + " runs · " + D.asyncActions.length + " async actions");
            if (D.droppedSteps > 0 || D.droppedRuns > 0 || D.droppedAsyncActions > 0) {
              const n = $("notice");
              n.hidden = false;
              setText(n, D.droppedSteps + " older steps, " + D.droppedRuns + " runs and " + D.droppedAsyncActions +
                " async actions were dropped to keep the recording within its limit of " + D.maximumSteps + " steps.");
            }
          }
          function notify(text) {
            const n = $("notice");
            n.hidden = false;
            setText(n, text);
          }

          // ---- Step list, filters, search. The list is virtual: `shown` holds the row numbers
          // that pass the filters (0 is the initial state, i the i-th kept step), the list holds a
          // spacer as tall as all of them, and only the rows in view (and a few around) are in the
          // DOM, each ROW pixels high. Filters and search rebuild `shown`, never the DOM's rows.
          const ROW = 22;
          const OVERSCAN = 10;
          const list = $("steps");
          const spacer = el("div", "spacer");
          list.appendChild(spacer);
          const types = new Map();
          const typeSelect = $("type");
          const typeOptions = new Map();
          let shown = [];
          let selected = 0; // kept steps applied: 0 is the initial state
          function countType(t) {
            types.set(t, (types.get(t) || 0) + 1);
            let o = typeOptions.get(t);
            if (!o) {
              o = el("option");
              o.value = t;
              typeOptions.set(t, o);
              const after = [...typeOptions.keys()].sort().find((k) => k > t);
              typeSelect.insertBefore(o, after ? typeOptions.get(after) : null);
            }
            setText(o, t + " (" + types.get(t) + ")");
          }
          function makeRow(i) {
            const r = el("div", "step");
            r.dataset.index = String(i);
            r.style.top = "0px";
            if (i === 0) {
              r.appendChild(el("span", "n", "0"));
              r.appendChild(el("span", "t", "initial state"));
              r.appendChild(el("span", "o", ""));
            } else {
              const s = steps[i - 1];
              if (!s[4].length) r.classList.add("nochange");
              if (s[6] < 0) r.classList.add("newstore");
              r.appendChild(el("span", "n", s[0]));
              r.appendChild(el("span", "t", s[2]));
              r.appendChild(el("span", "o", s[5] ? "run #" + s[5][0] + (s[5][2] === "node" ? "" : " " + s[5][2]) : (s[4].length ? "" : "no change")));
            }
            if (i === selected) r.classList.add("selected");
            return r;
          }
          // Draws the rows in view: at most a screenful and 2 * OVERSCAN.
          function renderRows() {
            spacer.style.height = shown.length * ROW + "px";
            const first = Math.max(0, Math.floor(list.scrollTop / ROW) - OVERSCAN);
            const last = Math.min(shown.length, Math.ceil((list.scrollTop + (list.clientHeight || 600)) / ROW) + OVERSCAN);
            const rows = [];
            for (let k = first; k < last; k++) {
              const r = makeRow(shown[k]);
              r.style.top = k * ROW + "px";
              rows.push(r);
            }
            spacer.replaceChildren(...rows);
          }
          list.addEventListener("scroll", () => renderRows(), { passive: true });
          // Where row `i` is in `shown` (sorted), or where it would go.
          function position(i) {
            let lo = 0, hi = shown.length;
            while (lo < hi) { const mid = (lo + hi) >> 1; if (shown[mid] < i) lo = mid + 1; else hi = mid; }
            return lo;
          }
          // What search looks in: the action's type and text and every changed value, as displayed.
          const searchText = [];
          function stepText(i) {
            const s = steps[i];
            let text = s[2] + " " + short(s[3], 4000);
            for (const e of s[4]) {
              if (e[0] === "=") text += " " + short(e[2], 4000);
              else for (const h of e[2]) for (const x of h[2]) text += " " + short(x, 4000);
            }
            return displayText(text).toLowerCase();
          }
          function indexSearch(upTo) {
            for (let i = searchText.length; i < upTo; i++) searchText.push(stepText(i));
          }
          // Builds the search index in slices while the page is idle, so a search finds it ready.
          function indexWhenIdle() {
            if (searchText.length >= steps.length) return;
            indexSearch(Math.min(steps.length, searchText.length + 5000));
            setTimeout(indexWhenIdle, 0);
          }
          function passes(i, type, hide, q) {
            if (i === 0) return !type && !q;
            const s = steps[i - 1];
            return (!type || s[2] === type) && (!hide || s[4].length > 0) && (!q || searchText[i - 1].includes(q));
          }
          function filters() {
            return { type: typeSelect.value, hide: $("hide").checked, q: displayText($("search").value.trim()).toLowerCase() };
          }
          function applyFilters() {
            const f = filters();
            if (f.q) indexSearch(steps.length);
            const next = [];
            for (let i = 0; i <= steps.length; i++) if (passes(i, f.type, f.hide, f.q)) next.push(i);
            shown = next;
            renderCount();
            renderRows();
          }
          function renderCount() {
            setText($("count"), (shown.length && shown[0] === 0 ? shown.length - 1 : shown.length) + " of " + steps.length + " steps");
          }
          typeSelect.addEventListener("change", applyFilters);
          $("hide").addEventListener("change", applyFilters);
          $("search").addEventListener("input", applyFilters);
          list.addEventListener("click", (e) => {
            const r = e.target.closest(".step");
            if (r) select(Number(r.dataset.index));
          });
          document.addEventListener("keydown", (e) => {
            if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
            if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
            const k = position(selected);
            const next = e.key === "ArrowDown" ? (shown[k] === selected ? k + 1 : k) : k - 1;
            if (next >= 0 && next < shown.length) { select(shown[next]); e.preventDefault(); }
          });

          // ---- Tabs
          let tab = "diff";
          document.querySelectorAll("#steptabs button").forEach((b) =>
            b.addEventListener("click", () => { tab = b.dataset.tab; renderStep(); }));

          function stepNumber() {
            return selected === 0 ? (steps.length ? steps[0][0] - 1 : D.droppedSteps) : steps[selected - 1][0];
          }
          function renderStep() {
            document.querySelectorAll("#steptabs button").forEach((b) => b.classList.toggle("on", b.dataset.tab === tab));
            const box = $("stepbody");
            box.replaceChildren();
            const s = selected ? steps[selected - 1] : null;
            setText($("stephead"), s ? "Step " + s[0] + ": " + s[2] + " at " + s[1].toFixed(3) + " ms" +
              (s[5] ? " · from run #" + s[5][0] + storeName(s[6]) + (s[5][1] != null ? " node " + s[5][1] : "") + " (" + s[5][2] + ")" : "") +
              (s[6] < 0 ? " · the recording of another store begins: its diff is that store's initial state" : "") : "The state before the first step");
            if (tab === "action") {
              box.appendChild(s ? treeBox(s[3]) : el("p", "muted", "No action: this is the initial state."));
            } else if (tab === "state") {
              box.appendChild(treeBox(stateAfter(selected)));
            } else if (tab === "diff") {
              const pre = el("pre", "diff");
              pre.id = "diffview";
              if (!s || s[4].length === 0) pre.appendChild(el("span", "same", s ? "(no change)" : "(the initial state)"));
              else for (const [sign, text] of diffLines(stateAfter(selected - 1), s[4], 3000)) {
                pre.appendChild(el("span", sign === "+" ? "add" : sign === "-" ? "del" : sign === "…" ? "fold" : "same", (sign === "…" ? " " : sign) + " " + text));
              }
              box.appendChild(pre);
            } else if (tab === "test") {
              const pre = el("pre");
              setText(pre, D.test, true);
              pre.id = "testview";
              box.appendChild(pre);
            }
          }
          // Selects row `i` (0: the initial state; i: the i-th kept step), scrolls it into view
          // and draws its step and runs.
          function select(i) {
            selected = Math.max(0, Math.min(i, steps.length));
            const k = position(selected);
            if (shown[k] === selected) {
              const top = k * ROW, height = list.clientHeight || 600;
              if (top < list.scrollTop) list.scrollTop = top;
              else if (top + ROW > list.scrollTop + height) list.scrollTop = top + ROW - height;
            }
            renderRows();
            const origin = selected ? steps[selected - 1][5] : null;
            if (origin) {
              const store = Math.abs(steps[selected - 1][6]);
              const found = D.runs.findIndex((r) => r.id === origin[0] && r.store === store);
              if (found >= 0 && found !== runIndex) { runIndex = found; chosenNode = null; }
            }
            renderStep();
            renderRun();
          }
          // Adds one step at the end, as recorded (the live page's entry point): the list, the
          // filters, the type menu and the header follow; a selection on the last step moves on
          // to the new one.
          function appendStep(step) {
            const following = selected === steps.length;
            steps.push(step);
            countType(step[2]);
            if (searchText.length === steps.length - 1) searchText.push(stepText(steps.length - 1));
            const f = filters();
            if (f.q) indexSearch(steps.length);
            if (passes(steps.length, f.type, f.hide, f.q)) shown.push(steps.length);
            renderHeader();
            renderCount();
            if (following) select(steps.length); else renderRows();
          }

          // ---- Runs: the graph at the selected step, a node's details, the timeline
          let runIndex = D.runs.length ? 0 : -1;
          let chosenNode = null;
          let zoom = 1;
          const runList = $("runs");
          // One button a run and an async action (drawn again by render(), when runs change).
          function renderRunList() {
            runList.replaceChildren();
            D.runs.forEach((run, i) => {
              const b = el("button", null, "run #" + run.id + storeName(run.store) + " · " + run.nodes.length + " nodes");
              b.addEventListener("click", () => { runIndex = i; chosenNode = null; renderRun(); });
              runList.appendChild(b);
            });
            D.asyncActions.forEach((a) => {
              const b = el("button", null, "async #" + a.id + storeName(a.store) + " " + a.name + (a.end ? " · " + a.end.outcome : ""));
              b.addEventListener("click", () => showAsync(a));
              runList.appendChild(b);
            });
            if (!D.runs.length && !D.asyncActions.length) runList.appendChild(el("span", "muted", "No graph run or async action was recorded."));
          }
          renderRunList();

          function status(run, node, at) {
            if (at < run.startAt) return "pending";
            if (node.released != null && node.end && node.end.outcome === "succeeded") return at >= node.released ? "succeeded" : "pending";
            if (node.end && node.end.at <= at) return node.end.outcome;
            if (node.attempts.length && node.attempts[0][3] <= at) return "running";
            return "pending";
          }
          function ms(x) {
            return x == null ? "-" : x.toFixed(3) + " ms";
          }
          function renderRun() {
            const g = $("graph");
            g.replaceChildren();
            if (runIndex < 0) return;
            const run = D.runs[runIndex];
            const at = stepNumber();
            [...runList.children].forEach((b, i) => b.classList.toggle("on", i === runIndex));
            setText($("runhead"), "Run #" + run.id + storeName(run.store) + (run.owner ? " · owner " + run.owner : "") + " at step " + at + (run.summary ? " · " + run.summary : " · still running when recorded"));
            const W = 170, H = 38, GX = 60, GY = 22;
            const width = Math.max(1, run.layers) * (W + GX) + 20, height = Math.max(1, run.rows) * (H + GY) + 20;
            const svg = sv("svg", { width, height, viewBox: "0 0 " + width + " " + height, id: "dag" });
            const defs = sv("defs", {});
            const marker = sv("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5", markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" });
            marker.appendChild(sv("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8a93a3" }));
            defs.appendChild(marker);
            svg.appendChild(defs);
            const pos = (n) => ({ x: 10 + n.layer * (W + GX), y: 10 + n.row * (H + GY) });
            for (const n of run.nodes) for (const p of n.prerequisites) {
              const a = pos(run.nodes[p]), b = pos(n);
              const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
              svg.appendChild(sv("path", { class: "edge", d: `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2} ${y2}`, "marker-end": "url(#arrow)" }));
            }
            for (const n of run.nodes) {
              const st = status(run, n, at);
              const p = pos(n);
              const grp = sv("g", { class: "node" + (chosenNode === n.index ? " chosen" : ""), "data-status": st, "data-index": n.index, transform: `translate(${p.x},${p.y})` });
              grp.appendChild(sv("rect", { width: W, height: H, class: "s-" + st }));
              const label = n.label.length > 22 ? n.label.slice(0, 21) + "…" : n.label;
              grp.appendChild(sv("text", { x: 8, y: 16 }, label));
              grp.appendChild(sv("text", { x: 8, y: 31, "font-size": "10" }, n.kind + " · " + st));
              grp.appendChild(sv("title", {}, n.label + " (" + st + ")"));
              grp.addEventListener("click", () => { chosenNode = n.index; renderRun(); });
              svg.appendChild(grp);
            }
            g.appendChild(svg);
            renderNode(run, at);
            renderTimeline(run);
          }
          function row(table, cells, head) {
            const tr = el("tr");
            for (const c of cells) {
              const td = el(head ? "th" : "td");
              if (c instanceof Node) td.appendChild(c); else setText(td, c == null ? "-" : String(c));
              tr.appendChild(td);
            }
            table.appendChild(tr);
          }
          function stepLink(n) {
            if (n == null) return "-";
            const a = el("a", "step-link", "step " + n);
            a.addEventListener("click", () => {
              const i = steps.findIndex((s) => s[0] === n);
              if (i >= 0) select(i + 1);
            });
            return a;
          }
          function renderNode(run, at) {
            const box = $("nodeinfo");
            box.replaceChildren();
            if (chosenNode == null) { box.appendChild(el("p", "muted", "Select a node to see its attempts, timings, error and response.")); return; }
            const n = run.nodes[chosenNode];
            box.appendChild(el("h3", null, n.label));
            const t = el("table");
            row(t, ["kind", n.kind + (n.type && n.type !== n.label ? " · " + n.type : "")]);
            row(t, ["at this step", status(run, n, at)]);
            row(t, ["outcome", n.end ? n.end.outcome : "not ended when recorded"]);
            row(t, ["prerequisites", n.prerequisites.map((p) => run.nodes[p].label).join(", ") || "none"]);
            row(t, ["start · end · duration", ms(n.start) + " · " + ms(n.endTime) + " · " + (n.start != null && n.endTime != null ? ms(n.endTime - n.start) : "-")]);
            row(t, ["error", n.end && n.end.error ? short(n.end.error, 2000) : "-"]);
            row(t, ["response", n.end && n.end.response ? short(n.end.response, 2000) : "-"]);
            row(t, ["released", stepLink(n.released)]);
            if (n.fallback != null) row(t, ["fallback", stepLink(n.fallback)]);
            box.appendChild(t);
            if (n.attempts.length) {
              const a = el("table");
              row(a, ["attempt", "started", "back-off before", "after step"], true);
              for (const x of n.attempts) row(a, [x[0], ms(x[1]), ms(x[2]), x[3]]);
              box.appendChild(el("h4", null, "Attempts"));
              box.appendChild(a);
            }
          }
          function showAsync(a) {
            runIndex = -1;
            $("graph").replaceChildren();
            $("timeline").replaceChildren();
            setText($("runhead"), "Async action #" + a.id + " " + a.name);
            const box = $("nodeinfo");
            box.replaceChildren();
            const t = el("table");
            row(t, ["action", short(a.action, 2000)]);
            row(t, ["outcome", a.end ? a.end.outcome : "not ended when recorded"]);
            row(t, ["started after", stepLink(a.startAt)]);
            row(t, ["ended after", a.end ? stepLink(a.end.at) : "-"]);
            row(t, ["duration", a.endTime != null ? ms(a.endTime - a.time) : "-"]);
            row(t, ["error", a.end && a.end.error ? short(a.end.error, 2000) : "-"]);
            row(t, ["response", a.end && a.end.response ? short(a.end.response, 2000) : "-"]);
            box.appendChild(t);
          }
          function renderTimeline(run) {
            const box = $("timeline");
            box.replaceChildren();
            const end = Math.max(1e-3, run.duration || 0, ...run.nodes.map((n) => n.endTime || 0), ...run.nodes.flatMap((n) => n.attempts.map((a) => a[1])));
            const LW = 180, RH = 22, width = Math.round(900 * zoom), scale = (width - LW - 20) / end;
            const svg = sv("svg", { width, height: run.nodes.length * RH + 40, id: "timelinesvg" });
            const defs = sv("defs", {});
            const hatch = sv("pattern", { id: "hatch", width: "6", height: "6", patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" });
            hatch.appendChild(sv("rect", { width: "3", height: "6", fill: "#d9dce2" }));
            defs.appendChild(hatch);
            svg.appendChild(defs);
            const x = (t) => LW + t * scale;
            for (let k = 0; k <= 4; k++) {
              const t = (end * k) / 4;
              svg.appendChild(sv("line", { x1: x(t), x2: x(t), y1: 0, y2: run.nodes.length * RH + 8, stroke: "#eceef2" }));
              svg.appendChild(sv("text", { x: x(t) + 2, y: run.nodes.length * RH + 24, fill: "#687082", "font-size": "10" }, t.toFixed(2) + " ms"));
            }
            run.nodes.forEach((n, i) => {
              const y = i * RH + 4;
              svg.appendChild(sv("text", { x: 4, y: y + 13 }, (n.label.length > 24 ? n.label.slice(0, 23) + "…" : n.label)));
              const outcome = n.end ? n.end.outcome : "running";
              const tries = n.attempts.length ? n.attempts : (n.start != null ? [[1, n.start, 0, 0]] : []);
              tries.forEach((a, k) => {
                const next = tries[k + 1];
                const start = k === 0 && n.start != null ? Math.min(n.start, a[1]) : a[1];
                const stop = next ? next[1] - next[2] : (n.endTime != null ? n.endTime : end);
                const last = !next;
                const bar = sv("rect", { x: x(start), y, width: Math.max(2, (stop - start) * scale), height: RH - 8, class: "s-" + (last ? outcome : "failed"), "data-attempt": a[0] });
                bar.appendChild(sv("title", {}, n.label + " attempt " + a[0] + ": " + ms(start) + " to " + ms(stop)));
                svg.appendChild(bar);
                if (next && next[2] > 0) {
                  const b = sv("rect", { x: x(next[1] - next[2]), y, width: Math.max(1, next[2] * scale), height: RH - 8, class: "backoff" });
                  b.appendChild(sv("title", {}, "back-off " + ms(next[2])));
                  svg.appendChild(b);
                }
              });
              for (const p of n.prerequisites) {
                const pn = run.nodes[p], pe = pn.endTime, ns = tries.length ? tries[0][1] : null;
                if (pe == null || ns == null) continue;
                svg.appendChild(sv("path", { class: "edge", d: `M ${x(pe)} ${p * RH + 4 + (RH - 8) / 2} L ${x(ns)} ${y + (RH - 8) / 2}`, "marker-end": "url(#arrow)", opacity: "0.6" }));
              }
            });
            if (selected > 0) {
              const t = steps[selected - 1][1] - run.time;
              if (t >= 0 && t <= end * 1.05) svg.appendChild(sv("line", { x1: x(t), x2: x(t), y1: 0, y2: run.nodes.length * RH + 8, stroke: "#2f6fde", "stroke-dasharray": "3 3" }));
            }
            box.appendChild(svg);
          }
          $("zoomin").addEventListener("click", () => { zoom = Math.min(64, zoom * 1.5); renderRun(); });
          $("zoomout").addEventListener("click", () => { zoom = Math.max(0.25, zoom / 1.5); renderRun(); });
          $("timeline").addEventListener("wheel", (e) => {
            if (!e.ctrlKey) return;
            e.preventDefault();
            zoom = Math.max(0.25, Math.min(64, zoom * (e.deltaY < 0 ? 1.2 : 1 / 1.2)));
            renderRun();
          }, { passive: false });

          // ---- Exports
          function plain(v) {
            switch (v[0]) {
              case "s": return v[1];
              case "v": {
                if (/^(U?Int(8|16|32|64)?|Double|Float(32|64)?|CGFloat)$/.test(v[1]) && isFinite(Number(v[2]))) return Number(v[2]);
                if (v[1] === "Bool") return v[2] === "true";
                return v[2];
              }
              case "o": {
                if (v[1].startsWith("(") || v[2].some((f) => f[0] == null)) return v[2].map((f) => plain(f[1]));
                const o = {};
                for (const f of v[2]) o[f[0]] = plain(f[1]);
                return o;
              }
              case "e": {
                if (!v[3].length) return v[2];
                const o = {};
                o[v[2]] = v[3].length === 1 && v[3][0][0] == null ? plain(v[3][0][1]) : plain(["o", "", v[3]]);
                return o;
              }
              case "a": return v[2].map(plain);
              case "d": { const o = {}; for (const [k, x] of v[2]) o[k[0] === "s" ? k[1] : short(k, 200)] = plain(x); return o; }
              case "n": return null;
              case "r": return "<redacted>";
              default: return v[1] + "(…)";
            }
          }
          function devToolsAction(s) {
            const a = { type: s[2] };
            const v = s[3];
            if (v[0] === "o" && v[2].every((f) => f[0] != null && f[0] !== "type")) for (const f of v[2]) a[f[0]] = plain(f[1]);
            else a.payload = plain(v);
            return a;
          }
          // The export is written in parts (one per action and per state) and joined as a Blob, never
          // as one string; a recording whose export would pass EXPORT_LIMIT characters says so in
          // the page instead (a browser holds the whole file, and Redux DevTools reads it whole).
          const EXPORT_LIMIT = 256 * 1024 * 1024;
          function devToolsParts(emit) {
            emit('{"actionsById":{"0":{"type":"PERFORM_ACTION","action":{"type":"@@INIT"},"timestamp":0}');
            steps.forEach((s, i) => emit(',"' + (i + 1) + '":' + JSON.stringify({ type: "PERFORM_ACTION", action: devToolsAction(s), timestamp: s[1] })));
            emit('},"computedStates":[' + JSON.stringify({ state: plain(D.initial) }));
            let state = D.initial;
            for (let i = 0; i < steps.length; i++) {
              state = applyEdits(state, steps[i][4], new Set());
              emit("," + JSON.stringify({ state: plain(state) }));
            }
            const staged = [];
            for (let i = 0; i <= steps.length; i++) staged.push(i);
            emit('],"committedState":' + JSON.stringify(plain(D.initial)) + ',"currentStateIndex":' + steps.length +
              ',"nextActionId":' + (steps.length + 1) + ',"skippedActionIds":[],"stagedActionIds":[' + staged.join(",") +
              '],"isLocked":false,"isPaused":false}');
          }
          // About how many characters the export takes: every state as large as the larger of the
          // first and the last.
          function devToolsSize() {
            const largest = Math.max(JSON.stringify(plain(D.initial)).length, JSON.stringify(plain(stateAfter(steps.length))).length);
            return largest * (steps.length + 2) + steps.length * 200;
          }
          function devToolsExport() {
            const parts = [];
            devToolsParts((p) => parts.push(p));
            return JSON.parse(parts.join(""));
          }
          const fromSwift = "export from Swift with recording.writeReduxDevToolsJSON(to:), or keep fewer steps (InspectorOptions.maximumSteps)";
          function devToolsBlob() {
            const size = devToolsSize();
            if (size > EXPORT_LIMIT) {
              notify("The Redux DevTools export of these " + steps.length + " steps would be about " + Math.round(size / 1048576) +
                " MB, over this page's limit of " + EXPORT_LIMIT / 1048576 + " MB: " + fromSwift + ".");
              return null;
            }
            const blobs = [];
            let buffer = [], buffered = 0;
            devToolsParts((p) => {
              buffer.push(p);
              buffered += p.length;
              if (buffered > 32 * 1048576) { blobs.push(new Blob(buffer)); buffer = []; buffered = 0; }
            });
            blobs.push(new Blob(buffer));
            return new Blob(blobs, { type: "application/json" });
          }
          function download(name, blob) {
            const a = el("a");
            a.href = URL.createObjectURL(blob);
            a.download = name;
            document.body.appendChild(a);
            a.click();
            a.remove();
          }
          $("devtools").addEventListener("click", () => {
            try {
              const blob = devToolsBlob();
              if (blob) download("recording.devtools.json", blob);
            } catch (error) {
              notify("The Redux DevTools export failed (" + error + "): " + fromSwift + ".");
            }
          });
          $("trace").addEventListener("click", () => {
            const run = D.runs[runIndex];
            if (run && run.chromeTrace) download("run-" + run.id + ".trace.json", new Blob([run.chromeTrace], { type: "application/json" }));
          });

          // The page's entry points, for tests and for the live page: `appendStep` adds a recorded
          // step, `render` draws everything again (after D.runs, D.asyncActions or the counts in D
          // change), `select` picks a row (0: the initial state; i: the i-th kept step).
          function render() {
            renderHeader();
            renderRunList();
            if (runIndex >= D.runs.length) runIndex = D.runs.length - 1;
            if (runIndex < 0 && D.runs.length) runIndex = 0;
            applyFilters();
            select(selected);
          }
          window.inspector = {
            data: D,
            select,
            stepNumber,
            appendStep,
            render,
            displayText,
            shownSteps: () => shown.filter((i) => i > 0).length,
            renderedRows: () => spacer.children.length,
            devToolsExport,
            devToolsBlob,
            devToolsSize,
            exportLimit: EXPORT_LIMIT,
            diffText: (i) => diffLines(stateAfter(i - 1), steps[i - 1][4], 3000).map((l) => l[0] + " " + l[1]).join("\n"),
            state: (i) => stateAfter(i),
            chooseRun: (i) => { runIndex = i; renderRun(); },
            chooseNode: (i) => { chosenNode = i; renderRun(); },
          };
          renderHeader();
          for (const s of steps) types.set(s[2], (types.get(s[2]) || 0) + 1);
          for (const t of [...types.keys()].sort()) {
            const o = el("option", null, t + " (" + types.get(t) + ")");
            o.value = t;
            typeOptions.set(t, o);
            typeSelect.appendChild(o);
          }
          applyFilters();
          performance.mark("inspector-list");
          // The list first, scrolled to the last step and marked selected; the selected step's diff
          // and runs (which rebuild its state from every patch) come after the first frame.
          selected = steps.length;
          list.scrollTop = Math.max(0, shown.length * ROW - (list.clientHeight || 600));
          renderRows();
          requestAnimationFrame(() => setTimeout(() => {
            performance.mark("inspector-painted");
            select(steps.length);
            performance.mark("inspector-ready");
            document.body.dataset.ready = "1";
            document.body.dataset.renderMs = performance.now().toFixed(1);
            setTimeout(indexWhenIdle, 0);
          }, 0));
        })();
        """#
}
