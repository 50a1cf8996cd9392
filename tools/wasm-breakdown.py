#!/usr/bin/env python3
"""Where the bytes of a WASM module go: sizes by section, by crate and by function.

Reads the module's `name` section (keep it: build unstripped, run .tools/bin/wasm-bind with
--keep-debug and wasm-opt with -g), demangles Rust's legacy symbol names and attributes every
function body's bytes to the crate its path starts with (for generic code, the crate of the
function itself, not of the type it was instantiated with). Only the standard library: twiggy
is not installed on these machines.

usage: wasm-breakdown.py MODULE.wasm [--top N] [--markdown]
"""
import re
import subprocess
import sys
from collections import defaultdict

SECTION_NAMES = {0: "custom", 1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
                 6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data",
                 12: "datacount"}


def leb(buf, pos):
    result = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, pos


def sections(buf):
    if buf[:4] != b"\0asm":
        raise SystemExit("not a wasm module")
    pos = 8
    while pos < len(buf):
        sid = buf[pos]
        size, body = leb(buf, pos + 1)
        name = SECTION_NAMES.get(sid, str(sid))
        if sid == 0:
            nlen, npos = leb(buf, body)
            name = "custom:" + buf[npos:npos + nlen].decode("utf-8", "replace")
        yield sid, name, body, body + size, body - pos + size
        pos = body + size


def imported_funcs(buf, start):
    count, pos = leb(buf, start)
    funcs = 0
    for _ in range(count):
        for _ in range(2):
            n, pos = leb(buf, pos)
            pos += n
        kind = buf[pos]
        pos += 1
        if kind == 0:
            _, pos = leb(buf, pos)
            funcs += 1
        elif kind == 1:
            pos += 1
            flags, pos = leb(buf, pos)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 2:
            flags, pos = leb(buf, pos)
            _, pos = leb(buf, pos)
            if flags & 1:
                _, pos = leb(buf, pos)
        elif kind == 3:
            pos += 2
        else:
            raise SystemExit(f"unknown import kind {kind}")
    return funcs


def function_names(buf, start, end):
    nlen, pos = leb(buf, start)
    pos += nlen
    names = {}
    while pos < end:
        sub = buf[pos]
        size, pos = leb(buf, pos + 1)
        if sub == 1:
            count, p = leb(buf, pos)
            for _ in range(count):
                idx, p = leb(buf, p)
                n, p = leb(buf, p)
                names[idx] = buf[p:p + n].decode("utf-8", "replace")
                p += n
        pos += size
    return names


def demangle_all(raw_names):
    """Demangles Rust symbols (v0 `_R...` and legacy `_ZN...`) with llvm-cxxfilt, in one batch."""
    for tool in ("llvm-cxxfilt-14", "llvm-cxxfilt", "c++filt"):
        try:
            out = subprocess.run([tool], input="\n".join(raw_names), capture_output=True,
                                 text=True, check=True).stdout.split("\n")
        except (OSError, subprocess.CalledProcessError):
            continue
        if len(out) >= len(raw_names):
            return [re.sub(r"::h[0-9a-f]{16}$", "", o) for o in out[: len(raw_names)]]
    return list(raw_names)


def defining_crate(mangled):
    """The crate that defines a function (the root of its v0 path): generic code counts for
    the crate that wrote it, whichever type it was instantiated with."""
    s, pos = mangled, 2
    if not s.startswith("_R"):
        return demangled_crate(s)
    try:
        while pos < len(s):
            c = s[pos]
            if c == "N":
                pos += 2
            elif c == "I":
                pos += 1
            elif c in "MX":
                pos += 1
                if s[pos] == "s":
                    pos = s.index("_", pos) + 1
            elif c == "Y":
                pos += 1
                while s[pos] in "RQ":
                    pos += 1
            elif c == "C":
                pos += 1
                if s[pos] == "s":
                    pos = s.index("_", pos) + 1
                m = re.match(r"\d+", s[pos:])
                n = int(m.group())
                pos += len(m.group())
                if s[pos] == "_":
                    pos += 1
                return s[pos:pos + n]
            else:
                break
    except (IndexError, ValueError, AttributeError):
        pass
    return "(unparsed)"


def demangled_crate(name):
    """The crate of an already demangled name (wasm-bindgen and wasm-opt -g keep names in the
    form `crate[hash]::path`): for `<T as Trait>::f` the crate of T, or of Trait when T comes from
    core/alloc/std (the orphan rule puts such an impl in the trait's crate)."""
    name = re.sub(r"\[[0-9a-f]+\]", "", name).removeprefix("byn$mgfn-shared$")
    if name.startswith("<_ as "):
        trait = re.match(r"(?:dyn )?([A-Za-z_]\w*)::", name[6:])
        return trait.group(1) if trait else "(no Rust name)"
    head = re.match(r"[<&*( ]*(?:mut |dyn |const )?([A-Za-z_]\w*)::", name)
    if not head:
        return "(no Rust name)"
    crate = head.group(1)
    if name.startswith("<") and crate in ("core", "alloc", "std"):
        depth = 0
        for i, c in enumerate(name):
            depth += c == "<"
            depth -= c == ">"
            if depth == 1 and name.startswith(" as ", i):
                trait = re.match(r"(?:dyn )?([A-Za-z_]\w*)::", name[i + 4:])
                if trait:
                    return trait.group(1)
                break
    return crate


def daemonscope_module(path):
    """Which page (else the first module of this project) a demangled name mentions: what the
    generic leptos/tachys/serde code was instantiated for."""
    path = re.sub(r"\[[0-9a-f]+\]", "", path)
    m = re.search(r"\b(daemonscope::pages::\w+)", path) or re.search(
        r"\b(daemonscope(?:_domain)?::\w+(?:::\w+)?)", path
    )
    return m.group(1) if m else "(no daemonscope type in the name)"


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    top = 40
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    buf = open(args[0], "rb").read()
    secs = list(sections(buf))
    n_imports, names, bodies = 0, {}, []
    for sid, name, start, end, _ in secs:
        if sid == 2:
            n_imports = imported_funcs(buf, start)
        elif name == "custom:name":
            names = function_names(buf, start, end)
        elif sid == 10:
            count, pos = leb(buf, start)
            for _ in range(count):
                size, body = leb(buf, pos)
                bodies.append(body - pos + size)
                pos = body + size
    total = len(buf)
    print(f"module: {args[0]}: {total:,} bytes, {len(bodies):,} functions\n")
    print("| section | bytes | share |\n|---|---:|---:|")
    for _, name, _, _, size in sorted(secs, key=lambda s: -s[4]):
        print(f"| {name} | {size:,} | {100 * size / total:.1f}% |")
    raws = [names.get(n_imports + i, f"func[{n_imports + i}]") for i in range(len(bodies))]
    paths = demangle_all(raws)
    by_crate, by_mod, by_fn = (defaultdict(lambda: [0, 0]) for _ in range(3))
    for raw, path, size in zip(raws, paths, bodies):
        for table, key in ((by_crate, defining_crate(raw)), (by_mod, daemonscope_module(path))):
            table[key][0] += size
            table[key][1] += 1
        generic = re.sub(r"\[[0-9a-f]+\]", "", path)
        while True:
            shorter = re.sub(r"(\w|::)<[^<>]*>", r"\1‹›", generic)
            if shorter == generic:
                break
            generic = shorter
        by_fn[generic][0] += size
        by_fn[generic][1] += 1
    code = sum(bodies)
    print(f"\ncode section function bodies: {code:,} bytes\n")
    print("### by defining crate\n")
    print("| crate | bytes | share of code | functions |\n|---|---:|---:|---:|")
    for crate, (size, n) in sorted(by_crate.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"| {crate} | {size:,} | {100 * size / code:.1f}% | {n:,} |")
    print("\n### by the page (else the first module of this project) the name mentions: own code")
    print("and the generic code instantiated for it\n")
    print("| module | bytes | share of code | functions |\n|---|---:|---:|---:|")
    for mod, (size, n) in sorted(by_mod.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"| {mod} | {size:,} | {100 * size / code:.1f}% | {n:,} |")
    print(f"\n### top {top} functions (instances of one generic function summed, generic")
    print("arguments elided as ‹›)\n")
    print("| function | bytes | instances |\n|---|---:|---:|")
    for fn, (size, n) in sorted(by_fn.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"| `{fn[:160]}` | {size:,} | {n} |")

if __name__ == "__main__":
    main()
