#!/usr/bin/env python3
"""Merges the corpus parts (Tests/Corpus/parts/*.jsonl) into Tests/Corpus/detectors.jsonl, or,
with `holdout`, the hold-out parts (Tests/Corpus/holdout/*.jsonl) into Tests/Corpus/holdout.jsonl.

Each part is collected and labelled on its own (Tests/Corpus/parts/PART.md says from where);
this checks every line (fields, labels, unique ids) and writes them in part order, then prints
the composition: texts, sources, languages, positives per label, the largest source's share.
"""
import json
import pathlib
import sys
from collections import Counter

LABELS = ["first_person", "picture_talk", "redundant_prefix", "meta_label", "refusal", "truncated", "markdown"]
FIELDS = ["id", "text", "lang", "kind", "author", "origin", "source", "labels"]
root = pathlib.Path(__file__).resolve().parent.parent / "Tests" / "Corpus"
holdout = sys.argv[1:] == ["holdout"]
folder, target = (root / "holdout", root / "holdout.jsonl") if holdout else (root / "parts", root / "detectors.jsonl")
out, seen, problems = [], set(), []
for part in sorted(folder.glob("*.jsonl")):
    for number, line in enumerate(part.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{part.name}:{number}"
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{where}: not JSON ({error})")
            continue
        missing = [f for f in FIELDS if f not in entry]
        if missing:
            problems.append(f"{where}: missing {missing}")
            continue
        if entry["id"] in seen:
            problems.append(f"{where}: duplicate id {entry['id']}")
        seen.add(entry["id"])
        if any(label not in LABELS for label in entry["labels"]):
            problems.append(f"{where}: unknown label in {entry['labels']}")
        if "picture_talk" not in entry["labels"] and "redundant_prefix" in entry["labels"]:
            entry["labels"].append("picture_talk")  # every redundant prefix is picture talk
        out.append({k: entry[k] for k in FIELDS + ["finish_reason", "note"] if k in entry})
if problems:
    sys.exit("\n".join(problems))
if holdout:
    development = [json.loads(line) for line in (root / "detectors.jsonl").read_text(encoding="utf-8").splitlines() if line]
    shared = sorted({e["origin"] for e in out} & {e["origin"] for e in development})
    if shared:
        sys.exit(f"hold-out origins also in the development corpus: {shared}")
    # The same published text can live in two repositories (a model's demo caption): keep it
    # in the development corpus only.
    texts = {e["text"] for e in development}
    repeated = [e["id"] for e in out if e["text"] in texts]
    if repeated:
        print("left out, already in the development corpus:", ", ".join(repeated))
    out = [e for e in out if e["text"] not in texts]
target.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in out), encoding="utf-8")
origins = Counter(e["origin"] for e in out)
print(f"{len(out)} texts, {len(origins)} sources, largest {origins.most_common(1)[0]}")
print("languages:", dict(Counter(e["lang"] for e in out).most_common()))
print("kinds:", dict(Counter(e["kind"] for e in out)))
print("positives:", {label: sum(label in e["labels"] for e in out) for label in LABELS})
print("no label:", sum(not e["labels"] for e in out))
