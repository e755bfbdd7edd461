"""fastchess's unordered map of players: libstdc++'s string hash and iteration order, as a program built with
GCC 12 (fastchess's compiler) printed them."""

from __future__ import annotations

import pytest

from tmanager.fastchess.unordered import iteration_order, string_hash


def test_the_string_hash_is_libstdcxx_s() -> None:
    assert [string_hash(name) for name in ("aa", "ab", "ac")] == [
        468926534229516570, 5498234120169091963, 7277816461438670620,
    ]


@pytest.mark.parametrize(
    ("inserted", "handed_back"),
    [
        ("aa ac ab", "ac ab aa"),  # ab shares aa's bucket of 13: first of it, after ac's, which came later
        ("dev base New-abc123 Base-def456", "Base-def456 New-abc123 base dev"),
        ("é ü ñame engine-with-a-long-name-01 sf_2 sf", "sf sf_2 engine-with-a-long-name-01 ñame ü é"),
        # the 14th key grows the table to 29 buckets, and its list is built again
        ("aa ac ab x1 x2 x3 x4 x5 x6 x7 x8 x9 y1 y2 y3 y4", "y4 aa ab y2 ac x1 x2 x3 y1 x8 y3 x4 x5 x6 x7 x9"),
        ("aa ac aa ab", "ac ab aa"),
        ("", ""),
    ],
)
def test_the_iteration_order_is_libstdcxx_s(inserted: str, handed_back: str) -> None:
    assert iteration_order(inserted.split()) == handed_back.split()
