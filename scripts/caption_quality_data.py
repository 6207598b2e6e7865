#!/usr/bin/env python3
"""Build the caption-quality development benchmark and its classic-metric figures.

The benchmark asks whether a caption score agrees with people's judgements of
caption quality, measured as Kendall tau-c between the score and the human
ratings.  This script turns published human-rating datasets into
``Tests/Corpus/caption-quality/NAME.jsonl`` (one object per rated caption) and
computes the reference figures of the classic captioning metrics (BLEU-4,
ROUGE-L, METEOR, CIDEr-D, all from pycocoevalcap) on exactly the same captions
and references.

Nothing is downloaded: every dataset is read from a local copy of its published
files, whose directory is given on the command line (see SOURCES.md beside the
output for where each copy came from).

Usage (from the repository root; METEOR and the PTB tokenizer are Java
programs shipped inside pycocoevalcap, so a Java runtime must be on PATH,
e.g. `apt-get install -y default-jre-headless`):

    python3 -m venv /tmp/caption-quality-venv
    /tmp/caption-quality-venv/bin/pip install --no-deps -r scripts/requirements-caption-quality.txt

    # build the benchmark files
    /tmp/caption-quality-venv/bin/python scripts/caption_quality_data.py build thumb  /path/to/THumB/mscoco
    /tmp/caption-quality-venv/bin/python scripts/caption_quality_data.py build flickr8k-expert /path/to/Flickr8k_text

    # per-caption metrics and tau-c figures for a built file
    /tmp/caption-quality-venv/bin/python scripts/caption_quality_data.py metrics thumb
    /tmp/caption-quality-venv/bin/python scripts/caption_quality_data.py metrics flickr8k-expert

``build thumb`` reads ``mscoco_THumB-1.0.jsonl`` and ``mscoco_references.json``
(jungokasai/THumB, folder mscoco/).  ``build flickr8k-expert`` reads
``ExpertAnnotations.txt`` and ``Flickr8k.token.txt`` (the Flickr8k text
release of Hodosh et al., 2013).

Output records:

    {"id", "image", "system", "candidate", "references", "ratings", "rating"}

THumB records carry one more key, ``aspects``, with the published rubric
scores (P, R, Fl, Con, Inc) whose combination is the total ``rating``.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "Tests" / "Corpus" / "caption-quality"
DATASETS = ("thumb", "flickr8k-expert")
METRICS = ("bleu4", "rougeL", "meteor", "ciderD")


# ---------------------------------------------------------------------------
# Building the benchmark files
# ---------------------------------------------------------------------------

def _read_lines(path: Path) -> list[str]:
    """Lines of a text file without their line ending (texts kept as published)."""
    with open(path, encoding="utf-8", newline="") as f:
        return [line.rstrip("\r\n") for line in f if line.rstrip("\r\n") != ""]


def build_thumb(src: Path) -> list[dict]:
    """THumB 1.0 for MSCOCO (Kasai et al., NAACL 2022).

    500 Karpathy-test images x 5 captioners (Up-Down, Unified-VLP, VinVL-base,
    VinVL-large, Human) = 2,500 rated captions, in the published order.  The
    Human caption is one of the image's five COCO captions; the published
    references are the other four.  For 39 images the published reference list
    still contains the Human caption (left over from the fix of the Human
    alignment in commit 35e97e1); following the dataset's rule that references
    exclude the Human caption, it is removed from that image's references for
    every system, so those images keep 3 references.
    """
    rows = [json.loads(line) for line in _read_lines(src / "mscoco_THumB-1.0.jsonl")]
    refs_by_seg: dict[str, list[str]] = {}
    for line in _read_lines(src / "mscoco_references.json"):
        d = json.loads(line)
        refs_by_seg[d["seg_id"]] = d["refs"]
    human = {r["seg_id"]: r["hyp"] for r in rows if r["SYS"] == "Human"}
    system_names = {
        "Up-Down": "Up-Down",
        "Unified-VLP": "Unified-VLP",
        "VinVL-base": "VinVL-base",
        "VinVL-large": "VinVL-large",
        "Human": "human",
    }
    out = []
    seen = set()
    for r in rows:
        key = (r["seg_id"], r["SYS"])
        if key in seen:
            raise SystemExit(f"duplicate THumB row {key}")
        seen.add(key)
        refs = [x for x in refs_by_seg[r["seg_id"]] if x != human.get(r["seg_id"])]
        if not refs:
            raise SystemExit(f"no references left for {key}")
        total = r["human_score"]
        out.append({
            "id": f"thumb-{r['seg_id']}-{r['SYS']}",
            "image": r["image"],
            "system": system_names[r["SYS"]],
            "candidate": r["hyp"],
            "references": refs,
            "ratings": [total],
            "rating": total,
            "aspects": {k: r[k] for k in ("P", "R", "Fl", "Con", "Inc")},
        })
    return out


def build_flickr8k_expert(src: Path) -> list[dict]:
    """Flickr8k-Expert (Hodosh et al., JAIR 2013), CLIPScore / PAC-S protocol.

    Each line of ExpertAnnotations.txt pairs a judged image with a caption id
    (a Flickr8k caption written for some image) and three expert scores (1-4).
    As in SPICE, CLIPScore and PAC-S, a pair is dropped when its caption text is
    one of the judged image's own five captions (158 pairs); every other pair
    keeps all five captions of the judged image as references.  5,822 - 158 =
    5,664 rated captions, in the published order.  The candidates are
    human-written captions chosen by the retrieval systems of Hodosh et al., so
    system is "human" throughout.
    """
    caption_by_id: dict[str, str] = {}
    captions_by_image: dict[str, list[str]] = collections.defaultdict(list)
    for line in _read_lines(src / "Flickr8k.token.txt"):
        cid, text = line.split("\t", 1)
        caption_by_id[cid] = text
        captions_by_image[cid.split("#")[0]].append(text)
    out = []
    seen = set()
    for line in _read_lines(src / "ExpertAnnotations.txt"):
        image, cid, *scores = line.split("\t")
        if len(scores) != 3:
            raise SystemExit(f"bad ExpertAnnotations line: {line!r}")
        candidate = caption_by_id[cid]
        refs = captions_by_image[image]
        if len(refs) != 5:
            raise SystemExit(f"{image}: {len(refs)} references")
        if candidate in refs:
            continue
        key = (image, cid)
        if key in seen:
            raise SystemExit(f"duplicate Flickr8k-Expert pair {key}")
        seen.add(key)
        ratings = [int(s) for s in scores]
        out.append({
            "id": f"{image}|{cid}",
            "image": image,
            "system": "human",
            "candidate": candidate,
            "references": list(refs),
            "ratings": ratings,
            "rating": sum(ratings) / len(ratings),
        })
    return out


BUILDERS = {"thumb": build_thumb, "flickr8k-expert": build_flickr8k_expert}


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------------------
# Classic metrics (pycocoevalcap) and Kendall tau-c
# ---------------------------------------------------------------------------

def classic_metrics(records: list[dict]) -> dict[str, list[float]]:
    """Per-caption BLEU-4, ROUGE-L, METEOR and CIDEr-D from pycocoevalcap.

    All captions go to each scorer in one call, keyed by record, so CIDEr-D's
    document frequencies are taken over the references of the whole dataset
    (one document per rated caption, as pycocoevalcap does over the set it is
    given).  Candidates and references are PTB-tokenized (lower-cased,
    punctuation removed) by pycocoevalcap's tokenizer first.
    """
    from pycocoevalcap.bleu.bleu import Bleu
    from pycocoevalcap.cider.cider import Cider
    from pycocoevalcap.meteor.meteor import Meteor
    from pycocoevalcap.rouge.rouge import Rouge
    from pycocoevalcap.tokenizer.ptbtokenizer import PTBTokenizer

    keys = [str(i) for i in range(len(records))]
    gts = {k: [{"caption": c} for c in r["references"]] for k, r in zip(keys, records)}
    res = {k: [{"caption": r["candidate"]}] for k, r in zip(keys, records)}
    tok = PTBTokenizer()
    gts = tok.tokenize(gts)
    res = tok.tokenize(res)
    # The scorers iterate over gts.keys(); keep the record order.
    gts = {k: gts[k] for k in keys}
    res = {k: res[k] for k in keys}

    out: dict[str, list[float]] = {}
    _, bleu = Bleu(4).compute_score(gts, res, verbose=0)
    out["bleu4"] = [float(x) for x in bleu[3]]
    _, rouge = Rouge().compute_score(gts, res)
    out["rougeL"] = [float(x) for x in rouge]
    meteor_scorer = Meteor()
    _, meteor = meteor_scorer.compute_score(gts, res)
    out["meteor"] = [float(x) for x in meteor]
    _, cider = Cider().compute_score(gts, res)
    out["ciderD"] = [float(x) for x in cider]
    for name, values in out.items():
        if len(values) != len(records):
            raise SystemExit(f"{name}: {len(values)} scores for {len(records)} captions")
    return out


def tau_c(x: list[float], y: list[float]) -> float:
    from scipy.stats import kendalltau
    return float(kendalltau(x, y, variant="c").statistic)


def tau_b(x: list[float], y: list[float]) -> float:
    from scipy.stats import kendalltau
    return float(kendalltau(x, y, variant="b").statistic)


def pearson(x: list[float], y: list[float]) -> float:
    from scipy.stats import pearsonr
    return float(pearsonr(x, y).statistic)


def _r(v: float) -> float:
    return round(v, 5)


def figures_for(name: str, records: list[dict], scores: dict[str, list[float]]) -> dict:
    def per_caption(sel=None, target=lambda r: r["rating"]):
        idx = [i for i, r in enumerate(records) if sel is None or sel(r)]
        y = [target(records[i]) for i in idx]
        return len(idx), {
            m: {"tau_c": _r(tau_c([scores[m][i] for i in idx], y)),
                "tau_b": _r(tau_b([scores[m][i] for i in idx], y)),
                "pearson": _r(pearson([scores[m][i] for i in idx], y))}
            for m in METRICS}

    def per_rating():
        xs = {m: [] for m in METRICS}
        y = []
        for i, r in enumerate(records):
            for rating in r["ratings"]:
                y.append(rating)
                for m in METRICS:
                    xs[m].append(scores[m][i])
        return len(y), {
            m: {"tau_c": _r(tau_c(xs[m], y)), "tau_b": _r(tau_b(xs[m], y))}
            for m in METRICS}

    fig: dict = {"dataset": name, "n_captions": len(records)}
    if name == "flickr8k-expert":
        n, res = per_rating()
        fig["protocol"] = (
            "One pair per (caption, single expert rating): each of the 5,664 kept "
            "captions counts three times, once with each of its three expert "
            "scores (1-4), against the caption's metric score; n = 16,992. This is "
            "the CLIPScore (Hessel et al., 2021) / PAC-S (Sarto et al., 2023) "
            "protocol. Pairs whose caption is one of the judged image's own five "
            "captions are dropped; references are the judged image's five "
            "captions. tau-c is scipy.stats.kendalltau(metric, human, variant='c').")
        fig["n"] = n
        fig["tau_c"] = {m: res[m]["tau_c"] for m in METRICS}
        fig["tau_b"] = {m: res[m]["tau_b"] for m in METRICS}
        n2, res2 = per_caption()
        fig["secondary"] = {
            "per_caption_mean": {
                "protocol": "One pair per caption: metric score vs the mean of its three expert scores.",
                "n": n2,
                **{k: {m: res2[m][k] for m in METRICS} for k in ("tau_c", "tau_b", "pearson")},
            }
        }
        fig["literature"] = {
            "note": ("Same protocol and pair count. PAC-S README (aimagelab/pacscore) "
                     "prints tau-b / tau-c from its compute_correlations.py; CLIPScore "
                     "(Hessel et al., EMNLP 2021, Table 1) reports tau-c. Values x100."),
            "PAC-S_readme_tau_c": {"bleu4": 30.776, "rougeL": 32.314, "meteor": 41.822, "ciderD": 43.891},
            "PAC-S_readme_tau_b": {"bleu4": 30.599, "rougeL": 32.139, "meteor": 41.538, "ciderD": 43.602},
            "CLIPScore_paper_tau_c": {"bleu4": 30.8, "rougeL": 32.3, "meteor": 41.8, "ciderD": 43.9},
        }
        fig["literature"]["ours_minus_PAC-S_readme_tau_c_x100"] = {
            m: round(100 * fig["tau_c"][m] - fig["literature"]["PAC-S_readme_tau_c"][m], 3)
            for m in METRICS}
    elif name == "thumb":
        n, res = per_caption()
        fig["protocol"] = (
            "One pair per rated caption: metric score vs THumB's published total "
            "human_score ((P+R)/2 + Fl + Con + Inc) over all 2,500 captions (4 "
            "captioners + Human, 500 images each). References are the image's "
            "published COCO references minus the Human caption (4 per image, 3 "
            "for 39 images). tau-c is scipy.stats.kendalltau(metric, human, "
            "variant='c').")
        fig["n"] = n
        fig["tau_c"] = {m: res[m]["tau_c"] for m in METRICS}
        fig["tau_b"] = {m: res[m]["tau_b"] for m in METRICS}
        fig["pearson"] = {m: res[m]["pearson"] for m in METRICS}
        sec = {}
        n2, res2 = per_caption(sel=lambda r: r["system"] != "human")
        sec["machine_only_total"] = {
            "protocol": "Same, machine captions only (THumB's 'w/o Human' setting).",
            "n": n2, **{k: {m: res2[m][k] for m in METRICS} for k in ("tau_c", "tau_b", "pearson")}}
        for aspect in ("P", "R"):
            for label, sel in (("all", None), ("machine_only", lambda r: r["system"] != "human")):
                n3, res3 = per_caption(sel=sel, target=lambda r, a=aspect: r["aspects"][a])
                sec[f"{label}_{aspect}"] = {
                    "protocol": f"Metric score vs THumB's {aspect} (1-5) rubric score, {label.replace('_', ' ')} captions.",
                    "n": n3, **{k: {m: res3[m][k] for m in METRICS} for k in ("tau_c", "pearson")}}
        fig["secondary"] = sec
    return fig


def tool_versions() -> dict:
    import importlib.metadata as md
    v = {"python": platform.python_version()}
    for pkg in ("pycocoevalcap", "scipy", "numpy"):
        try:
            v[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            v[pkg] = None
    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True)
        v["java"] = (java.stderr or java.stdout).splitlines()[0]
    except OSError:
        v["java"] = None
    return v


def run_metrics(name: str, out_dir: Path) -> dict:
    records = read_jsonl(out_dir / f"{name}.jsonl")
    scores = classic_metrics(records)
    with open(out_dir / f"{name}-metrics.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for i, r in enumerate(records):
            f.write(json.dumps({"id": r["id"], **{m: scores[m][i] for m in METRICS}}) + "\n")
    fig = figures_for(name, records, scores)
    fig["tools"] = tool_versions()
    with open(out_dir / f"{name}-figures.json", "w", encoding="utf-8", newline="\n") as f:
        json.dump(fig, f, indent=2)
        f.write("\n")
    return fig


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out-dir", type=Path, default=OUT_DIR,
                   help="output folder (default: Tests/Corpus/caption-quality)")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="build NAME.jsonl from a local copy of the published files")
    b.add_argument("name", choices=DATASETS)
    b.add_argument("source", type=Path, help="folder holding the dataset's published files")
    m = sub.add_parser("metrics", help="write NAME-metrics.jsonl and NAME-figures.json")
    m.add_argument("name", choices=DATASETS)
    args = p.parse_args(argv)

    if args.command == "build":
        records = BUILDERS[args.name](args.source)
        path = args.out_dir / f"{args.name}.jsonl"
        write_jsonl(path, records)
        systems = collections.Counter(r["system"] for r in records)
        print(f"{path}: {len(records)} captions, {len({r['image'] for r in records})} images, "
              f"systems {dict(systems)}, {os.path.getsize(path)} bytes")
    else:
        fig = run_metrics(args.name, args.out_dir)
        print(json.dumps({k: fig[k] for k in ("dataset", "n", "tau_c")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
