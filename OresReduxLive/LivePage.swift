/// The live page's own script: the offline page's script is left as it is, and this one, run just
/// before it, connects to the server and draws the page again as updates arrive.
enum LivePage {
    /// Keeps the page's markup as it was before the page's script ran; after `DOMContentLoaded`,
    /// opens the event stream (`/events`), merges each update into the page's data (runs and async
    /// actions replaced by id, new steps held by number), and at most five times a second draws
    /// the page again: the new steps through the page's `appendStep`, the rest with its `render`,
    /// which keep the selected step (unless it was the last: then it follows the newest), the tab
    /// and the filters. Only past the recorder's bound, when the oldest steps go, is the page's
    /// script run again on fresh markup (the listeners it added to `document` and `window` are
    /// removed first), with the selection, tab and filters put back after its first frame. Adds a small panel: status, pause and resume,
    /// jump the app to the selected step, dispatch its action again, save the offline page.
    ///
    /// Every text from the app or the server is set with `textContent`. Requests go only to the
    /// page's own origin (`connect-src 'self'`), carrying the token of the page's own URL.
    static let script = #"""
        "use strict";
        (function () {
          const pristine = { header: document.querySelector("header").cloneNode(true), main: document.querySelector("main").cloneNode(true) };
          const token = new URLSearchParams(location.search).get("token") || "";
          const q = "?token=" + encodeURIComponent(token);
          const docAdd = document.addEventListener, winAdd = window.addEventListener;
          let tracked = [];
          function track(on) {
            if (on) {
              document.addEventListener = function (t, f, o) { tracked.push([document, t, f, o]); return docAdd.call(document, t, f, o); };
              window.addEventListener = function (t, f, o) { tracked.push([window, t, f, o]); return winAdd.call(window, t, f, o); };
            } else {
              delete document.addEventListener;
              delete window.addEventListener;
            }
          }
          let D = null, incoming = [], mainText = "", es = null, timer = null, ended = false, paused = false;
          const ui = {};
          function el(tag, text) {
            const e = document.createElement(tag);
            if (text != null) e.textContent = String(text);
            return e;
          }
          function lastNumber() {
            if (incoming.length) return incoming[incoming.length - 1][0];
            return D.steps.length ? D.steps[D.steps.length - 1][0] : D.droppedSteps;
          }
          function setStatus(text, state) {
            ui.status.textContent = text;
            document.body.dataset.live = state;
          }
          function say(text) {
            ui.message.textContent = text;
          }
          function panel() {
            const bar = el("div");
            bar.id = "livebar";
            bar.className = "toolbar";
            Object.assign(bar.style, { position: "fixed", right: "12px", bottom: "12px", background: "#fff", border: "1px solid #dde0e5",
              borderRadius: "6px", padding: "6px 10px", boxShadow: "0 2px 8px rgba(0,0,0,.15)", maxWidth: "560px", zIndex: "10" });
            ui.status = el("strong", "live: connecting");
            ui.status.id = "livestatus";
            ui.pause = el("button", "Pause recording");
            ui.pause.id = "livepause";
            ui.jump = el("button", "Jump app to this step");
            ui.jump.id = "livejump";
            ui.again = el("button", "Dispatch this action again");
            ui.again.id = "liveagain";
            ui.save = el("a", "Save offline page");
            ui.save.id = "livesave";
            ui.save.href = "/export" + q;
            ui.save.setAttribute("download", "oresredux-recording.html");
            ui.message = el("span");
            ui.message.id = "livemessage";
            ui.message.className = "muted";
            for (const x of [ui.status, ui.pause, ui.jump, ui.again, ui.save, ui.message]) bar.appendChild(x);
            document.body.appendChild(bar);
            ui.pause.addEventListener("click", () => post(paused ? "resume" : "pause", {}));
            ui.jump.addEventListener("click", () => post("jump", { step: window.inspector.stepNumber() }));
            ui.again.addEventListener("click", () => {
              const n = window.inspector.stepNumber();
              if (n > 0) post("dispatch", { step: n }); else say("Select a step with an action.");
            });
          }
          function post(name, body) {
            say("…");
            fetch("/" + name + q, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
              cache: "no-store", credentials: "omit", redirect: "error" })
              .then((r) => r.text().then((t) => {
                let j = null;
                try { j = JSON.parse(t); } catch (e) { j = null; }
                if (!r.ok) say(name + " refused: " + (j && j.error ? j.error : t));
                else if (name === "jump") say("jumped to the state after step " + body.step);
                else if (name === "dispatch") say("dispatched the action of step " + body.step + " again");
                else say("");
                if (j && typeof j.paused === "boolean") status(j);
              }))
              .catch((e) => say(name + " failed: " + e));
          }
          function status(s) {
            paused = s.paused;
            ui.pause.textContent = paused ? "Resume recording" : "Pause recording";
            if (!ended) setStatus(paused ? "live: paused" + (s.unrecorded ? " (" + s.unrecorded + " actions not recorded)" : "") : "live", paused ? "paused" : "connected");
          }
          function end(text) {
            ended = true;
            if (es) es.close();
            setStatus(text, "dropped");
            const again = el("a", " reload");
            again.href = location.href;
            ui.status.appendChild(again);
          }
          function replace(list, item) {
            const i = list.findIndex((x) => x.id === item.id && x.store === item.store);
            if (i >= 0) list[i] = item; else list.push(item);
          }
          function merge(u) {
            if (u.cleared) return end("the app cleared its recording:");
            if (u.missed > 0) return end(u.missed + " steps dropped before this page saw them:");
            const last = lastNumber();
            for (const s of u.steps) if (s[0] > last) incoming.push(s);
            for (const r of u.runs) replace(D.runs, r);
            for (const a of u.asyncActions) replace(D.asyncActions, a);
            D.stores = Math.max(D.stores, u.stores);
            if (u.steps.length || u.runs.length || u.asyncActions.length) schedule();
          }
          function schedule() {
            if (!timer) timer = setTimeout(draw, 200);
          }
          function draw() {
            timer = null;
            const ins = window.inspector;
            const news = incoming;
            incoming = [];
            if (D.steps.length + news.length <= D.maximumSteps) {
              for (const x of news) ins.appendStep(x);
              ins.render();
              document.body.dataset.liveSteps = String(D.steps.length);
              return;
            }
            const shown = D.steps;
            const selectedNumber = ins.stepNumber();
            const following = !shown.length || selectedNumber === shown[shown.length - 1][0];
            const onTab = document.querySelector("#steptabs button.on");
            const keep = { search: document.getElementById("search").value, type: document.getElementById("type").value,
              hide: document.getElementById("hide").checked, tab: onTab ? onTab.dataset.tab : "diff" };
            // Past the recorder's bound, the oldest steps go: the state before the first kept one, from the page drawn now.
            const cut = Math.min(shown.length + news.length - D.maximumSteps, shown.length);
            const next = Object.assign({}, D, { steps: shown.slice(cut).concat(news) });
            if (cut > 0) next.initial = ins.state(cut);
            next.droppedSteps = next.steps.length ? next.steps[0][0] - 1 : D.droppedSteps;
            for (const [target, t, f, o] of tracked) target.removeEventListener(t, f, o);
            tracked = [];
            document.querySelector("header").replaceWith(pristine.header.cloneNode(true));
            document.querySelector("main").replaceWith(pristine.main.cloneNode(true));
            document.getElementById("inspector-data").textContent = JSON.stringify(next);
            const s = document.createElement("script");
            s.textContent = mainText;
            track(true);
            try { document.body.appendChild(s); } finally { track(false); s.remove(); }
            D = window.inspector.data;
            const search = document.getElementById("search"), type = document.getElementById("type"), hide = document.getElementById("hide");
            if (keep.type && [...type.options].some((o) => o.value === keep.type)) { type.value = keep.type; type.dispatchEvent(new Event("change")); }
            if (keep.hide) { hide.checked = true; hide.dispatchEvent(new Event("change")); }
            if (keep.search) { search.value = keep.search; search.dispatchEvent(new Event("input")); }
            document.body.dataset.liveSteps = String(D.steps.length);
            // The page selects its last step after its first frame: put the selection and tab back after that.
            requestAnimationFrame(() => setTimeout(() => {
              if (!following) {
                const i = D.steps.findIndex((x) => x[0] === selectedNumber);
                if (i >= 0 || selectedNumber <= D.droppedSteps) window.inspector.select(i + 1);
              }
              const tab = document.querySelector('#steptabs button[data-tab="' + keep.tab + '"]');
              if (tab && keep.tab !== "diff") tab.click();
            }, 0));
          }
          function connect() {
            if (ended) return;
            es = new EventSource("/events" + q + "&after=" + lastNumber());
            es.addEventListener("open", () => status({ paused, unrecorded: 0 }));
            es.addEventListener("update", (e) => merge(JSON.parse(e.data)));
            es.addEventListener("status", (e) => status(JSON.parse(e.data)));
            es.addEventListener("dropped", (e) => end("this page fell behind: " + JSON.parse(e.data).steps + " steps dropped,"));
            es.addEventListener("error", () => {
              if (ended) return;
              es.close();
              setStatus("live: disconnected, retrying", "disconnected");
              setTimeout(connect, 2000);
            });
          }
          docAdd.call(document, "DOMContentLoaded", () => {
            track(false);
            mainText = document.getElementById("inspector-live").nextElementSibling.textContent;
            D = window.inspector.data;
            D.test = "// A live page: this test covers the steps recorded when the page was loaded; reload for the newest.\n" + D.test;
            panel();
            document.body.dataset.liveSteps = String(D.steps.length);
            connect();
          });
          track(true);
        })();
        """#
}
