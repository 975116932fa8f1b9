#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus (fuzz/seeds/TARGET/) from the conformance cases.

Per case family (the name's prefix: an-, sp-, md-, ...) and release, the smallest case, as long as
the whole set stays small. Run from anywhere: python3 fuzz/make-seeds.py
"""
import io, os, pathlib, shutil, zipfile

repo = pathlib.Path(__file__).resolve().parent.parent
cases_root = repo / "tests" / "conformance"
out = repo / "fuzz" / "seeds"
SEP = b"\n@@@ "
MAX_CASE = 24_000  # bytes of a case's inputs (captured bodies left out)
MAX_CASES = 27


def inputs_of(case):
    """The case's files as the readers take them: the captured bodies left out."""
    files = {}
    for p in sorted(case.rglob("*")):
        if not p.is_file():
            continue
        rel = p.relative_to(case).as_posix()
        name = p.name
        if name.startswith("request-") and name.endswith(".json") and not name.endswith(".meta.json"):
            continue
        if name in ("pi.stdout", "pi.stderr") or rel.startswith("snapshots/"):
            continue
        files[rel] = p.read_bytes()
    return files


def pack(files):
    """The files format of fuzz/src/lib.rs: case.json first, then `\\n@@@ PATH\\n` + bytes."""
    body = files.get("case.json", b"{}")
    for rel, data in files.items():
        if rel != "case.json":
            body += SEP + rel.encode() + b"\n" + data
    return body


picked = {}
for release in sorted(cases_root.iterdir()):
    if not release.is_dir():
        continue
    for case in sorted(release.iterdir()):
        if not (case / "case.json").exists():
            continue
        files = inputs_of(case)
        size = sum(len(b) for b in files.values())
        if size > MAX_CASE:
            continue
        key = (case.name.split("-")[0], release.name)
        if key not in picked or size < picked[key][0]:
            picked[key] = (size, f"{release.name}-{case.name}", files)

chosen = sorted(picked.values(), key=lambda t: t[1])
# Spread over families first, then releases, up to MAX_CASES.
by_family = {}
for size, name, files in chosen:
    by_family.setdefault(name.split("-", 2)[2].split("-")[0] if name.count("-") > 1 else name, []).append((size, name, files))
# Each family's cases rotated by its place, so the first round does not take one release only.
for n, fam in enumerate(sorted(by_family)):
    k = n % len(by_family[fam])
    by_family[fam] = by_family[fam][k:] + by_family[fam][:k]
cases = []
while len(cases) < MAX_CASES and any(by_family.values()):
    for fam in sorted(by_family):
        if by_family[fam] and len(cases) < MAX_CASES:
            cases.append(by_family[fam].pop(0))

if out.exists():
    shutil.rmtree(out)
targets = ["session", "detect", "json", "frontmatter", "text", "case", "assemble", "whatif",
           "recognize", "redact", "zip", "usage"]
for t in targets:
    (out / t).mkdir(parents=True)


def put(target, name, data):
    (out / target / name).write_bytes(data)


specs = [b"tool:read", b"skill:release-notes;api=openai-responses", b"thinking:old", b"model=mock-anthropic/claude-sonnet-4-5",
         b"context:AGENTS.md;pi=0.85.1", b"turn:a1", b"tool-result:t1:3", b"append-prompt", b"image:all;thinking=high"]
for i, (size, name, files) in enumerate(cases):
    packed = pack(files)
    for t in ("case", "assemble", "redact"):
        put(t, name, packed)
    put("whatif", name, specs[i % len(specs)] + b"\n" + packed)
    for rel, data in files.items():
        base = rel.rsplit("/", 1)[-1]
        flat = name + "--" + rel.replace("/", "_")
        if base.endswith(".jsonl"):
            put("session", flat, data)
            put("detect", flat, data)
            put("usage", flat, data)
        if base in ("models.json", "settings.json", "case.json", "tools.json"):
            put("json", flat, data)
            put("recognize", flat, rel.encode() + b"\n" + data)
        if base.endswith(".md"):
            put("frontmatter", flat, data)
        if base.endswith(".jsonl") or base == "SKILL.md":
            put("recognize", flat, rel.encode() + b"\n" + data)
    # pi's command line, one word a line, for the text target.
    case_json = files.get("case.json", b"")
    put("text", name + "--case.json", case_json)
    # The case as a zip: the export's layout (a folder), deflated, and one stored.
    buf = io.BytesIO()
    method = zipfile.ZIP_DEFLATED if i % 2 == 0 else zipfile.ZIP_STORED
    with zipfile.ZipFile(buf, "w", method) as z:
        for rel, data in files.items():
            z.writestr(f"{name}/{rel}", data)
    put("zip", name + ".zip", buf.getvalue())

for t in ("text",):
    put(t, "flags", b"--tools\nread,bash\n--model\nanthropic/claude:high\n@file.md\n--thinking=low\n$1 ${@:2} $ARGUMENTS ${2:-x}")
    put(t, "config", b"// comment\n{\"apiKey\": \"$HOME\", \"b\": \"!echo hi\" /* x */}")
    put(t, "date", b"2026-09-01T10:00:00.000Z")

total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
count = sum(1 for f in out.rglob("*") if f.is_file())
print(f"{len(cases)} cases, {count} seed files, {total} bytes")
