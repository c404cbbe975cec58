"""TF's CTC beam search (``tensorflow/core/util/ctc/ctc_beam_search.h``), step for step, on
the host: what ``tapejax.nn.ctc_beam_search_decoder`` runs.

Its result depends on the exact order in which TF's kernel keeps and drops beams: a
``gtl::TopN`` (``tensorflow/core/lib/gtl/top_n.h``) over libstdc++'s heap and sort
algorithms, whose orders for equal probabilities are part of the output. They are ported
here as they are, rather than replaced by Python's sort. Arithmetic is in the kernel's
type (float32 or float64), with its float ``LogSumExp``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["beam_search"]


# -- libstdc++'s heap and sort algorithms, with TF's "greater" comparator -------------------------


def _push_heap(a, hole, top, value, cmp):
    parent = (hole - 1) // 2
    while hole > top and cmp(a[parent], value):
        a[hole] = a[parent]
        hole = parent
        parent = (hole - 1) // 2
    a[hole] = value


def _adjust_heap(a, first, hole, length, value, cmp):
    """``std::__adjust_heap`` on ``a[first:first + length]`` (indices relative to ``first``)."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if cmp(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    view = _Offset(a, first)
    _push_heap(view, hole, top, value, cmp)


class _Offset:
    """``a[first:]`` as a writable view for ``_push_heap``."""

    __slots__ = ("a", "first")

    def __init__(self, a, first):
        self.a, self.first = a, first

    def __getitem__(self, i):
        return self.a[self.first + i]

    def __setitem__(self, i, v):
        self.a[self.first + i] = v


def make_heap(a, first, last, cmp):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], cmp)
        if parent == 0:
            return
        parent -= 1


def push_heap(a, first, last, cmp):
    _push_heap(_Offset(a, first), last - first - 1, 0, a[last - 1], cmp)


def _pop_heap_into(a, first, last, result, cmp):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, cmp)


def pop_heap(a, first, last, cmp):
    if last - first > 1:
        _pop_heap_into(a, first, last - 1, last - 1, cmp)


def sort_heap(a, first, last, cmp):
    while last - first > 1:
        last -= 1
        _pop_heap_into(a, first, last, last, cmp)


def _unguarded_linear_insert(a, i, cmp):
    value = a[i]
    nxt = i - 1
    while cmp(value, a[nxt]):
        a[i] = a[nxt]
        i = nxt
        nxt -= 1
    a[i] = value


def _insertion_sort(a, first, last, cmp):
    for i in range(first + 1, last):
        if cmp(a[i], a[first]):
            value = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _unguarded_linear_insert(a, i, cmp)


def _move_median_to_first(a, result, x, y, z, cmp):
    if cmp(a[x], a[y]):
        if cmp(a[y], a[z]):
            a[result], a[y] = a[y], a[result]
        elif cmp(a[x], a[z]):
            a[result], a[z] = a[z], a[result]
        else:
            a[result], a[x] = a[x], a[result]
    elif cmp(a[x], a[z]):
        a[result], a[x] = a[x], a[result]
    elif cmp(a[y], a[z]):
        a[result], a[z] = a[z], a[result]
    else:
        a[result], a[y] = a[y], a[result]


def _unguarded_partition(a, first, last, pivot, cmp):
    while True:
        while cmp(a[first], a[pivot]):
            first += 1
        last -= 1
        while cmp(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _introsort_loop(a, first, last, depth, cmp):
    while last - first > 16:
        if depth == 0:
            make_heap(a, first, last, cmp)  # std::__partial_sort(first, last, last)
            sort_heap(a, first, last, cmp)
            return
        depth -= 1
        mid = first + (last - first) // 2
        _move_median_to_first(a, first, first + 1, mid, last - 1, cmp)
        cut = _unguarded_partition(a, first + 1, last, first, cmp)
        _introsort_loop(a, cut, last, depth, cmp)
        last = cut


def std_sort(a, cmp):
    """``std::sort`` of the list ``a`` in place (libstdc++'s introsort)."""
    n = len(a)
    if n < 2:
        return
    _introsort_loop(a, 0, n, 2 * (n.bit_length() - 1), cmp)
    if n > 16:
        _insertion_sort(a, 0, 16, cmp)
        for i in range(16, n):
            _unguarded_linear_insert(a, i, cmp)
    else:
        _insertion_sort(a, 0, n, cmp)


# -- gtl::TopN -----------------------------------------------------------------------------------

_UNORDERED, _BOTTOM_KNOWN, _HEAP_SORTED = 0, 1, 2


def _greater(a, b) -> bool:  # TF's BeamComparer
    return a.new_total > b.new_total


class TopN:
    """``gtl::TopN<BeamEntry*, BeamComparer>``: the ``limit`` best entries."""

    def __init__(self, limit: int):
        self.limit = limit
        self.elements: list = []
        self.state = _UNORDERED

    def size(self) -> int:
        return min(len(self.elements), self.limit)

    def push(self, v) -> None:
        e = self.elements
        if self.limit == 0:
            return
        if self.state != _HEAP_SORTED:
            e.append(v)
            if not (self.state == _UNORDERED or _greater(e[-1], e[0])):
                e[0], e[-1] = e[-1], e[0]
            if len(e) == self.limit + 1:
                make_heap(e, 0, len(e), _greater)
                pop_heap(e, 0, len(e), _greater)
                self.state = _HEAP_SORTED
        elif _greater(v, e[0]):
            e[-1] = v
            push_heap(e, 0, len(e), _greater)
            pop_heap(e, 0, len(e), _greater)

    def peek_bottom(self):
        e = self.elements
        if self.state == _UNORDERED:
            low = 0
            for i in range(1, len(e)):
                if _greater(e[low], e[i]):
                    low = i
            if low:
                e[0], e[low] = e[low], e[0]
            self.state = _BOTTOM_KNOWN
        return e[0]

    def extract(self) -> list:
        out, self.elements = self.elements, []
        if self.state != _HEAP_SORTED:
            std_sort(out, _greater)
        else:
            out.pop()
            sort_heap(out, 0, len(out), _greater)
        return out

    def unsorted(self) -> list:
        return self.elements[: self.size()]

    def reset(self) -> None:
        self.elements = []
        self.state = _UNORDERED


# -- the beam search -------------------------------------------------------------------------------


class _Entry:
    """A ``BeamEntry``: a labelling (its parent's plus ``label``) and its probabilities."""

    __slots__ = ("parent", "label", "children", "old_total", "old_blank", "old_label")
    __slots__ += ("new_total", "new_blank", "new_label")

    def __init__(self, parent, label, zero):
        self.parent, self.label, self.children = parent, label, {}
        self.old_total = self.old_blank = self.old_label = zero
        self.new_total = self.new_blank = self.new_label = zero

    def child(self, label, zero):
        c = self.children.get(label)
        if c is None:
            c = self.children[label] = _Entry(self, label, zero)
        return c

    def labels(self) -> list:
        out, e = [], self
        while e.parent is not None:
            out.append(e.label)
            e = e.parent
        return out[::-1]


class _Search:
    """One ``CTCBeamSearchDecoder`` in the kernel's arithmetic type ``t`` (a NumPy scalar type)."""

    def __init__(self, num_classes: int, beam_width: int, t):
        self.num_classes, self.beam_width, self.t = num_classes, beam_width, t
        self.zero = t(-np.inf)  # kLogZero
        self.leaves = TopN(beam_width)
        self.reset()

    def reset(self):
        self.leaves.reset()
        self.root = _Entry(None, -1, self.zero)
        self.root.new_total = self.t(0.0)
        self.root.new_blank = self.t(0.0)
        self.leaves.push(self.root)

    def _log_sum_exp(self, a, b):
        """TF's ``LogSumExp``: ``log1pf(expf(...))`` in float whatever the type."""
        if a == self.zero:
            return b
        if b == self.zero:
            return a
        hi, lo = (a, b) if a > b else (b, a)
        term = np.float32(math.log1p(float(np.float32(_exp(float(np.float32(lo - hi)))))))
        return self.t(hi + self.t(term))

    def step(self, row: np.ndarray) -> None:
        t, zero = self.t, self.zero
        max_coeff = t(row.max())
        total = t(0.0)
        for v in row:
            total = t(total + t(_exp(float(t(v - max_coeff)))))
        norm = t(max_coeff + t(math.log(float(total))))
        blank = self.num_classes - 1

        branches = self.leaves.extract()
        self.leaves.reset()
        for b in branches:
            b.old_total, b.old_blank, b.old_label = b.new_total, b.new_blank, b.new_label
        for b in branches:
            if b.parent is not None:
                if b.parent.new_total != zero:  # the parent is active
                    p = b.parent
                    previous = p.old_blank if b.label == p.label else p.old_total
                    b.new_label = self._log_sum_exp(b.new_label, previous)
                b.new_label = t(b.new_label + t(row[b.label] - norm))
            b.new_blank = t(t(b.old_total + row[blank]) - norm)
            b.new_total = self._log_sum_exp(b.new_blank, b.new_label)
            self.leaves.push(b)

        leaves = self.leaves
        for b in branches:
            if not self._candidate(b.old_total):
                continue
            for label in range(self.num_classes - 1):
                c = b.child(label, zero)
                if c.new_total != zero:  # already in the beam
                    continue
                c.new_blank = zero
                previous = b.old_blank if c.label == b.label else b.old_total
                c.new_label = t(t(row[label] - norm) + previous)
                c.new_total = c.new_label
                if self._candidate(c.new_total):
                    if leaves.size() == self.beam_width:
                        bottom = leaves.peek_bottom()
                        bottom.new_total = bottom.new_blank = bottom.new_label = zero
                    leaves.push(c)
                else:
                    c.old_total = c.old_blank = c.old_label = zero
                    c.new_total = c.new_blank = c.new_label = zero

    def _candidate(self, total) -> bool:
        leaves = self.leaves
        return total > self.zero and (
            leaves.size() < self.beam_width or total > leaves.peek_bottom().new_total
        )

    def top_paths(self, n: int):
        """``TopPaths``: the ``n`` best labellings and their log-probabilities, or TF's error
        text."""
        if n > self.beam_width:
            return "requested more paths than the beam width."
        if n > self.leaves.size():
            return "Less leaves in the beam search than requested."
        best = TopN(n)
        for e in self.leaves.unsorted():
            best.push(e)
        branches = best.extract()
        return [(e.labels(), e.new_total) for e in branches[:n]]


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def beam_search(inputs: np.ndarray, lengths: np.ndarray, beam_width: int, top_paths: int):
    """TF's ``CTCBeamSearchDecoder`` kernel (``merge_repeated=False``, as TF 2's Python calls
    it): per batch entry the ``top_paths`` label sequences and their log-probabilities, or
    the error text of the first failing entry."""
    t = np.float64 if inputs.dtype == np.float64 else np.float32
    search = _Search(inputs.shape[2], beam_width, t)
    paths, scores = [], []
    for b in range(inputs.shape[1]):
        for step in range(int(lengths[b])):
            search.step(inputs[step, b].astype(t))
        found = search.top_paths(top_paths)
        if isinstance(found, str):
            return found
        search.reset()
        paths.append([p for p, _ in found])
        scores.append([s for _, s in found])
    return paths, np.asarray(scores, t).reshape(inputs.shape[1], top_paths)
