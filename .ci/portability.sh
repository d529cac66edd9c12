#!/usr/bin/env bash
# Portability: what would not build, or not keep its promise, on the platforms Package.swift
# declares (macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1), read from the source alone: no
# Apple toolchain runs here. A heuristic that errs towards a finding; each finding says how to fix it.
#
#   bash .ci/portability.sh       every Swift file of Sources, the other products, Tests, Tools,
#                                 Example and Benchmarks, and
#                                 Package.swift; prints `path:line: rule: why` and exits 1 on any
#
# The rules:
#   above-floor    a name listed in .ci/above-floor-apis.txt (Atomic, Mutex, TaskExecutor, ...) used
#                  where no enclosing declaration or block says @available / if #available, and no
#                  #if keeps the line off Apple platforms
#   process        Process, posix_spawn (none on iOS, tvOS, watchOS, visionOS) where an #if does not
#                  keep the line to macOS or non-Apple systems; /proc where one does not keep it off
#                  every Apple platform
#   typed-throws   a function type with a typed `throws(E)` held in a variable, a stored property,
#                  an optional or a generic argument: its runtime metadata needs macOS 15 / iOS 18
#                  (a parameter or a closure passed along needs none)
#   c-library      an `import Glibc` / `import Musl` whose #if block has no `import Darwin` branch
#   on-disk        a flush (fsync, F_FULLFSYNC) in Sources other than FileSync.toDisk, the one place
#                  that says what "on disk" means on each platform
#   test-host      a test that finds files from Bundle.main or argv[0]: on macOS the test process is
#                  xctest or swiftpm-testing-helper in the toolchain, not the test bundle
#   test-deps      an executable target under Tests/ or Tools/ that the test target does not depend on (Xcode's
#                  Test action would not build it)
#   apple-behaves  a call that behaves differently on Apple platforms (flock, JSONEncoder's
#                  .sortedKeys) without a `// portability:` note at it saying what happens there
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 - <<'PYTHON'
import itertools, os, re, sys

APPLE = ["macOS", "iOS", "tvOS", "watchOS", "visionOS"]
MOBILE = ["iOS", "tvOS", "watchOS", "visionOS"]
PLATFORMS = APPLE + ["Linux", "Android", "Windows", "WASI"]

floor_apis = {}
for line in open(".ci/above-floor-apis.txt", encoding="utf-8"):
    line = line.strip()
    if line and not line.startswith("#"):
        name, _, since = line.partition(" ")
        floor_apis[name] = since.strip()
# A name (`Atomic`) matches as a whole word; a call (`String(validating:`) as written, any spacing.
def floor_pattern(name):
    if re.fullmatch(r"\w+", name):
        return r"(?<!\w)" + name + r"\b(?!\s*:)"
    return r"(?<!\w)" + r"\s*".join(map(re.escape, name))
floor_re = re.compile("|".join("(?P<n%d>%s)" % (i, floor_pattern(n)) for i, n in enumerate(floor_apis)))
floor_names = list(floor_apis)

# --- #if conditions: on which platforms a branch may be compiled ------------------------------

def atom_value(atom, platform):
    """True/False on `platform`, or None when the atom does not depend on the platform."""
    m = re.fullmatch(r"os\((\w+)\)", atom)
    if m:
        return m.group(1) == platform
    m = re.fullmatch(r"canImport\(([\w.]+)\)", atom)
    if m:
        module = m.group(1)
        if module in ("Darwin", "Foundation.NSObject", "ObjectiveC", "Observation", "os"):
            return platform in APPLE
        if module == "UIKit":
            return platform in ("iOS", "tvOS", "visionOS")
        if module == "AppKit":
            return platform == "macOS"
        if module == "WatchKit":
            return platform == "watchOS"
        if module in ("Glibc", "Musl"):
            return platform == "Linux"
        if module == "FoundationNetworking":
            return platform not in APPLE
        if module == "Android":
            return platform == "Android"
        if module == "WASILibc":
            return platform == "WASI"
        if module == "ucrt":
            return platform == "Windows"
    return None

ATOM = re.compile(r"\w+\([^()]*\)|\w+")

def branch_platforms(previous, condition):
    """Platforms on which the branch with `condition` (None: #else) after `previous` may compile."""
    conditions = previous + ([condition] if condition is not None else [])
    atoms = sorted({a for c in conditions for a in ATOM.findall(c) if a not in ("true", "false")})
    result = set()
    for platform in PLATFORMS:
        known = {a: atom_value(a, platform) for a in atoms}
        unknown = [a for a in atoms if known[a] is None]
        for values in itertools.product([False, True], repeat=len(unknown)):
            env = dict(known)
            env.update(zip(unknown, values))
            def ev(c):
                expr = ATOM.sub(lambda m: "__a[%r]" % m.group(0) if m.group(0) not in ("true", "false")
                                else {"true": "True", "false": "False"}[m.group(0)], c)
                expr = expr.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
                return eval(expr, {"__a": env})
            if all(not ev(c) for c in previous) and (condition is None or ev(condition)):
                result.add(platform)
                break
    return result

# --- reading a Swift file ---------------------------------------------------------------------

def split_code(text):
    """Each line twice: without comments (`code`), and without comments and string contents (`bare`)."""
    code_lines, bare_lines = [], []
    in_block = 0
    in_multi = False
    for raw in text.split("\n"):
        code, bare = [], []
        i, n = 0, len(raw)
        in_string = False
        while i < n:
            c = raw[i]
            if in_block:
                if raw.startswith("*/", i):
                    in_block -= 1; i += 2; continue
                if raw.startswith("/*", i):
                    in_block += 1; i += 2; continue
                i += 1; continue
            if in_multi:
                if raw.startswith('"""', i):
                    in_multi = False; code.append('"""'); bare.append('"""'); i += 3; continue
                code.append(c); i += 1; continue
            if in_string:
                if c == "\\" and i + 1 < n:
                    code.append(raw[i:i + 2]); i += 2; continue
                if c == '"':
                    in_string = False; code.append(c); bare.append(c); i += 1; continue
                code.append(c); i += 1; continue
            if raw.startswith("//", i):
                break
            if raw.startswith("/*", i):
                in_block += 1; i += 2; continue
            if raw.startswith('"""', i):
                in_multi = True; code.append('"""'); bare.append('"""'); i += 3; continue
            if c == '"':
                in_string = True; code.append(c); bare.append(c); i += 1; continue
            code.append(c); bare.append(c); i += 1
        code_lines.append("".join(code))
        bare_lines.append("".join(bare))
    return code_lines, bare_lines

findings = []

def report(path, number, rule, why, line):
    findings.append((path, number, rule, why, line.strip()))

AVAILABLE_ATTRIBUTE = re.compile(r"@available\([^)]*\d")
AVAILABLE_CHECK = re.compile(r"#available\(")
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")

def check_swift(path, is_test_target):
    text = open(path, encoding="utf-8").read()
    raw_lines = text.split("\n")
    code_lines, bare_lines = split_code(text)
    chains = []        # open #if blocks: {conditions, platforms, imports per branch, line}
    scopes = [False]   # per open brace: whether @available / #available covers it
    pending = False    # an @available attribute waiting for its declaration
    for index, (raw, code, bare) in enumerate(zip(raw_lines, code_lines, bare_lines)):
        number = index + 1
        directive = DIRECTIVE.match(bare)
        if directive:
            kind, rest = directive.group(1), directive.group(2).strip()
            if kind == "if":
                chains.append({"conditions": [rest], "platforms": branch_platforms([], rest),
                               "imports": [set()], "line": number})
            elif kind in ("elseif", "else") and chains:
                chain = chains[-1]
                condition = rest if kind == "elseif" else None
                chain["platforms"] = branch_platforms(chain["conditions"], condition)
                if condition is not None:
                    chain["conditions"].append(condition)
                chain["imports"].append(set())
            elif kind == "endif" and chains:
                chain = chains.pop()
                modules = set().union(*chain["imports"])
                if modules & {"Glibc", "Musl"} and "Darwin" not in modules:
                    report(path, chain["line"], "c-library",
                           "an #if block imports Glibc/Musl with no `#elseif canImport(Darwin)` / `import Darwin` "
                           "branch: nothing of the C library is imported on Apple platforms",
                           raw_lines[chain["line"] - 1])
            continue
        here = set(PLATFORMS)
        for chain in chains:
            here &= chain["platforms"]

        m = re.match(r"\s*(?:@\w+\s+)*import\s+(?:\w+\s+)?(\w+)", bare)
        if m:
            if chains:
                chains[-1]["imports"][-1].add(m.group(1))
            elif m.group(1) in ("Glibc", "Musl"):
                report(path, number, "c-library",
                       "`import %s` outside an #if block: it does not exist on Apple platforms (use "
                       "#if canImport(Glibc) ... #elseif canImport(Darwin) ...)" % m.group(1), raw)

        if AVAILABLE_ATTRIBUTE.search(bare):
            pending = True
        covered = pending or any(scopes) or bool(AVAILABLE_CHECK.search(bare))
        if covered is False and here & set(APPLE):
            for m in floor_re.finditer(bare):
                name = floor_names[int(m.lastgroup[1:])]
                report(path, number, "above-floor",
                       "%s needs %s (the floor is macOS 14 / iOS 17): mark the enclosing declaration "
                       "@available, or use what the floor has (for a lock, the library's LockedValue)"
                       % (name, floor_apis[name]), raw)
        if here & set(APPLE) and not covered:
            typed = r"(?:async\s+)?throws\s*\((?!\s*(?:any\s+Error|Never)\s*\))"
            held = re.search(r"\b(let|var)\s+\w+\s*:[^=]*\b" + typed, bare)
            wrapped = re.search(r"<[^<>]*\b" + typed + r"|\b" + typed + r"[^()]*->[^()]*\)\s*[?!]", bare)
            if held or wrapped:
                report(path, number, "typed-throws",
                       "a function type with a typed throws, %s: its runtime metadata needs macOS 15 / "
                       "iOS 18 (the floor is macOS 14 / iOS 17); hold a Result-returning or untyped "
                       "function instead" % ("in a variable or stored property" if held else "wrapped in a type"),
                       raw)
        if here & set(MOBILE):
            for m in re.finditer(r"(?<!\w)(Process)\b|\b(posix_spawn\w*)", bare):
                name = m.group(1) or m.group(2)
                report(path, number, "process",
                       "%s does not exist on iOS, tvOS, watchOS or visionOS: put it inside "
                       "#if os(macOS) || os(Linux)" % name, raw)
        if here & set(APPLE) and "/proc/" in code:
            report(path, number, "process",
                   "/proc exists on no Apple platform: put it inside #if os(Linux), with a Darwin way beside it",
                   raw)

        if path.startswith(LIBRARY_ROOTS) and not path.endswith("/FileSync.swift"):
            if re.search(r"\bfsync\s*\(|F_FULLFSYNC", bare):
                report(path, number, "on-disk",
                       "a flush that promises \"on disk\" goes through FileSync.toDisk (F_FULLFSYNC on "
                       "Darwin, where fsync leaves data in the drive's cache)", raw)
        if is_test_target and re.search(r"Bundle\.main\b|CommandLine\.arguments\s*\[\s*0\s*\]", bare):
            report(path, number, "test-host",
                   "on macOS the test process is xctest or swiftpm-testing-helper in the toolchain: find the "
                   "build folder from the test bundle (Bundle(for:)), not from Bundle.main or argv[0]", raw)

        note = any("// portability:" in raw_lines[j] for j in range(max(0, index - 3), index + 1))
        if path.startswith(LIBRARY_ROOTS) and not note:
            if re.search(r"\bflock\s*\([^)]*LOCK_(EX|SH)", bare):
                report(path, number, "apple-behaves",
                       "a held flock: on iOS a suspended app holding one on a file in an App Group "
                       "container is killed (0xdead10cc), and network volumes may answer ENOTSUP; say "
                       "what happens there in a `// portability:` note (and in the guide)", raw)
            if re.search(r"\.sortedKeys\b", bare):
                report(path, number, "apple-behaves",
                       ".sortedKeys orders keys differently on Apple's Foundation: the bytes differ by "
                       "platform (they decode the same); say so in a `// portability:` note, and let no "
                       "test compare these bytes", raw)

        # Braces, after the line's checks: a declaration's own line is covered by its attribute.
        opened_available = pending or bool(AVAILABLE_CHECK.search(bare) and re.search(r"\b(if|while)\b", bare))
        for c in bare:
            if c == "{":
                scopes.append(opened_available)
                opened_available = False
                pending = False
            elif c == "}" and len(scopes) > 1:
                scopes.pop()
        if re.search(r"\bguard\b.*#available\(", bare):
            scopes[-1] = True  # the rest of the enclosing scope
        stripped = bare.strip()
        if pending and stripped and not re.fullmatch(r"(@\w+(\([^)]*\))?\s*)+", stripped):
            pending = False

# The libraries that apps ship or link: the core and each other product.
LIBRARY_ROOTS = ("Sources/", "OresReduxTesting/", "OresReduxLive/", "OresReduxQuery/")

def check_package():
    text = open("Package.swift", encoding="utf-8").read()
    lines = text.split("\n")
    executables = re.findall(r'\.executableTarget\(\s*name:\s*"(\w+)"[^)]*?path:\s*"((?:Tests|Tools)/[^"]*)"', text, re.S)
    for match in re.finditer(r"\.testTarget\(", text):
        depth, end = 0, match.end() - 1
        for end in range(match.end() - 1, len(text)):
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            if depth == 0:
                break
        block = text[match.start():end + 1]
        dependencies = re.search(r"dependencies:\s*\[([^\]]*)\]", block)
        named = set(re.findall(r'"(\w+)"', dependencies.group(1) if dependencies else ""))
        number = text.count("\n", 0, match.start()) + 1
        for name, _ in executables:
            if name not in named:
                report("Package.swift", number, "test-deps",
                       "the tests launch %s, but the test target does not depend on it: Xcode's Test action "
                       "would not build it" % name, lines[number - 1])
    return [path for _, path in executables]

executable_test_paths = check_package()
for root in ["Sources", "OresReduxTesting", "OresReduxLive", "OresReduxQuery", "Tests", "Tools", "Example", "Benchmarks"]:
    for folder, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(folder, name)
                in_test_target = path.startswith("Tests/") and not any(
                    path.startswith(p.rstrip("/") + "/") for p in executable_test_paths)
                check_swift(path, in_test_target)

for path, number, rule, why, line in findings:
    print("%s:%d: %s: %s\n    %s" % (path, number, rule, why, line))
if findings:
    print("\n%d finding(s); the rules are at the top of .ci/portability.sh" % len(findings))
    sys.exit(1)
print("portability: no findings (%d APIs above the floor checked)" % len(floor_apis))
PYTHON
