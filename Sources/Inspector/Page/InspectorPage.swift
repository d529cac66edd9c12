/// The inspector page: markup, style and script, all inline, with the recording's data embedded
/// as JSON. Kept as Swift strings so the package needs no resources.
///
/// The page builds every piece of recorded text with `textContent` (never `innerHTML`), and its
/// Content-Security-Policy allows inline script and style and `data:` images, nothing else: no
/// network source of any kind, no base URL, no form target.
enum InspectorPage {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
        + "base-uri 'none'; form-action 'none'"

    /// The page for `dataJSON`, which must be JSON written by `JSONText` (safe inside `<script>`).
    ///
    /// `liveScript`, for the live page only (OresReduxLive), runs before the page's script and may
    /// reach the page's own server: the policy then adds `connect-src 'self'`, nothing else.
    static func html(title: String, dataJSON: String, liveScript: String? = nil) -> String {
        let policy = liveScript == nil ? contentSecurityPolicy : contentSecurityPolicy + "; connect-src 'self'"
        var page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        page += "<meta http-equiv=\"Content-Security-Policy\" content=\"\(policy)\">\n"
        page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        page += "<meta name=\"generator\" content=\"OresRedux inspector\">\n"
        page += "<title>\(escapeHTML(title))</title>\n<style>\n\(style)</style>\n</head>\n<body>\n"
        page += body
        page += "<script type=\"application/json\" id=\"inspector-data\">"
        page += dataJSON
        page += "</script>\n"
        if let liveScript { page += "<script id=\"inspector-live\">\n\(liveScript)</script>\n" }
        page += "<script>\n\(script)</script>\n</body>\n</html>\n"
        return page
    }

    /// `text` as HTML text: `&`, `<`, `>` and quotes escaped.
    static func escapeHTML(_ text: String) -> String {
        TextEscaping.replacing(text) { scalar in
            "&<>\"'".unicodeScalars.contains(scalar) ? TextEscaping.htmlEntity(scalar) : nil
        }
    }

    static let style = #"""
        :root { --ok: #1f9d55; --fail: #d93025; --skip: #e0a100; --cancel: #7a5cad; --run: #2f6fde; --pend: #b8bcc4;
          --bg: #fbfbfc; --line: #dde0e5; --text: #1d2430; --muted: #687082; font-family: system-ui, sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--text); font-size: 13px; }
        header { display: flex; gap: 16px; align-items: baseline; padding: 8px 14px; border-bottom: 1px solid var(--line); background: #fff; }
        header h1 { font-size: 15px; margin: 0; }
        header .meta { color: var(--muted); }
        .notice { background: #fff6d6; border: 1px solid #f0d98c; padding: 2px 8px; border-radius: 4px; }
        main { display: grid; grid-template-columns: 340px 1fr; height: calc(100vh - 41px); }
        #side { border-right: 1px solid var(--line); display: flex; flex-direction: column; min-height: 0; background: #fff; }
        #controls { padding: 8px; display: grid; gap: 6px; border-bottom: 1px solid var(--line); }
        #controls input[type=search], #controls select { width: 100%; padding: 4px; }
        #steps { overflow: auto; flex: 1; }
        #steps .spacer { position: relative; }
        .step { position: absolute; left: 0; right: 0; height: 22px; overflow: hidden; display: grid; grid-template-columns: 52px 1fr auto; gap: 6px; padding: 3px 8px; cursor: pointer; border-bottom: 1px solid #f1f2f4; white-space: nowrap; }
        .step:hover { background: #f3f6fb; }
        .step.selected { background: #dfe9fb; }
        .step .n { color: var(--muted); text-align: right; }
        .step .t { overflow: hidden; text-overflow: ellipsis; }
        .step .o { color: var(--muted); font-size: 11px; }
        .step.nochange .t { color: var(--muted); }
        .step.newstore { border-top: 2px solid var(--text); font-weight: 600; }
        #count { color: var(--muted); }
        #content { overflow: auto; padding: 10px 14px; min-width: 0; }
        .tabs { display: flex; gap: 4px; margin: 6px 0; flex-wrap: wrap; }
        .tabs button, .toolbar button { border: 1px solid var(--line); background: #fff; padding: 3px 10px; border-radius: 4px; cursor: pointer; }
        .tabs button.on { background: var(--text); color: #fff; }
        pre, .tree { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
        pre { background: #fff; border: 1px solid var(--line); padding: 8px; overflow: auto; white-space: pre-wrap; word-break: break-all; max-height: 60vh; margin: 0; }
        .diff .add { background: #e6f6ea; color: #135c2f; display: block; }
        .diff .del { background: #fde8e7; color: #8d1c14; display: block; }
        .diff .same { display: block; }
        .diff .fold { color: var(--muted); display: block; }
        .tree { background: #fff; border: 1px solid var(--line); padding: 6px; max-height: 60vh; overflow: auto; }
        .tree details { margin-left: 14px; }
        .tree summary { cursor: pointer; white-space: pre; overflow: hidden; text-overflow: ellipsis; }
        .tree .leaf { margin-left: 28px; white-space: pre-wrap; word-break: break-all; }
        .tree .k { color: #6b3fa0; }
        section.panel { margin-bottom: 16px; }
        section.panel h2 { font-size: 13px; margin: 12px 0 6px; }
        .runs { display: flex; gap: 6px; flex-wrap: wrap; }
        #graph svg, #timeline svg { background: #fff; border: 1px solid var(--line); }
        #graph, #timeline { overflow: auto; max-width: 100%; }
        svg text { font-size: 12px; font-family: system-ui, sans-serif; }
        g.node { cursor: pointer; }
        g.node rect { stroke: #333; stroke-width: 1; rx: 6; }
        g.node.chosen rect { stroke-width: 3; }
        g.node text { fill: #fff; pointer-events: none; }
        g.node[data-status=pending] text, g.node[data-status=skipped] text { fill: #1d2430; }
        .edge { stroke: #8a93a3; fill: none; stroke-width: 1.4; }
        .legend span { display: inline-block; padding: 1px 8px; margin-right: 4px; border-radius: 3px; color: #fff; font-size: 11px; }
        .s-pending { background: var(--pend); fill: var(--pend); } .s-running { background: var(--run); fill: var(--run); }
        .s-succeeded { background: var(--ok); fill: var(--ok); } .s-failed { background: var(--fail); fill: var(--fail); }
        .s-skipped { background: var(--skip); fill: var(--skip); } .s-cancelled { background: var(--cancel); fill: var(--cancel); }
        #nodeinfo table { border-collapse: collapse; }
        #nodeinfo td, #nodeinfo th { border: 1px solid var(--line); padding: 2px 8px; text-align: left; vertical-align: top; }
        .backoff { fill: url(#hatch); stroke: #999; stroke-dasharray: 2 2; }
        .toolbar { display: flex; gap: 6px; align-items: center; margin: 6px 0; flex-wrap: wrap; }
        a.step-link { color: var(--run); cursor: pointer; text-decoration: underline; }
        .muted { color: var(--muted); }
        """#

    static let body = #"""
        <header><h1 id="title"></h1><span class="meta" id="meta"></span><span class="notice" id="notice" hidden></span></header>
        <main>
        <div id="side">
        <div id="controls">
        <input type="search" id="search" placeholder="Search actions and changed values" aria-label="Search">
        <select id="type" aria-label="Action type"><option value="">All action types</option></select>
        <label><input type="checkbox" id="hide"> Hide steps that changed nothing</label>
        <span id="count"></span>
        </div>
        <div id="steps" role="listbox" aria-label="Steps"></div>
        </div>
        <div id="content">
        <section class="panel">
        <h2 id="stephead"></h2>
        <div class="tabs" id="steptabs"><button data-tab="diff">Diff</button><button data-tab="action">Action</button><button data-tab="state">State</button><button data-tab="test">Test</button></div>
        <div id="stepbody"></div>
        </section>
        <section class="panel">
        <h2>Graph runs and async actions</h2>
        <div class="runs tabs" id="runs"></div>
        <h2 id="runhead"></h2>
        <div class="legend"><span class="s-pending">pending</span><span class="s-running">running</span><span class="s-succeeded">succeeded</span><span class="s-failed">failed</span><span class="s-skipped">skipped</span><span class="s-cancelled">cancelled</span></div>
        <div id="graph"></div>
        <div id="nodeinfo"></div>
        <div class="toolbar"><strong>Timeline</strong><button id="zoomout">−</button><button id="zoomin">+</button><span class="muted">Ctrl + wheel zooms; hatched: back-off between tries</span><button id="trace">Chrome trace of this run (for Perfetto)</button><button id="devtools">Export for Redux DevTools</button></div>
        <div id="timeline"></div>
        </section>
        </div>
        </main>
        """#
}
