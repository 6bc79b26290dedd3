"""Contention-free broadcast trees on a switched cluster (seed 004 §4.1).

* :func:`dfs_switch_order`, :func:`linear_order`, :func:`contention_free_linear_tree`:
  Algorithm 1 (§4.1.1) and the linear tree m_0 -> m_1 -> ... -> m_{P-1} of Theorem 1.
* :func:`algorithm2_reference`: Algorithm 2 exactly as Figure 4 writes it (O(P^4) and
  more: explicit trees, explicit contention checks) — the reference the fast one is
  tested against.
* :func:`contention_free_binary_tree`: Algorithm 2, same tree, fast (§4.1.2; see
  ``proofs/ethernet-trees.md``): the line (17) check depends on (i, k) only, and the
  dynamic programme is run by heights with boolean matrix products.
* :func:`contention_free_kary_tree`: the k-ary extension of §4.1.2's last paragraph,
  the least height over the trees made of 1..k consecutive sub-arrays per node whose
  root sends contend with nothing inside earlier subtrees (:func:`child_start_bounds`
  turns that precaution into one bound per (root switch, child start)).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass

import numpy as np

from .broadcast_tree import BroadcastTree
from .cluster import Cluster
from .contention import contending_pairs, is_contention_free_tree


# -- Algorithm 1 (§4.1.1) -------------------------------------------------------------

def dfs_switch_order(cluster: Cluster) -> list[str]:
    """Step 1 of Algorithm 1: the switches s_0, s_1, ... in the arrival order of a depth
    first search of G' (switches and switch links only) from the root's switch;
    neighbours are visited in the order of the cluster's links."""
    start = cluster.switch_of(cluster.root)
    order, seen = [start], {start}
    stack = [iter(cluster.switch_neighbours(start))]
    while stack:
        for v in stack[-1]:
            if v not in seen:
                seen.add(v)
                order.append(v)
                stack.append(iter(cluster.switch_neighbours(v)))
                break
        else:
            stack.pop()
    return order


def linear_order(cluster: Cluster) -> list[str]:
    """Step 2 of Algorithm 1: m_0 = n_r, then the machines switch by switch in DFS order
    (n_{0,0} .. n_{0,X_0-1}, n_{1,0}, ...); on a switch, the root first, then the file
    order."""
    order = []
    for switch in dfs_switch_order(cluster):
        on_switch = cluster.machines_on(switch)
        if cluster.root in on_switch:
            on_switch = (cluster.root,) + tuple(m for m in on_switch if m != cluster.root)
        order.extend(on_switch)
    return order


def contention_free_linear_tree(cluster: Cluster) -> BroadcastTree:
    """Algorithm 1's logical linear tree m_0 -> m_1 -> ... -> m_{P-1} (004 §4.1.1).

    Postcondition (Theorem 1): spans the machines and is contention-free."""
    m = linear_order(cluster)
    tree = BroadcastTree.from_edges(cluster.root, list(zip(m, m[1:])))
    _postcondition(cluster, tree, "Theorem 1")
    return tree


def _postcondition(cluster: Cluster, tree: BroadcastTree, claim: str) -> None:
    if not tree.spans(cluster.machines):
        raise AssertionError(f"postcondition: the tree does not span the machines ({claim})")
    if not is_contention_free_tree(cluster, tree.edges()):
        raise AssertionError(f"postcondition: two communications from different machines "
                             f"share a channel ({claim})")


# -- Algorithm 2 as written (Figure 4) --------------------------------------------------

def algorithm2_reference(cluster: Cluster) -> BroadcastTree:
    """Algorithm 2 of 004 Figure 4, line by line: ``best[i][j]`` and ``tree[i][j]`` for
    every sub-array S(i, j) of Algorithm 1's order, the check of line (17) done on the
    communications of tree[i+1][k-1] and their paths.  Slow; the reference of
    :func:`contention_free_binary_tree`.

    Pseudo-code and text disagree on line (24), which writes m_i -> index; the text
    ("m_i as the root, tree(i+1, k-1) as the left child, and tree(k, j) as the right
    child") makes it m_i -> m_index, used here."""
    m = linear_order(cluster)
    n = len(m)
    best: dict[tuple[int, int], int] = {}
    tree: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for i in range(n):                                    # lines (2)-(4)
        best[i, i], tree[i, i] = 0, []
    for i in range(n - 1):                                # lines (5)-(8)
        best[i, i + 1], tree[i, i + 1] = 1, [(i, i + 1)]
    for i in range(n - 2):                                # lines (9)-(12)
        best[i, i + 2], tree[i, i + 2] = 1, [(i, i + 1), (i, i + 2)]
    for length in range(3, n):                            # lines (13)-(26)
        for i in range(n - length):
            j = i + length
            best[i, j], index = None, None
            for k in range(i + 2, j + 1):
                left = [(m[a], m[b]) for a, b in tree[i + 1, k - 1]]
                if contending_pairs(cluster, [(m[i], m[k])] + left, different_senders=True):
                    continue                              # line (17)
                height = max(best[i + 1, k - 1], best[k, j]) + 1
                if best[i, j] is None or best[i, j] > height:
                    best[i, j], index = height, k
            tree[i, j] = [(i, i + 1), (i, index)] + tree[i + 1, index - 1] + tree[index, j]
    return _tree_of(m, tree[0, n - 1])


def _tree_of(m: list[str], pairs) -> BroadcastTree:
    """A BroadcastTree from index pairs; a node's children in increasing index order
    (the left child m_{i+1} first, 004 §4.2)."""
    return BroadcastTree.from_edges(m[0], [(m[a], m[b]) for a, b in sorted(pairs)])


# -- the fast dynamic programme ---------------------------------------------------------

@dataclass(frozen=True)
class LinearOrderGeometry:
    """What the contention checks need from Algorithm 1's order (proofs/ethernet-trees.md).

    ``machines``: m_0 .. m_{P-1}; ``switch_index[i]``: the DFS number of m_i's switch;
    ``allowed[i, k]`` (k >= i + 2): m_i -> m_k has no contention with any communication
    m_x -> m_y, i < x < y < k, that a tree of S(i+1, k-1) may use — the check of
    Figure 4's line (17), which does not depend on the tree of S(i+1, k-1)."""

    machines: tuple[str, ...]
    switch_index: np.ndarray
    allowed: np.ndarray


def linear_order_geometry(cluster: Cluster) -> LinearOrderGeometry:
    """Algorithm 1's order and the (i, k) checks of line (17), in O(|S|^2 + P^2).

    Every directed switch channel e lies on exactly one path s_t -> s_{t+1} of Lemma 1's
    cycle; call that t = tau(e).  m_i -> m_k contends with a tree of S(i+1, k-1) iff some
    channel e of path(s_a -> s_d) (a, d the switches of m_i, m_k) has
    b <= tau(e) < c, b and c the switches of m_{i+1} and m_{k-1}."""
    switches = dfs_switch_order(cluster)
    number = {s: t for t, s in enumerate(switches)}
    machines = tuple(linear_order(cluster))
    sw = np.array([number[cluster.switch_of(v)] for v in machines], dtype=np.int64)
    tau = _channel_positions(cluster, switches, number)
    n = len(machines)
    allowed = np.zeros((n, n), dtype=bool)
    first_above: dict[tuple[int, int], np.ndarray] = {}
    for i in range(n - 2):
        key = (int(sw[i]), int(sw[i + 1]))
        if key not in first_above:
            first_above[key] = _first_position_above(cluster, switches, number, tau, *key)
        # k = i+2 .. n-1: the smallest tau >= b on path(s_a -> s_d) must be >= c.
        allowed[i, i + 2:] = first_above[key][sw[i + 2:]] >= sw[i + 1:n - 1]
    return LinearOrderGeometry(machines, sw, allowed)


def _channel_positions(cluster, switches, number) -> dict:
    """tau(e) for every directed switch channel: with the DFS tree rooted at s_0,
    tau(u, parent u) = last DFS number in u's subtree and tau(parent u, u) = number(u)-1."""
    size = {s: 1 for s in switches}
    parent = {switches[0]: None}
    for s in switches:
        for v in cluster.switch_neighbours(s):
            if v not in parent:
                parent[v] = s
    for s in reversed(switches):
        if parent[s] is not None:
            size[parent[s]] += size[s]
    tau = {}
    for s in switches[1:]:
        tau[s, parent[s]] = number[s] + size[s] - 1
        tau[parent[s], s] = number[s] - 1
    return tau


def _first_position_above(cluster, switches, number, tau, a: int, b: int) -> np.ndarray:
    """For every switch s_d: min{tau(e) : e on path(s_a -> s_d), tau(e) >= b}, or a
    number larger than any DFS number when there is none."""
    none = len(switches) + 1
    result = np.full(len(switches), none, dtype=np.int64)
    start = switches[a]
    stack = [start]
    seen = {start}
    while stack:
        u = stack.pop()
        for v in cluster.switch_neighbours(u):
            if v not in seen:
                seen.add(v)
                t = tau[u, v]
                result[number[v]] = min(result[number[u]], t if t >= b else none)
                stack.append(v)
    return result


def _heights(geometry: LinearOrderGeometry) -> np.ndarray:
    """height[i, j] of the best tree of S(i, j) (Figure 4's best), for every sub-array
    whose best height is at most the final one; larger ones hold a sentinel.

    By heights h = 1, 2, ...: F_h[i, j] = (best[i, j] <= h) is F_{h-1} or j = i + 1 or,
    for j >= i+2, "some allowed k with F_{h-1}[i+1, k-1] and F_{h-1}[k, j]" — one boolean
    matrix product per level (float32 of 0/1: sums of at most P ones are exact
    integers)."""
    n = len(geometry.machines)
    height = _empty_heights(n)
    if n == 1:
        return height
    allowed = geometry.allowed.astype(np.float32)
    within = np.eye(n, dtype=np.float32)                       # F_0
    h = 0
    while height[0, n - 1] == _sentinel(n):
        h += 1
        left = np.zeros((n, n), dtype=np.float32)              # F_{h-1}[i+1, k-1]
        left[:-1, 1:] = within[1:, :-1]
        grown = ((allowed * left) @ within) > 0.5              # right child ends at j
        idx = np.arange(n - 1)
        grown[idx, idx + 1] = True                             # lines (5)-(8)
        within = _record_level(height, within, grown, h)
    return height


def _sentinel(n: int) -> int:
    return n + 1


def _empty_heights(n: int) -> np.ndarray:
    height = np.full((n, n), _sentinel(n), dtype=np.int64)
    np.fill_diagonal(height, 0)
    return height


def _record_level(height, within, grown, h: int) -> np.ndarray:
    """Write level h into ``height`` where F_h is new; return F_h as float32 0/1."""
    height[grown & (within < 0.5)] = h
    return ((within > 0.5) | grown).astype(np.float32)


def _choose_children(geometry, height, i: int, j: int) -> list[int]:
    """The first machine of each child sub-array of tree(i, j): [i+1] when j = i+1,
    else [i+1, k] with the smallest allowed k reaching best[i][j] (Figure 4's strict
    test at line (18) keeps the smallest k among equals).  Reads O(P) entries."""
    if j == i + 1:
        return [i + 1]
    target = height[i, j] - 1
    ks = np.arange(i + 2, j + 1)
    ok = (geometry.allowed[i, i + 2:j + 1] & (height[i + 1, i + 1:j] <= target)
          & (height[i + 2:j + 1, j] <= target))
    if not ok.any():
        raise AssertionError("postcondition: no split reaches the computed height")
    return [i + 1, int(ks[np.argmax(ok)])]


def _rebuild(cluster: Cluster, machines, height, choose, claim: str) -> BroadcastTree:
    """The tree of S(0, P-1) top down, ``choose(i, j)`` giving the children's starts;
    postconditions: it reaches height[0, P-1], spans and is contention-free."""
    n = len(machines)
    pairs, stack = [], [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        if i == j:
            continue
        starts = choose(i, j)
        ends = [x - 1 for x in starts[1:]] + [j]
        for x, y in zip(starts, ends):
            pairs.append((i, x))
            stack.append((x, y))
    tree = _tree_of(list(machines), pairs)
    if tree.height != height[0, n - 1]:
        raise AssertionError("postcondition: the rebuilt tree misses the computed height")
    _postcondition(cluster, tree, claim)
    return tree


def contention_free_binary_tree(cluster: Cluster) -> BroadcastTree:
    """Algorithm 2 of 004 §4.1.2 (Figure 4): the contention-free binary tree of least
    height among those the dynamic programme builds, identical to
    :func:`algorithm2_reference` (same heights, same first k among ties).

    O(|S|^2 + P^2) for the line (17) checks and O(P^3) per height level for the
    programme, with BLAS matrix products (proofs/ethernet-trees.md).
    Postcondition (Theorem 2): spans the machines and is contention-free."""
    geometry = linear_order_geometry(cluster)
    height = _heights(geometry)
    return _rebuild(cluster, geometry.machines, height,
                    lambda i, j: _choose_children(geometry, height, i, j), "Theorem 2")


# -- the k-ary extension (§4.1.2, last paragraph) ----------------------------------------

@dataclass(frozen=True)
class ChildStartBounds:
    """The precaution of the k-ary extension as a table (proofs/ethernet-trees.md).

    A node m_i of the k-ary tree has children sub-arrays starting at
    i+1 = x_1 < x_2 < ... < x_c.  m_i -> m_{x_t} contends with no communication inside
    the subtrees 1..t-1 (whatever forward trees they are) for every t iff each child
    starts at or after the bound of the next one: x_{t-1} >= ``bound(i, x_t)``.

    ``runs``: the machines switch by switch, (first, end) index ranges of Algorithm 1's
    order; ``run_of[i]``: the run of m_i; ``lowest[run_of[i], z]``: bound(i, z), -1 when
    any start will do (the bound depends on m_i's switch only)."""

    machines: tuple[str, ...]
    runs: tuple[tuple[int, int], ...]
    run_of: np.ndarray
    lowest: np.ndarray

    def bound(self, i: int, z: int) -> int:
        return int(self.lowest[self.run_of[i], z])


def child_start_bounds(cluster: Cluster) -> ChildStartBounds:
    """The bounds of :class:`ChildStartBounds`, in O(|S| log |S|) per switch carrying
    machines (one walk of the switch tree from it).

    For a root on switch s_a and a later child starting at m_z on s_d (d > a): if m_z is
    not the first machine of s_d, the previous child must start on s_d (at or after its
    first machine); if it is, let r be the largest tau(e) < c on path(s_a -> s_d), c the
    switch of m_{z-1}: the previous child must start at or after the first machine on a
    switch numbered above r (any start when there is no such r)."""
    switches = dfs_switch_order(cluster)
    number = {s: t for t, s in enumerate(switches)}
    machines = tuple(linear_order(cluster))
    n = len(machines)
    sw = np.array([number[cluster.switch_of(v)] for v in machines], dtype=np.int64)
    starts = [0] + [z for z in range(1, n) if sw[z] != sw[z - 1]]
    runs = tuple(zip(starts, starts[1:] + [n]))
    run_of = np.repeat(np.arange(len(runs)), [e - f for f, e in runs])
    first_of = {int(sw[f]): f for f, _ in runs}             # switch number -> first m
    previous = {int(sw[f]): int(sw[f - 1]) for f, _ in runs[1:]}   # c of each first m
    first_index = np.array(starts, dtype=np.int64)[run_of]  # first machine of m_z's run
    not_first = first_index != np.arange(n)
    neighbours = [[number[v] for v in cluster.switch_neighbours(s)] for s in switches]
    tau = {(number[u], number[v]): t
           for (u, v), t in _channel_positions(cluster, switches, number).items()}
    sw_list = sw.tolist()
    lowest = np.full((len(runs), n), -1, dtype=np.int64)
    for g, (f, e) in enumerate(runs):
        lowest[g, e:] = np.where(not_first[e:], first_index[e:], -1)   # later switches
        for d, r in _largest_below(neighbours, tau, int(sw[f]), previous).items():
            if r is not None:
                lowest[g, first_of[d]] = bisect_right(sw_list, r)   # y(r)
    return ChildStartBounds(machines, runs, run_of, lowest)


def _largest_below(neighbours, tau, a: int, previous: dict) -> dict:
    """For every switch s_d (d > a) in ``previous``: the largest tau(e) < previous[d] on
    path(s_a -> s_d), or None (switches by DFS number, ``neighbours[t]`` those of s_t,
    ``tau[t, u]`` the channel's tau).  The taus along such a path never decrease
    (proofs/ethernet-trees.md): the walk keeps the path's taus, sorted, and bisects."""
    found = {}
    path: list[int] = []                       # taus of path(s_a -> current switch)
    stack = [(a, -1, 0)]
    while stack:
        u, parent, depth = stack.pop()
        if depth:
            del path[depth - 1:]
            path.append(tau[parent, u])
            if u > a and u in previous:
                below = bisect_left(path, previous[u])
                found[u] = path[below - 1] if below else None
        # skip DFS subtrees numbered below a (tau(v, u) = last number in v's subtree)
        stack.extend((v, u, depth + 1) for v in neighbours[u]
                     if v != parent and (v < u or tau[v, u] > a))
    return found


def _kary_heights(bounds: ChildStartBounds, k: int) -> np.ndarray:
    """height[i, j]: the least height of a tree of S(i, j) in which every node's
    children are 1..k consecutive sub-arrays meeting the bounds, for every sub-array up
    to the final height (larger ones hold a sentinel).

    By heights h = 1, 2, ...: with W = F_{h-1}, V_t[i, x] = "children 1..t-1 of a tree
    of m_i fit in height h-1 and child t starts at m_x" (V_1[i, i+1] = 1,
    V_{t+1}[i, z] = OR over x >= bound(i, z) of V_t[i, x] W[x, z-1]) and
    F_h = F_{h-1} or (V_1 + ... + V_k) W: one full product per level (float32 of 0/1:
    sums of at most P ones are exact integers); the V steps are small (see
    :func:`_next_starts`)."""
    n = len(bounds.machines)
    height = _empty_heights(n)
    if n == 1:
        return height
    firsts = _FirstStarts(bounds)
    within = np.eye(n, dtype=np.float32)                       # F_0
    first = np.zeros((n, n), dtype=np.float32)                 # V_1
    first[np.arange(n - 1), np.arange(1, n)] = 1
    h = 0
    while height[0, n - 1] == _sentinel(n):
        h += 1
        shifted = np.zeros((n, n), dtype=np.float32)           # W[x, z-1] at [x, z]
        shifted[:, 1:] = within[:, :-1]
        ends = firsts.level(shifted)                           # W's columns, packed
        starts, any_start = first, first.copy()
        for _ in range(k - 1):
            starts = _next_starts(bounds, firsts, ends, starts, shifted)
            if not starts.any():
                break
            np.maximum(any_start, starts, out=any_start)
        within = _record_level(height, within, (any_start @ within) > 0.5, h)
    return height


class _FirstStarts:
    """The child starts that are first machines of their switch, whose bound depends on
    the root's switch, as bit sets: ``columns`` those machines m_z (z >= 1),
    ``suffix[r]`` the bits x >= the start of run r (run 0 starts at 0: every x),
    ``which[g, c]`` the suffix that root run g allows before column c (column c is the
    first machine of run c + 1)."""

    def __init__(self, bounds: ChildStartBounds):
        n = len(bounds.machines)
        run_starts = np.array([f for f, _ in bounds.runs], dtype=np.int64)
        self.columns = run_starts[1:]
        self.suffix = _bits(np.arange(n)[None, :] >= run_starts[:, None])
        low = bounds.lowest[:, self.columns]
        self.which = np.where(low < 0, 0, np.searchsorted(run_starts, low))

    def level(self, shifted) -> np.ndarray:
        """W[x, z - 1] of every column z, packed: the previous child's possible ends
        (one row of words per column; no columns: an empty array)."""
        return _bits(shifted[:, self.columns].T > 0.5)


def _bits(rows) -> np.ndarray:
    """Boolean rows packed into uint64 words (zero padded); the same layout for every
    call with the same row length."""
    rows = np.asarray(rows, dtype=bool)
    width = -(-rows.shape[1] // 64) * 64
    padded = np.zeros((rows.shape[0], width), dtype=bool)
    padded[:, :rows.shape[1]] = rows
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


def _next_starts(bounds: ChildStartBounds, firsts: _FirstStarts, ends, starts,
                 shifted) -> np.ndarray:
    """V_{t+1} from V_t = ``starts`` (see :func:`_kary_heights`), as float32 0/1.

    A start z that is not the first machine of its switch needs the previous start on
    its switch whatever the root (or the root is on it, and so are all the starts in
    between): one small product per switch.  A first machine's bound depends on the
    root's switch: per run of roots, V_t's rows AND W's columns (``ends``) AND the
    bounds' suffix masks (O(P |S| P/64) word operations in all)."""
    n = starts.shape[0]
    out = np.zeros((n, n), dtype=np.float32)
    for f, e in bounds.runs:
        if e - f >= 2:
            out[:e, f + 1:e] = starts[:e, f:e - 1] @ shifted[f:e - 1, f + 1:e]
    if firsts.columns.size:
        rows_bits = _bits(starts > 0.5)
        for g, (r0, r1) in enumerate(bounds.runs[:-1]):      # columns g.. follow run g
            allowed = ends[g:] & firsts.suffix[firsts.which[g, g:]]
            hit = (rows_bits[r0:r1, None, :] & allowed[None, :, :]).any(axis=2)
            out[r0:r1, firsts.columns[g:]] = hit
    return (out > 0.5).astype(np.float32)


def _kary_children(bounds: ChildStartBounds, height, i: int, j: int, k: int) -> list[int]:
    """The first machine of each child sub-array of tree(i, j), reaching height[i, j]:
    two or more children when that is possible (Figure 4's shape; one child only when
    it alone reaches the height), then the lexicographically first list of starts,
    a node stopping as soon as the rest fits in one child.  O(j - i) numpy steps."""
    if j == i + 1:
        return [i + 1]
    target = height[i, j] - 1
    bound = bounds.lowest[bounds.run_of[i]]
    need = _children_needed(height, bound, target, i, j, k)
    starts, x = [i + 1], i + 1
    while x == i + 1 or height[x, j] > target:
        zs = np.arange(x + 1, j + 1)
        ok = ((height[x, x:j] <= target) & (bound[zs] <= x)
              & (need[zs - i] <= k - len(starts)))
        if not ok.any():
            if x == i + 1 and height[x, j] <= target:
                break                                          # one child
            raise AssertionError("postcondition: no split reaches the computed height")
        x = int(zs[np.argmax(ok)])
        starts.append(x)
    return starts


def _children_needed(height, bound, target, i: int, j: int, k: int) -> np.ndarray:
    """need[x - i], x = i+1 .. j: the fewest consecutive children of m_i, each of
    height <= target, covering S(x, j) when the first starts at m_x (k + 1: more than
    k).  need[0] is unused."""
    big = k + 1
    need = np.full(j - i + 1, big, dtype=np.int64)
    for x in range(j, i, -1):
        if height[x, j] <= target:
            need[x - i] = 1
            continue
        zs = np.arange(x + 1, j + 1)
        ok = (height[x, x:j] <= target) & (bound[zs] <= x)
        if ok.any():
            need[x - i] = min(big, 1 + int(need[zs[ok] - i].min()))
    return need


def contention_free_kary_tree(cluster: Cluster, k: int) -> BroadcastTree:
    """The k-ary extension of Algorithm 2 (004 §4.1.2, last paragraph: "S(i, j) can
    basically be partitioned into k sub-arrays which form the k subtrees.  Precautions
    must be taken ..."): the least height over all trees in which each node m_i of a
    sub-array S(i, j) has as children 1..k consecutive sub-arrays of S(i+1, j), the
    first starting at m_{i+1}, and m_i's send to each later child contends with nothing
    inside the earlier children's subtrees (:class:`ChildStartBounds`) — that is, the
    least height among the contention-free trees built from consecutive sub-arrays of
    Algorithm 1's order (proofs/ethernet-trees.md).  Ties: see :func:`_kary_children`.

    O(|S|^2 log |S|) for the bounds, per height level one O(P^3) BLAS product and
    k-1 smaller ones.  Postcondition: spans the machines, reaches the computed height,
    is contention-free."""
    if k < 2:
        raise ValueError(f"k-ary trees need k >= 2, got {k}")
    bounds = child_start_bounds(cluster)
    height = _kary_heights(bounds, k)
    return _rebuild(cluster, bounds.machines, height,
                    lambda i, j: _kary_children(bounds, height, i, j, k),
                    f"{k}-ary extension of Theorem 2")


def kary_reference(cluster: Cluster, k: int) -> BroadcastTree:
    """The k-ary extension by plain enumeration (small P only; the reference of
    :func:`contention_free_kary_tree`): for every sub-array every list of child starts,
    the precaution checked on the explicit subtrees' paths (``contending_pairs``); the
    least height, ties as in :func:`_kary_children` (two or more children first, then
    the lexicographically first list)."""
    m = linear_order(cluster)
    n = len(m)
    memo: dict[tuple[int, int], tuple[int, list, list]] = {}

    def compositions(x, j, left):
        """Lists of later child starts after x covering S(x, j), <= left children."""
        yield []
        if left > 1:
            for y in range(x + 1, j + 1):
                for rest in compositions(y, j, left - 1):
                    yield [y] + rest

    def precaution(i, starts):
        inside = []
        for x, y in zip(starts, starts[1:]):
            inside += [(m[a], m[b]) for a, b in best(x, y - 1)[2]]
            pairs = contending_pairs(cluster, [(m[i], m[y])] + inside,
                                     different_senders=True)
            if any((m[i], m[y]) in (p.first, p.second) for p in pairs):
                return False
        return True

    def best(i, j):
        """(height, child starts, index pairs of the tree) of S(i, j)."""
        if (i, j) not in memo:
            if i == j:
                memo[i, j] = (0, [], [])
                return memo[i, j]
            options = []
            for rest in compositions(i + 1, j, k):
                starts = [i + 1] + rest
                if precaution(i, starts):
                    ends = [x - 1 for x in starts[1:]] + [j]
                    h = 1 + max(best(x, y)[0] for x, y in zip(starts, ends))
                    options.append((h, len(starts) == 1, starts))
            h, _, starts = min(options)
            ends = [x - 1 for x in starts[1:]] + [j]
            pairs = [(i, x) for x in starts]
            for x, y in zip(starts, ends):
                pairs += best(x, y)[2]
            memo[i, j] = (h, starts, pairs)
        return memo[i, j]

    return _tree_of(m, best(0, n - 1)[2])
