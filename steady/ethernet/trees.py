"""Contention-free broadcast trees on a switched cluster (seed 004 §4.1).

* :func:`dfs_switch_order`, :func:`linear_order`, :func:`contention_free_linear_tree`:
  Algorithm 1 (§4.1.1) and the linear tree m_0 -> m_1 -> ... -> m_{P-1} of Theorem 1.
* :func:`algorithm2_reference`: Algorithm 2 exactly as Figure 4 writes it (O(P^4) and
  more: explicit trees, explicit contention checks) — the reference the fast one is
  tested against.
* :func:`contention_free_binary_tree`: Algorithm 2, same tree, fast (§4.1.2; see
  ``proofs/ethernet-trees.md``): the line (17) check depends on (i, k) only, and the
  dynamic programme is run by heights with boolean matrix products.
* :func:`contention_free_kary_tree`: the k-ary extension of §4.1.2's last paragraph.
"""

from __future__ import annotations

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


def _heights(geometry: LinearOrderGeometry, arity: int) -> np.ndarray:
    """height[i, j] of the best tree of S(i, j) (Figure 4's best), for every sub-array
    whose best height is at most the final one; larger ones hold a sentinel.

    By heights h = 1, 2, ...: F_h[i, j] = (best[i, j] <= h) is F_{h-1} or, for j >= i+2,
    "some split into 2..arity children, the first starting at m_{i+1}, every other at an
    allowed m_x, all of height <= h-1" — boolean matrix products (float32 of 0/1:
    sums of at most P ones are exact integers)."""
    n = len(geometry.machines)
    sentinel = n + 1
    height = np.full((n, n), sentinel, dtype=np.int64)
    np.fill_diagonal(height, 0)
    if n == 1:
        return height
    allowed = geometry.allowed.astype(np.float32)
    within = np.eye(n, dtype=np.float32)                       # F_0
    h = 0
    while height[0, n - 1] == sentinel:
        h += 1
        shifted = np.zeros((n, n), dtype=np.float32)           # within[i+1, x-1]
        shifted[:-1, 1:] = within[1:, :-1]
        chain = allowed * shifted                              # next child starts at x
        grown = np.zeros((n, n), dtype=bool)
        for children in range(2, arity + 1):
            covered = (chain @ within) > 0.5                   # last child ends at j
            grown |= covered
            if children < arity:
                nxt = np.zeros((n, n), dtype=np.float32)
                nxt[:, 1:] = covered[:, :-1]
                chain = allowed * nxt
        idx = np.arange(n - 1)
        grown[idx, idx + 1] = True                             # lines (5)-(8)
        new = grown & (within < 0.5)
        height[new] = h
        within = (within > 0.5) | grown
        within = within.astype(np.float32)
    return height


def _choose_children(geometry, height, i: int, j: int, arity: int) -> list[int]:
    """The first machine of each child sub-array of tree(i, j): i+1, then the smallest
    allowed start such that the rest still fits (Figure 4's strict test at line (18)
    keeps the smallest k among equals); a node stops adding children as soon as the
    rest fits in one.  Reads O(P) entries of ``height`` per child."""
    if j == i + 1:
        return [i + 1]
    target = height[i, j] - 1
    allowed = geometry.allowed[i]
    pieces = _pieces_needed(height, allowed, target, i, j, arity)
    starts, x, left = [i + 1], i + 1, arity - 1
    while x == i + 1 or height[x, j] > target:
        ys = np.arange(x + 1, j + 1)
        ok = allowed[ys] & (height[x, x:j] <= target) & (pieces[ys - (i + 2)] <= left)
        if not ok.any():
            raise AssertionError("postcondition: no split reaches the computed height")
        x = int(ys[np.argmax(ok)])
        starts.append(x)
        left -= 1
    return starts


def _pieces_needed(height, allowed, target, i: int, j: int, arity: int) -> np.ndarray:
    """pieces[x - (i+2)]: fewest consecutive children (each of height <= target, every
    start allowed) covering S(x, j), for x = i+2 .. j (arity + 1 when impossible)."""
    big = arity + 1
    pieces = np.where(height[i + 2:j + 1, j] <= target, 1, big)
    if arity == 2:
        return pieces
    for x in range(j - 1, i + 1, -1):
        if pieces[x - (i + 2)] == 1:
            continue
        ys = np.arange(x + 1, j + 1)
        ok = allowed[ys] & (height[x, x:j] <= target)
        if ok.any():
            pieces[x - (i + 2)] = min(big, 1 + pieces[ys[ok] - (i + 2)].min())
    return pieces


def _dp_tree(cluster: Cluster, arity: int, claim: str) -> BroadcastTree:
    geometry = linear_order_geometry(cluster)
    m = geometry.machines
    n = len(m)
    height = _heights(geometry, arity)
    pairs, stack = [], [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        if i == j:
            continue
        starts = _choose_children(geometry, height, i, j, arity)
        ends = [x - 1 for x in starts[1:]] + [j]
        for x, y in zip(starts, ends):
            pairs.append((i, x))
            stack.append((x, y))
    tree = _tree_of(list(m), pairs)
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
    return _dp_tree(cluster, 2, "Theorem 2")


def contention_free_kary_tree(cluster: Cluster, k: int) -> BroadcastTree:
    """The k-ary extension of Algorithm 2 (004 §4.1.2, last paragraph): S(i, j) is m_i
    and 1..k consecutive sub-arrays, each a subtree (two or more when j >= i + 2, as in
    Algorithm 2); height minimised by the same programme.

    The paper's "precautions" are made precise as: the communication from m_i to the
    first machine m_x of a later child must not contend with the chain
    m_{i+1} -> ... -> m_{x-1} (hence with no tree over those machines) — line (17) for
    every child.  Sufficient for contention-freedom, and exactly line (17) when k = 2
    (the result is then Algorithm 2's tree).
    Postcondition: spans the machines and is contention-free."""
    if k < 2:
        raise ValueError(f"k-ary trees need k >= 2, got {k}")
    return _dp_tree(cluster, k, f"{k}-ary extension of Theorem 2")


def kary_reference(cluster: Cluster, k: int) -> BroadcastTree:
    """The k-ary programme by plain enumeration of the children's starts (small P
    only): every composition, the chain check done on explicit paths; the first
    composition of least height in the order of :func:`_choose_children`."""
    m = linear_order(cluster)
    n = len(m)
    memo: dict[tuple[int, int], tuple[int, list]] = {}

    def allowed(i, x):
        chain = [(m[y], m[y + 1]) for y in range(i + 1, x - 1)]
        return not contending_pairs(cluster, [(m[i], m[x])] + chain, different_senders=True)

    def compositions(i, x, j, left):
        """Lists of child starts after x covering S(x, j) with <= left children."""
        yield []
        if left > 1:
            for y in range(x + 1, j + 1):
                if allowed(i, y):
                    for rest in compositions(i, y, j, left - 1):
                        yield [y] + rest

    def best(i, j):
        if (i, j) not in memo:
            if i == j:
                memo[i, j] = (0, [])
            elif j == i + 1:
                memo[i, j] = (1, [i + 1])
            else:
                options = []
                for rest in compositions(i, i + 1, j, k):
                    if not rest:
                        continue
                    starts = [i + 1] + rest
                    ends = [x - 1 for x in starts[1:]] + [j]
                    options.append((1 + max(best(x, y)[0] for x, y in zip(starts, ends)),
                                    starts))
                low = min(h for h, _ in options)
                memo[i, j] = next(o for o in options if o[0] == low)
        return memo[i, j]

    pairs, stack = [], [(0, n - 1)]
    while stack:
        i, j = stack.pop()
        if i == j:
            continue
        starts = best(i, j)[1]
        ends = [x - 1 for x in starts[1:]] + [j]
        for x, y in zip(starts, ends):
            pairs.append((i, x))
            stack.append((x, y))
    return _tree_of(m, pairs)
