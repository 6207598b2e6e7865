#!/usr/bin/env python3
"""Regenerate the image fixtures that ImageSnifferTests reads.

Usage:  pip install pillow && python3 make_fixtures.py

Every encoded fixture is written by Pillow, a real encoder, so the tests check
the sniffer against the bytes real tools produce rather than against headers
built by hand. Each image has a different width and height, so a sniffer that
swaps the axes fails. The few non-image files (fake.png, empty.png, the SVG,
the PDF header and the HEIC brand box) are written byte by byte, because no
encoder is needed to make them and Pillow cannot write HEIC.

The expected format and size of every file is hard-coded in
Datasets/ImageSnifferTests.swift; this script checks that what it wrote reads
back with those sizes, and that each WebP file holds the chunk kind its name
promises (Pillow chooses VP8, VP8L or VP8X from the options it is given).
"""

from __future__ import annotations

import io
import struct
from pathlib import Path

from PIL import Image, ImageDraw, features

HERE = Path(__file__).resolve().parent


def picture(width: int, height: int, mode: str = "RGB", seed: int = 0) -> Image.Image:
    """A small image with gradients and a shape, so encoders do real work but stay tiny."""
    img = Image.new("RGB", (width, height))
    pixels = img.load()
    for y in range(height):
        for x in range(width):
            pixels[x, y] = (
                (x * 255 // max(width - 1, 1) + seed * 40) % 256,
                (y * 255 // max(height - 1, 1) + seed * 80) % 256,
                (128 + seed * 60) % 256,
            )
    draw = ImageDraw.Draw(img)
    draw.ellipse((width // 4, height // 4, width * 3 // 4, height * 3 // 4), fill=(250, 250, 240))
    if mode == "RGBA":
        img = img.convert("RGBA")
        alpha = Image.new("L", (width, height), 255)
        ImageDraw.Draw(alpha).rectangle((0, 0, width // 3, height), fill=0)
        img.putalpha(alpha)
    elif mode != "RGB":
        img = img.convert(mode)
    return img


def save(name: str, img: Image.Image, **options) -> None:
    img.save(HERE / name, **options)


def webp_first_chunk(name: str) -> str:
    data = (HERE / name).read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP", name
    return data[12:16].decode("ascii")


def jpeg_markers_before_sof(name: str) -> list[int]:
    """The markers a JPEG holds before its frame header, to prove the EXIF one comes first."""
    data = (HERE / name).read_bytes()
    pos, markers = 2, []
    while pos + 4 <= len(data):
        assert data[pos] == 0xFF, name
        marker = data[pos + 1]
        markers.append(marker)
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return markers
        pos += 2 + struct.unpack(">H", data[pos + 2 : pos + 4])[0]
    raise AssertionError(f"{name}: no frame header")


def main() -> None:
    # Encoded by Pillow. Sizes here must match the table in ImageSnifferTests.swift.
    save("png.png", picture(37, 21), optimize=True)
    save("jpeg-baseline.jpg", picture(41, 23, seed=1), quality=70)
    save("jpeg-progressive.jpg", picture(43, 19, seed=2), quality=70, progressive=True)

    exif = Image.Exif()
    exif[0x010F] = "altbench"  # Make
    exif[0x0131] = "make_fixtures.py"  # Software
    exif[0x0112] = 1  # Orientation: upright, so stored and displayed sizes agree
    save("jpeg-exif.jpg", picture(29, 47, seed=3), quality=70, exif=exif.tobytes())

    save("webp-lossy.webp", picture(45, 27, seed=4), quality=60)
    save("webp-lossless.webp", picture(31, 17, seed=5), lossless=True)
    save("webp-alpha.webp", picture(53, 33, mode="RGBA", seed=6), quality=60)
    frames = [picture(26, 14, seed=s) for s in (7, 8)]
    save("webp-animated.webp", frames[0], save_all=True, append_images=frames[1:],
         duration=200, loop=0, quality=60)

    save("gif-static.gif", picture(35, 25, seed=9).convert("P", palette=Image.Palette.ADAPTIVE, colors=16))
    gif_frames = [picture(39, 22, seed=s).convert("P", palette=Image.Palette.ADAPTIVE, colors=16)
                  for s in (10, 11)]
    save("gif-animated.gif", gif_frames[0], save_all=True, append_images=gif_frames[1:],
         duration=200, loop=0)

    save("bmp.bmp", picture(33, 19, seed=12))
    save("tiff.tiff", picture(27, 13, seed=13), compression="tiff_deflate")
    save("ico.ico", picture(24, 24, mode="RGBA", seed=14), sizes=[(24, 24)])
    if features.check("avif"):
        save("avif.avif", picture(22, 18, seed=15), quality=50)
    else:
        raise SystemExit("this Pillow has no AVIF encoder: pip install -U pillow")

    # Written by hand: files that are not images, or that Pillow cannot encode.
    (HERE / "fake.png").write_text("These are my notes, not a picture.\n", encoding="utf-8")
    (HERE / "empty.png").write_bytes(b"")
    (HERE / "drawing.svg").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<!-- a red square -->\n"
        '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10">'
        '<rect width="20" height="10" fill="red"/></svg>\n',
        encoding="utf-8",
    )
    (HERE / "document.pdf").write_bytes(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")
    # An ISO BMFF 'ftyp' box as HEIC files from phones begin: size, 'ftyp',
    # major brand 'heic', minor version, compatible brands 'mif1' 'heic'.
    brands = b"heic" + struct.pack(">I", 0) + b"mif1heic"
    (HERE / "heic-brand.heic").write_bytes(struct.pack(">I", 8 + len(brands)) + b"ftyp" + brands)

    check()


EXPECTED_SIZES = {
    "png.png": ("PNG", 37, 21),
    "jpeg-baseline.jpg": ("JPEG", 41, 23),
    "jpeg-progressive.jpg": ("JPEG", 43, 19),
    "jpeg-exif.jpg": ("JPEG", 29, 47),
    "webp-lossy.webp": ("WEBP", 45, 27),
    "webp-lossless.webp": ("WEBP", 31, 17),
    "webp-alpha.webp": ("WEBP", 53, 33),
    "webp-animated.webp": ("WEBP", 26, 14),
    "gif-static.gif": ("GIF", 35, 25),
    "gif-animated.gif": ("GIF", 39, 22),
    "bmp.bmp": ("BMP", 33, 19),
    "tiff.tiff": ("TIFF", 27, 13),
    "ico.ico": ("ICO", 24, 24),
    "avif.avif": ("AVIF", 22, 18),
}


def check() -> None:
    for name, (fmt, width, height) in EXPECTED_SIZES.items():
        with Image.open(HERE / name) as img:
            assert img.format == fmt, (name, img.format)
            assert img.size == (width, height), (name, img.size)
    assert webp_first_chunk("webp-lossy.webp") == "VP8 "
    assert webp_first_chunk("webp-lossless.webp") == "VP8L"
    assert webp_first_chunk("webp-alpha.webp") == "VP8X"
    assert webp_first_chunk("webp-animated.webp") == "VP8X"
    with Image.open(HERE / "gif-animated.gif") as img:
        assert img.n_frames == 2, img.n_frames
    with Image.open(HERE / "gif-static.gif") as img:
        assert img.n_frames == 1, img.n_frames
    assert 0xE1 in jpeg_markers_before_sof("jpeg-exif.jpg"), "no APP1 before SOF"
    assert jpeg_markers_before_sof("jpeg-progressive.jpg")[-1] == 0xC2, "not progressive"
    assert jpeg_markers_before_sof("jpeg-baseline.jpg")[-1] == 0xC0, "not baseline"

    for path in sorted(HERE.iterdir()):
        if path.name != Path(__file__).name:
            print(f"{path.name:22} {path.stat().st_size:6} bytes")


if __name__ == "__main__":
    main()
