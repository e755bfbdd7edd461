"""Every relative link in README.md and docs/*.md leads somewhere: its file (or directory) exists, and its
``#anchor`` is a heading of that file under GitHub's rule for heading ids."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")
_CODE_SPAN = re.compile(r"(`+)(.*?)\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]*)(?:\s+\"[^\"]*\")?\)")
_INLINE_LINK_TEXT = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


@dataclass(frozen=True)
class Link:
    page: Path
    line: int
    target: str


def _prose_lines(page: Path) -> list[tuple[int, str]]:
    """The page's lines outside fenced code blocks, numbered from 1: a '# comment' in a shell block is no heading."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
        match = _FENCE.match(line)
        if match and (fence is None or (match.group(1) == fence and not line.strip().strip(fence[0]))):
            fence = match.group(1) if fence is None else None
            continue
        if fence is None:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's id of a heading: its rendered text lower-cased, punctuation dropped, each space a hyphen."""
    text = _INLINE_LINK_TEXT.sub(r"\1", heading)
    text = _CODE_SPAN.sub(lambda m: m.group(2), text)
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in _prose_lines(page):
        match = _HEADING.match(line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def relative_links(page: Path) -> list[Link]:
    links: list[Link] = []
    for number, line in _prose_lines(page):
        prose = _CODE_SPAN.sub("", line)  # a `[x](y)` in code is an example, no link
        for match in _LINK.finditer(prose):
            target = match.group(1)
            if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                links.append(Link(page=page, line=number, target=target))
    return links


def broken(link: Link) -> str | None:
    path_part, _, anchor = link.target.partition("#")
    target = (link.page.parent / path_part).resolve() if path_part else link.page
    if not target.exists():
        return f"no file {path_part}"
    if anchor and (target.is_dir() or anchor not in anchors(target)):
        return f"no heading #{anchor} in {target.name}"
    return None


def test_slug_follows_githubs_rule() -> None:
    assert slug("Why a pairing is what it is: `pair --explain`") == "why-a-pairing-is-what-it-is-pair---explain"
    assert slug("Workload A (`tools/bench_throughput.py`)") == "workload-a-toolsbench_throughputpy"
    assert slug("The Double-Swiss (FIDE C.04.5)") == "the-double-swiss-fide-c045"
    assert slug("Prizes: [the fund](x.md) & more") == "prizes-the-fund--more"


def test_a_broken_link_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Top\n\n## Top\n\n```sh\n# not a heading\n```toml\n## Still code\n```\n"
        "[a](#top-1) [b](#not-a-heading) [c](gone.md) [d](#still-code) `[e](gone.md)`\n"
    )
    found = {link.target: broken(link) for link in relative_links(page)}
    assert found == {
        "#top-1": None,
        "#not-a-heading": "no heading #not-a-heading in page.md",
        "gone.md": "no file gone.md",
        "#still-code": "no heading #still-code in page.md",
    }


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    links = relative_links(page)
    problems = [f"{page.name}:{link.line}: {link.target}: {why}" for link in links if (why := broken(link))]
    assert problems == []
