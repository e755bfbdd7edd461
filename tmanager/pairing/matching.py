"""Maximum-weight perfect matching with exact integer weights, warm-started.

Edmonds' primal-dual blossom algorithm on a dense weight matrix. The Dutch
engine solves a dozen matchings per round over nearly the same graph: each one
changes the weights of one bracket's edges and rescales the rest. So the solver
keeps its matching, vertex duals and blossoms between calls; a new call frees
only the vertices whose edges changed (and the blossoms holding them), restores
dual feasibility around them, and augments from there. The optimum is the same
as a cold solve's: only the starting point differs.

Conventions: a vertex dual ``y`` and a blossom dual ``z`` are stored so that the
slack of an edge between two top-level blossoms is ``y[u] + y[v] - w[u][v]``
with ``w`` twice the weight; with a common parity for the free vertices every
quantity stays integral.

For one-off matchings of a plain graph, :func:`max_weight_perfect_matching` and
:func:`max_weight_matching` (any size, or the most edges first, as networkx's
``max_weight_matching``) solve cold on the same algorithm: it is the one matcher
of the pairing systems (a test checks it against networkx on random graphs).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

Edge = tuple[int, int]


def max_weight_perfect_matching(size: int, weights: Mapping[Edge, int]) -> list[Edge] | None:
    """The perfect matching of greatest total weight of the graph on vertices ``0..size-1`` whose edges are the
    keys of ``weights`` (integers), as pairs ``(a, b)`` with ``a < b`` in order; None if it has none."""
    if size % 2:
        return None
    if size == 0:
        return []
    matrix: list[list[int | None]] = [[None] * size for _ in range(size)]
    for (a, b), weight in weights.items():
        if a != b:
            matrix[a][b] = matrix[b][a] = 2 * weight
    vertices = range(size)
    try:
        mate = Matcher(size).solve(vertices, matrix, changed=vertices, grow=0)
    except NoPerfectMatching:
        return None
    return [(v, mate[v]) for v in vertices if v < mate[v]]


def max_weight_matching(size: int, weights: Mapping[Edge, int], *, most_edges: bool = False) -> list[Edge]:
    """A matching of greatest total weight of the graph on vertices ``0..size-1`` whose edges are the keys of
    ``weights``; with ``most_edges``, the heaviest of those with the most edges (networkx's ``max_weight_matching``
    and its ``maxcardinality``). Pairs ``(a, b)`` with ``a < b``, in order.

    Solved as a perfect matching of the graph doubled: each vertex ``v`` has a twin ``size + v`` joined to it by an
    edge of weight 0 (``v`` left unmatched), and the twins are joined to each other (pairing the twins of the
    matched vertices); with ``most_edges`` each real edge weighs more than any matching's weights can differ by.
    """
    bonus = size * max((abs(w) for w in weights.values()), default=0) + 1 if most_edges else 0
    doubled = {(a, b): weight + bonus for (a, b), weight in weights.items() if a != b}
    doubled |= {(v, size + v): 0 for v in range(size)}
    doubled |= {(size + u, size + v): 0 for v in range(size) for u in range(v)}
    matching = max_weight_perfect_matching(2 * size, doubled)
    assert matching is not None, "the doubled graph has a perfect matching: every vertex with its twin"
    return [(a, b) for a, b in matching if b < size]


class NoPerfectMatching(Exception):
    """The active vertices have no perfect matching (or the warm start lost integrality)."""


class Matcher:
    """A maximum-weight perfect matching of ``active`` vertices, kept between calls."""

    def __init__(self, size: int) -> None:
        self.n = size
        self.w: list[list[int | None]] = [[None] * size for _ in range(size)]
        self.active: list[int] = []
        self.mate = [-1] * size
        self.dual = [0] * (2 * size)
        self.inblossom = list(range(size))
        self.parent = [-1] * (2 * size)
        self.childs: list[list[int]] = [[] for _ in range(2 * size)]
        self.edges: list[list[Edge]] = [[] for _ in range(2 * size)]
        self.base = list(range(size)) + [-1] * size
        self.unused = list(range(2 * size - 1, size - 1, -1))
        self.warm = False
        self.nbr: list[list[int]] = [[] for _ in range(size)]

    # -- public -----------------------------------------------------------------

    def solve(
        self, active: Sequence[int], w: list[list[int | None]], *, changed: Collection[int], grow: int
    ) -> list[int]:
        """Match ``active`` perfectly with maximum total weight; return ``mate``.

        ``w`` holds twice the weights (None: no edge). Since the previous call the
        weights may have been multiplied by ``2**grow``; other changes must touch
        only vertices in ``changed``. Raises :class:`NoPerfectMatching`.
        """
        if self.warm:
            try:
                self._restart(active, w, changed, grow)
                return self._run()
            except NoPerfectMatching:
                pass
        self._cold(active, w)
        try:
            return self._run()
        except NoPerfectMatching:
            self.warm = False
            raise

    # -- start states -------------------------------------------------------------

    def _set_graph(self, active: Sequence[int], w: list[list[int | None]]) -> None:
        self.active = list(active)
        self.w = w
        for v in active:
            row = w[v]
            self.nbr[v] = [u for u in active if row[u] is not None and u != v]

    def _cold(self, active: Sequence[int], w: list[list[int | None]]) -> None:
        size = self.n
        self._set_graph(active, w)
        self.mate = [-1] * size
        # Half the heaviest edge at each end is feasible, and makes mutual
        # heaviest edges tight: a cheap head start.
        self.dual = [max((x for x in w[v] if x is not None), default=0) >> 1 for v in range(size)] + [0] * size
        self.inblossom = list(range(size))
        self.parent = [-1] * (2 * size)
        self.childs = [[] for _ in range(2 * size)]
        self.edges = [[] for _ in range(2 * size)]
        self.base = list(range(size)) + [-1] * size
        self.unused = list(range(2 * size - 1, size - 1, -1))

    def _restart(self, active: Sequence[int], w: list[list[int | None]], changed: Collection[int], grow: int) -> None:
        old = self.w
        dual, mate = self.dual, self.mate
        if grow:
            self.dual = dual = [d << grow for d in dual]
        keep = set(active)
        bad = {v for v in self.active if v not in keep}
        for v in changed:
            if v not in keep:
                continue
            row, old_row = w[v], old[v]
            for u in active:
                x, y = row[u], old_row[u]
                if (x is None) != (y is None) or (x is not None and y is not None and x != y << grow):
                    bad.add(v)
                    break
        self._set_graph(active, w)
        # Dissolve the blossoms holding a vertex whose edges changed.
        for v in list(bad):
            b = self.inblossom[v]
            if b >= self.n:
                while self.parent[b] != -1:
                    b = self.parent[b]
                self._dissolve(b, bad)
        for v in list(bad):
            m = mate[v]
            if m != -1:
                mate[m] = -1
                mate[v] = -1
        for v in bad:
            if v not in keep:
                continue
            row = w[v]
            best = max((row[u] - dual[u] for u in self.nbr[v]), default=dual[v])  # type: ignore[operator]
            dual[v] = best

    def _dissolve(self, b: int, bad: set[int]) -> None:
        """Turn top-level blossom ``b`` into its children, keeping the duals feasible."""
        z = self.dual[b]
        leaves = self._leaves(b)
        for v in leaves:
            self.dual[v] += z
        base = self.base[b]
        if z and self.mate[base] != -1:
            # The edge leaving the blossom lost tightness.
            m = self.mate[base]
            self.mate[base] = self.mate[m] = -1
        for c in self.childs[b]:
            self.parent[c] = -1
            for v in self._leaves(c):
                self.inblossom[v] = c
            if c >= self.n and any(v in bad for v in self._leaves(c)):
                self._dissolve(c, bad)
        self._free_blossom(b)

    def _free_blossom(self, b: int) -> None:
        self.childs[b] = []
        self.edges[b] = []
        self.base[b] = -1
        self.dual[b] = 0
        self.unused.append(b)

    def _leaves(self, b: int) -> list[int]:
        if b < self.n:
            return [b]
        out: list[int] = []
        stack = [b]
        while stack:
            x = stack.pop()
            if x < self.n:
                out.append(x)
            else:
                stack.extend(self.childs[x])
        return out

    # -- the blossom algorithm ------------------------------------------------------

    def _greedy(self) -> None:
        """Match free vertices along tight edges, then give the rest a common dual parity."""
        mate, dual, inblossom, w = self.mate, self.dual, self.inblossom, self.w
        for v in self.active:
            if mate[v] != -1:
                continue
            row, yv = w[v], dual[v]
            for u in self.nbr[v]:
                if mate[u] == -1 and inblossom[u] != inblossom[v] and yv + dual[u] == row[u]:
                    mate[u], mate[v] = v, u
                    break
        free = [v for v in self.active if mate[v] == -1]
        for v in free:
            if inblossom[v] == v and dual[v] & 1:
                dual[v] += 1
        if any(dual[v] & 1 for v in free):
            raise NoPerfectMatching

    def _run(self) -> list[int]:
        self._greedy()
        while any(self.mate[v] == -1 for v in self.active):
            self._stage()
        self.warm = True
        return self.mate

    def _slack(self, e: Edge) -> int:
        u, v = e
        return self.dual[u] + self.dual[v] - self.w[u][v]  # type: ignore[operator]

    def _stage(self) -> None:
        """Grow alternating trees from the free vertices until one path augments."""
        size = self.n
        self.label = label = [0] * (2 * size)
        self.labeledge: list[Edge | None] = [None] * (2 * size)
        # The least-slack edge to an S-blossom, and its slack (kept up to date by _dual_step).
        self.bestedge: list[Edge | None] = [None] * (2 * size)
        self.bestslack = [0] * (2 * size)
        self.blossombest: list[list[Edge] | None] = [None] * (2 * size)
        self.queue: list[int] = []
        inblossom, mate, dual, w, nbr = self.inblossom, self.mate, self.dual, self.w, self.nbr
        for v in self.active:
            if mate[v] == -1 and label[inblossom[v]] == 0:
                self._assign(v, 1, -1)
        bestedge, bestslack, labeledge = self.bestedge, self.bestslack, self.labeledge
        while True:
            queue = self.queue
            while queue:
                v = queue.pop()
                yv = dual[v]
                row = w[v]
                for u in nbr[v]:
                    # Read afresh: a blossom formed by an earlier neighbour may hold both.
                    bv, bu = inblossom[v], inblossom[u]
                    if bu == bv:
                        continue
                    # Exact integers: an edge made tight stays at slack <= 0 while it matters.
                    ks = yv + dual[u] - row[u]  # type: ignore[operator]
                    if ks <= 0:
                        lb = label[bu]
                        if lb == 0:
                            self._assign(u, 2, v)
                        elif lb == 1:
                            base = self._scan(v, u)
                            if base >= 0:
                                self._add_blossom(base, v, u)
                            else:
                                self._augment(v, u)
                                self._end_stage()
                                return
                        elif label[u] == 0:
                            label[u] = 2
                            labeledge[u] = (v, u)
                    elif label[bu] == 1:
                        if bestedge[bv] is None or ks < bestslack[bv]:
                            bestedge[bv] = (v, u)
                            bestslack[bv] = ks
                    elif label[u] == 0 and (bestedge[u] is None or ks < bestslack[u]):
                        bestedge[u] = (v, u)
                        bestslack[u] = ks
            self._dual_step()

    def _dual_step(self) -> None:
        """Change the duals by the largest amount that keeps them feasible."""
        label, inblossom, dual = self.label, self.inblossom, self.dual
        bestedge, bestslack = self.bestedge, self.bestslack
        delta: int | None = None
        kind = 0
        edge: Edge | None = None
        blossom = -1
        loose = []
        for v in self.active:
            if bestedge[v] is not None and label[inblossom[v]] == 0:
                loose.append(v)
                d = bestslack[v]
                if delta is None or d < delta:
                    delta, kind, edge = d, 2, bestedge[v]
        tops = {inblossom[v] for v in self.active}
        s_tops = []
        for b in tops:
            lb = label[b]
            if lb == 1:
                if bestedge[b] is not None:
                    s_tops.append(b)
                    d = bestslack[b]
                    if d & 1:
                        raise NoPerfectMatching  # parity lost: the caller starts cold
                    d >>= 1
                    if delta is None or d < delta:
                        delta, kind, edge = d, 3, bestedge[b]
            elif lb == 2 and b >= self.n and (delta is None or dual[b] < delta):
                delta, kind, blossom = dual[b], 4, b
        if delta is None:
            raise NoPerfectMatching
        for v in loose:
            bestslack[v] -= delta
        for b in s_tops:
            bestslack[b] -= 2 * delta
        for v in self.active:
            lb = label[inblossom[v]]
            if lb == 1:
                dual[v] -= delta
            elif lb == 2:
                dual[v] += delta
        for b in tops:
            if b >= self.n:
                if label[b] == 1:
                    dual[b] += delta
                elif label[b] == 2:
                    dual[b] -= delta
        if kind == 4:
            self._expand(blossom, end_stage=False)
        else:
            assert edge is not None
            self.queue.append(edge[0])

    def _assign(self, w: int, t: int, v: int) -> None:
        b = self.inblossom[w]
        label = self.label
        label[w] = label[b] = t
        self.labeledge[w] = self.labeledge[b] = (v, w) if v >= 0 else None
        self.bestedge[w] = self.bestedge[b] = None
        if t == 1:
            self.queue.extend(self._leaves(b))
        else:
            base = self.base[b]
            self._assign(self.mate[base], 1, base)

    def _scan(self, v: int, w: int) -> int:
        """The base of the blossom closed by edge (v, w), or -1 for an augmenting path."""
        label, labeledge, inblossom = self.label, self.labeledge, self.inblossom
        path = []
        base = -1
        while v != -1:
            b = inblossom[v]
            if label[b] & 4:
                base = self.base[b]
                break
            path.append(b)
            label[b] = 5
            e = labeledge[b]
            if e is None:
                v = -1
            else:
                t = inblossom[e[0]]
                e = labeledge[t]
                assert e is not None
                v = e[0]
            if w != -1:
                v, w = w, v
        for b in path:
            label[b] = 1
        return base

    def _add_blossom(self, base: int, v: int, w: int) -> None:
        inblossom, labeledge, parent = self.inblossom, self.labeledge, self.parent
        bb, bv, bw = inblossom[base], inblossom[v], inblossom[w]
        b = self.unused.pop()
        self.base[b] = base
        parent[b] = -1
        childs = [bb]
        edges: list[Edge] = []
        side: list[int] = []
        side_edges: list[Edge] = []
        x = bv
        while x != bb:
            e = labeledge[x]
            assert e is not None
            side.append(x)
            side_edges.append(e)
            x = inblossom[e[0]]
        childs.extend(reversed(side))
        edges.extend(reversed(side_edges))
        edges.append((v, w))
        x = bw
        while x != bb:
            e = labeledge[x]
            assert e is not None
            childs.append(x)
            edges.append((e[1], e[0]))
            x = inblossom[e[0]]
        self.childs[b] = childs
        self.edges[b] = edges
        for c in childs:
            parent[c] = b
        label = self.label
        label[b] = 1
        labeledge[b] = labeledge[bb]
        self.dual[b] = 0
        for leaf in self._leaves(b):
            if label[inblossom[leaf]] == 2:
                self.queue.append(leaf)
            inblossom[leaf] = b
        # The least-slack edge from the new blossom to each other S-blossom.
        best_to: dict[int, Edge] = {}
        slack_to: dict[int, int] = {}
        bestedge, blossombest = self.bestedge, self.blossombest
        for c in childs:
            listed = blossombest[c]
            candidates = listed if listed is not None else [(i, j) for i in self._leaves(c) for j in self.nbr[i]]
            for e in candidates:
                j = e[1]
                bj = inblossom[j]
                if bj != b and label[bj] == 1:
                    d = self._slack(e)
                    if bj not in best_to or d < slack_to[bj]:
                        best_to[bj] = e
                        slack_to[bj] = d
            blossombest[c] = None
            bestedge[c] = None
        blossombest[b] = list(best_to.values())
        best = min(best_to.values(), key=lambda e: slack_to[inblossom[e[1]]], default=None)
        bestedge[b] = best
        if best is not None:
            self.bestslack[b] = slack_to[inblossom[best[1]]]

    def _expand(self, b: int, *, end_stage: bool) -> None:
        inblossom, parent, dual = self.inblossom, self.parent, self.dual
        for c in self.childs[b]:
            parent[c] = -1
            if c < self.n:
                inblossom[c] = c
            elif end_stage and dual[c] == 0:
                self._expand(c, end_stage=True)
            else:
                for leaf in self._leaves(c):
                    inblossom[leaf] = c
        label, labeledge = self.label, self.labeledge
        if not end_stage and label[b] == 2:
            # Relabel the even path from the entry child to the base child.
            childs, edges = self.childs[b], self.edges[b]
            k = len(childs)
            entry = labeledge[b]
            assert entry is not None
            v, w = entry
            j = childs.index(inblossom[w])
            step = 1 if j & 1 else -1
            on_path = set()
            pos = j
            while True:
                c = childs[pos % k]
                on_path.add(c)
                if pos % k == 0:
                    label[w] = label[c] = 2
                    labeledge[w] = labeledge[c] = (v, w)
                    self.bestedge[w] = self.bestedge[c] = None
                    break
                self._assign(w, 2, v)
                on_path.add(childs[(pos + step) % k])
                if step == 1:
                    v, w = edges[(pos + 1) % k]
                else:
                    w, v = edges[(pos - 2) % k]
                pos += 2 * step
            for c in childs:
                if c in on_path or label[c] == 1:
                    continue
                for leaf in self._leaves(c):
                    if label[leaf] == 2:
                        e = labeledge[leaf]
                        assert e is not None
                        label[leaf] = 0
                        label[self.mate[self.base[c]]] = 0
                        self._assign(leaf, 2, e[0])
                        break
        label[b] = 0
        labeledge[b] = None
        self.bestedge[b] = None
        self.blossombest[b] = None
        self._free_blossom(b)

    def _augment_blossom(self, b: int, v: int) -> None:
        """Rematch the inside of blossom ``b`` so that vertex ``v`` becomes its base."""
        t = v
        while self.parent[t] != b:
            t = self.parent[t]
        if t >= self.n:
            self._augment_blossom(t, v)
        childs, edges = self.childs[b], self.edges[b]
        k = len(childs)
        i = childs.index(t)
        mate = self.mate
        j = i
        if i & 1:
            while j != k:
                x, y = edges[(j + 1) % k]
                self._rebase(childs[(j + 1) % k], x)
                self._rebase(childs[(j + 2) % k], y)
                mate[x], mate[y] = y, x
                j += 2
        else:
            while j != 0:
                x, y = edges[j - 2]
                self._rebase(childs[j - 2], x)
                self._rebase(childs[j - 1], y)
                mate[x], mate[y] = y, x
                j -= 2
        self.childs[b] = childs[i:] + childs[:i]
        self.edges[b] = edges[i:] + edges[:i]
        self.base[b] = v

    def _rebase(self, c: int, v: int) -> None:
        if c >= self.n:
            self._augment_blossom(c, v)

    def _augment(self, v: int, w: int) -> None:
        inblossom, labeledge, mate = self.inblossom, self.labeledge, self.mate
        for s, j in ((v, w), (w, v)):
            while True:
                bs = inblossom[s]
                if bs >= self.n:
                    self._augment_blossom(bs, s)
                mate[s] = j
                e = labeledge[bs]
                if e is None:
                    break
                bt = inblossom[e[0]]
                e = labeledge[bt]
                assert e is not None
                s, j = e
                if bt >= self.n:
                    self._augment_blossom(bt, j)
                mate[j] = s

    def _end_stage(self) -> None:
        for b in {self.inblossom[v] for v in self.active}:
            if b >= self.n and self.parent[b] == -1 and self.label[b] == 1 and self.dual[b] == 0:
                self._expand(b, end_stage=True)
