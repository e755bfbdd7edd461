"""The order in which fastchess's ``std::unordered_map<std::string, …>`` hands its keys back.

fastchess prints the engines of its tracker (each one's time losses and crashes, at the match's end) as
it iterates such a map. That order is neither the keys' nor their insertion's: it follows the keys'
hashes (libstdc++'s ``std::hash<std::string>``, ``_Hash_bytes``, a 64-bit MurmurHash2 with its own seed)
and the map's history, as libstdc++ keeps its nodes in one list: a key goes first among those of its
bucket, or first of all when its bucket was empty, and the list is built again the same way, node by
node, each time the table grows. This module reproduces it for the libstdc++ fastchess is built with
(GCC 12's: the same orders as a program built with it, for 300 random sets of up to 40 names).
"""

from __future__ import annotations

from collections.abc import Iterable

_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_SEED = 0xC70F6907
#: The bucket counts the map grows through, each taken as its elements would outnumber its buckets
#: (libstdc++'s prime rehash policy at its load factor of 1; 13 from the first element).
_BUCKETS = (
    13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229, 172933, 351061, 712697, 1447153,
    2938679, 5967347,
)


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def string_hash(text: str) -> int:
    """libstdc++'s ``std::hash<std::string>`` of ``text`` (its UTF-8 bytes), on 64 bits."""
    data = text.encode()
    size = len(data)
    whole = size & ~7
    value = (_SEED ^ (size * _MUL)) & _MASK
    for start in range(0, whole, 8):
        word = _shift_mix(int.from_bytes(data[start:start + 8], "little") * _MUL & _MASK) * _MUL & _MASK
        value = (value ^ word) * _MUL & _MASK
    if size & 7:
        value = (value ^ int.from_bytes(data[whole:], "little")) * _MUL & _MASK
    return _shift_mix(_shift_mix(value) * _MUL & _MASK)


def _insert(nodes: list[tuple[str, int]], node: tuple[str, int], buckets: int) -> None:
    """Put ``node`` (a key and its hash) first among those of its bucket, or first of all."""
    bucket = node[1] % buckets
    nodes.insert(next((i for i, (_, code) in enumerate(nodes) if code % buckets == bucket), 0), node)


def iteration_order(keys: Iterable[str]) -> list[str]:
    """The keys as a map they were inserted into, in this order, hands them back (a repeat changes nothing)."""
    nodes: list[tuple[str, int]] = []
    growth = iter(_BUCKETS)
    buckets = 0
    for key in dict.fromkeys(keys):
        if len(nodes) + 1 > buckets:
            buckets = next(growth)
            old, nodes = nodes, []
            for node in old:
                _insert(nodes, node, buckets)
        _insert(nodes, (key, string_hash(key)), buckets)
    return [key for key, _ in nodes]
