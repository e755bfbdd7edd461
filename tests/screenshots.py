"""Headless-Chromium screenshots for the HTML tests, and a zlib-only PNG reader to check them."""

from __future__ import annotations

import struct
import subprocess
import zlib
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"


def screenshot_ink(page: Path, tmp_path: Path) -> int:
    """Render ``page`` in headless Chromium (1000×800) and count its pixels that are not white."""
    shot = tmp_path / f"{page.stem}.png"
    subprocess.run(
        [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1000,800",
            page.as_uri(),
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    return non_white_pixels(shot.read_bytes())


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, channels and the rows of pixels (RGB or RGBA, 8 bits) of a PNG, unfiltered."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat, header = 8, b"", b""
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind, chunk = data[position + 4 : position + 8], data[position + 8 : position + 8 + length]
        header = chunk if kind == b"IHDR" else header
        idat += chunk if kind == b"IDAT" else b""
        position += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and colour in (2, 6), "Chromium writes 8-bit RGB(A)"
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, channels, rows


def non_white_pixels(png: bytes) -> int:
    """Count the pixels of a PNG that are not white."""
    width, channels, rows = png_pixels(png)
    return sum(1 for row in rows for x in range(0, width * channels, channels) if row[x : x + 3] != b"\xff\xff\xff")
