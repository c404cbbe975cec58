"""Shared timing harness: warm-up, round-robin repeats, medians and ratios.

A scenario module describes *what* to time as `Case`s holding `Contender`s; this
module decides *how*: every contender of a case is set up once, run a few times
for the scenario's correctness check, warmed up, and then timed in interleaved
rounds (in each round every contender runs a short block of back-to-back calls,
the starting contender rotating from round to round) so that background load on
a shared machine hits all of them alike. Each block starts with a few untimed
calls, because the previous contender's thread pools keep spinning for a few
milliseconds and would slow the first calls down. Reported figures are medians;
ratios are taken between contenders of the same case, measured side by side in
the same process.

This module must never import a framework (JAX excepted, only to count XLA
compilations): a framework that is missing must only skip its contenders.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import statistics
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any

# Call numbers (1-based) whose individual times are reported, to show compile
# cost (call 1), whether call 2 is already fast, and whether a late call is as
# fast as call 2 (a step that recompiles every call is slow at every call).
REPORTED_CALLS = (1, 2, 50)


# Scenario name -> function(quick) returning its cases; filled by `register`.
SCENARIOS: dict[str, Callable[[bool], list[Case]]] = {}


def register(name: str) -> Callable[[Callable[[bool], list[Case]]], Callable[[bool], list[Case]]]:
    """Decorator for a scenario module's `cases(quick)` function."""

    def decorate(fn: Callable[[bool], list[Case]]) -> Callable[[bool], list[Case]]:
        SCENARIOS[name] = fn
        return fn

    return decorate


class Skip(Exception):
    """Raised by a contender's setup when it cannot run here; the message says why."""


@dataclasses.dataclass
class Contender:
    """One way of running the case's workload.

    Attributes:
      name: the label printed in the table ("tf eager", "jax jit", ...).
      setup: builds the contender's state (weights, data, compiled functions)
        and returns the callable timed per call; raises `Skip` if it cannot run
        here. The callable must finish its work before returning (block on
        asynchronous results) and may return a value for the correctness check.
      uses_jax: whether XLA compilations during its calls are its own (shown in
        the compile columns; "—" otherwise).
    """

    name: str
    setup: Callable[[], Callable[[], Any]]
    uses_jax: bool = False


@dataclasses.dataclass
class Case:
    """One scenario at one size: the contenders timed side by side.

    Attributes:
      scenario: scenario name, as given to ``--only``.
      size: short label of the workload size.
      contenders: in table order.
      baselines: contender names that every median is divided by (one ratio
        column each, ``n/a`` where that baseline did not run).
      items_per_call: the timed callable does this many items (e.g. 100 ops);
        times are reported per item.
      unit: what an item is ("step", "op"), for the column header.
      warmup: calls per contender after the check calls and before timing.
      warm_in_s, block_s: in each timed round a contender first runs untimed
        calls for at least `warm_in_s` (at least one call, none if a call
        takes more than ten times as long), then timed calls
        for about `block_s` (at least one), back to back. The warm-in absorbs
        the previous contender's thread pools, which spin for a few
        milliseconds after their work and would otherwise steal cores.
      min_repeats, max_repeats, budget_s: timed rounds are run until
        `budget_s` has passed, but at least `min_repeats` and at most
        `max_repeats` of them.
      check_calls: the first calls of each contender, made one contender at a
        time from fresh state; their return values go to ``check``.
      check: turns ``{contender name: [return value of each check call]}`` into
        lines to print (warnings start with "WARNING"); it must not raise.
      report: extra lines computed from the finished `CaseResult`.
    """

    scenario: str
    size: str
    contenders: Sequence[Contender]
    baselines: Sequence[str]
    items_per_call: int = 1
    unit: str = "step"
    warmup: int = 5
    warm_in_s: float = 0.005
    block_s: float = 0.01
    min_repeats: int = 5
    max_repeats: int = 200
    budget_s: float = 10.0
    check_calls: int = 0
    check: Callable[[dict[str, list[Any]]], list[str]] | None = None
    report: Callable[[CaseResult], list[str]] | None = None


@dataclasses.dataclass
class Result:
    """What happened to one contender of a case. Times are seconds per item."""

    name: str
    status: str = "ok"  # "ok", "skipped" or "failed"
    note: str = ""
    call_times: list[float] = dataclasses.field(default_factory=list)  # every call, in order
    timed: list[float] = dataclasses.field(default_factory=list)  # timed calls only
    round_medians: list[float] = dataclasses.field(default_factory=list)  # one per round
    compiles: list[int] = dataclasses.field(default_factory=list)  # XLA compiles per call
    uses_jax: bool = False

    @property
    def median(self) -> float | None:
        return statistics.median(self.timed) if self.timed else None

    @property
    def spread(self) -> float | None:
        """Interquartile range relative to the median."""
        if len(self.timed) < 4:
            return None
        q1, _, q3 = statistics.quantiles(self.timed, n=4)
        return (q3 - q1) / statistics.median(self.timed)

    def call_time(self, number: int) -> float | None:
        return self.call_times[number - 1] if len(self.call_times) >= number else None

    def compiles_in(self, first: int, last: int | None = None) -> int:
        return sum(self.compiles[first - 1 : last])


@dataclasses.dataclass
class CaseResult:
    case: Case
    results: list[Result]
    check_lines: list[str]
    extra_lines: list[str]
    rounds: int
    wall_s: float

    def by_name(self, name: str) -> Result | None:
        return next((r for r in self.results if r.name == name), None)

    def ratio(self, name: str, baseline: str) -> float | None:
        """Median of `name` over median of `baseline`, if both ran."""
        a, b = self.by_name(name), self.by_name(baseline)
        if a is None or b is None or a.median is None or b.median is None:
            return None
        return a.median / b.median

    def paired_ratio(self, name: str, baseline: str) -> float | None:
        """Median over rounds of the per-round ratio (robust to slow drifts in load)."""
        a, b = self.by_name(name), self.by_name(baseline)
        if a is None or b is None or not a.round_medians:
            return None
        if len(a.round_medians) != len(b.round_medians):
            return None
        return statistics.median(
            x / y for x, y in zip(a.round_medians, b.round_medians, strict=True)
        )


class _CompileCounter:
    """Counts XLA backend compilations, via jax.monitoring, if JAX is importable."""

    EVENT = "/jax/core/compile/backend_compile_duration"

    def __init__(self) -> None:
        self.count = 0
        try:
            import jax.monitoring
        except ImportError:
            return
        jax.monitoring.register_event_duration_secs_listener(self._on_event)

    def _on_event(self, event: str, duration: float, **kwargs: Any) -> None:
        if event == self.EVENT:
            self.count += 1


_compile_counter: _CompileCounter | None = None


def _counter() -> _CompileCounter:
    global _compile_counter
    if _compile_counter is None:
        _compile_counter = _CompileCounter()
    return _compile_counter


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _failure_note(exc: BaseException) -> str:
    """One line naming the exception and where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = f" (at {last.filename.split('/work/main/')[-1]}:{last.lineno} in {last.name})"
    message = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {message[:300]}{where}"


def run_case(case: Case, *, log: Callable[[str], None] = lambda s: None) -> CaseResult:
    """Sets up, checks, warms up and times every contender of `case`."""
    start = time.perf_counter()
    counter = _counter()
    results: list[Result] = []
    steps: dict[str, Callable[[], Any]] = {}

    for contender in case.contenders:
        result = Result(contender.name, uses_jax=contender.uses_jax)
        results.append(result)
        try:
            steps[contender.name] = contender.setup()
        except Skip as exc:
            result.status, result.note = "skipped", str(exc)
        except Exception as exc:  # a contender under development may be broken
            result.status, result.note = "failed", "setup: " + _failure_note(exc)
    by_name = {r.name: r for r in results}

    def call(name: str) -> Any:
        """Times one call; on failure the contender drops out of the case."""
        result = by_name[name]
        compiles_before = counter.count
        t0 = time.perf_counter()
        try:
            value = steps[name]()
        except Exception as exc:
            result.status = "failed"
            result.note = f"call {len(result.call_times) + 1}: " + _failure_note(exc)
            del steps[name]
            return None
        elapsed = (time.perf_counter() - t0) / case.items_per_call
        result.call_times.append(elapsed)
        result.compiles.append(counter.count - compiles_before)
        return elapsed, value

    # Check calls: one contender at a time, so call 1 (compilation) of one
    # contender does not overlap anything else.
    outputs: dict[str, list[Any]] = {}
    for name in list(steps):
        log(f"  {case.scenario}/{case.size}: first calls of {name}")
        for _ in range(max(case.check_calls, 2)):
            got = call(name)
            if got is None:
                break
            if len(outputs.setdefault(name, [])) < case.check_calls:
                outputs[name].append(got[1])
    check_lines: list[str] = []
    if case.check is not None:
        check_lines = case.check({k: v for k, v in outputs.items() if k in steps})

    log(f"  {case.scenario}/{case.size}: warm-up ({case.warmup} calls each)")
    for name in list(steps):
        for _ in range(case.warmup):
            if call(name) is None:
                break

    # Block sizes from a step-time estimate: first from the warm-up calls (a low
    # quantile, since a shared machine stalls now and then), then from the
    # last few timed blocks.
    estimate = {
        r.name: _quantile(r.call_times[2:] or r.call_times, 0.25) * case.items_per_call
        for r in results
        if r.name in steps
    }

    def calls_for(seconds: float, step_s: float) -> int:
        return min(1000, max(1, math.ceil(seconds / max(step_s, 1e-9))))

    log(f"  {case.scenario}/{case.size}: timing (~{case.budget_s:g} s)")
    gc.collect()
    rounds = 0
    timing_start = time.perf_counter()
    while rounds < case.max_repeats and (
        rounds < case.min_repeats or time.perf_counter() - timing_start < case.budget_s
    ):
        names = list(steps)
        if not names:
            break
        k = rounds % len(names)
        for name in names[k:] + names[:k]:
            result = by_name[name]
            # A step much longer than the warm-in needs none: the spin of
            # the previous contender's threads is then a negligible part of it.
            warm_in = 0 if estimate[name] > 10 * case.warm_in_s else case.warm_in_s
            for _ in range(calls_for(warm_in, estimate[name]) if warm_in else 0):
                if call(name) is None:
                    break
            first = len(result.call_times)
            for _ in range(calls_for(case.block_s, estimate[name])):
                if call(name) is None:
                    break
            block = result.call_times[first:]
            if name in steps and block:
                result.timed.extend(block)
                result.round_medians.append(statistics.median(block))
                recent = result.round_medians[-5:]
                estimate[name] = statistics.median(recent) * case.items_per_call
        rounds += 1
    for r in results:
        if r.status != "ok":
            r.timed, r.round_medians = [], []

    case_result = CaseResult(
        case=case,
        results=results,
        check_lines=check_lines,
        extra_lines=[],
        rounds=rounds,
        wall_s=time.perf_counter() - start,
    )
    if case.report is not None:
        case_result.extra_lines = case.report(case_result)
    return case_result


# ----------------------------------------------------------------------------
# Formatting


def format_time(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    raise AssertionError("unreachable")


def format_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "n/a"
    return f"{ratio:.3g}×" if ratio < 100 else f"{ratio:.0f}×"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    aligns = ["---" if i < 3 else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(aligns) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def timing_table(case_results: Sequence[CaseResult]) -> str:
    """Scenario, size, framework, median, spread, rounds, one column per baseline."""
    if not case_results:
        return ""
    first = case_results[0].case
    baselines = list(first.baselines)
    header = ["scenario", "size", "framework", f"median / {first.unit}", "IQR/median", "n"]
    header += [f"vs {b}" for b in baselines]
    rows = []
    for cr in case_results:
        for r in cr.results:
            if r.status != "ok":
                rows.append(
                    [cr.case.scenario, cr.case.size, r.name, r.status, "", ""]
                    + [""] * len(baselines)
                )
                continue
            spread = r.spread
            rows.append(
                [
                    cr.case.scenario,
                    cr.case.size,
                    r.name,
                    format_time(r.median),
                    "—" if spread is None else f"{spread:.0%}",
                    str(len(r.timed)),
                ]
                + [format_ratio(cr.ratio(r.name, b)) for b in cr.case.baselines]
            )
    return markdown_table(header, rows)


def compile_table(case_results: Sequence[CaseResult]) -> str:
    """Per contender: times of calls 1, 2 and 50, steady median, XLA compiles."""
    first = case_results[0].case
    header = ["scenario", "size", "framework"]
    header += [f"call {n}" for n in REPORTED_CALLS]
    header += [f"median / {first.unit}", "XLA compiles, calls 1–2", "XLA compiles, calls ≥3"]
    rows = []
    for cr in case_results:
        for r in cr.results:
            if not r.call_times:
                continue
            rows.append(
                [cr.case.scenario, cr.case.size, r.name]
                + [format_time(r.call_time(n)) for n in REPORTED_CALLS]
                + [format_time(r.median)]
                + ([str(r.compiles_in(1, 2)), str(r.compiles_in(3))] if r.uses_jax else ["—", "—"])
            )
    return markdown_table(header, rows)


def notes(case_results: Sequence[CaseResult]) -> list[str]:
    """Skips, failures, check results and scenario-specific lines."""
    lines = []
    for cr in case_results:
        prefix = f"{cr.case.scenario}/{cr.case.size}"
        for r in cr.results:
            if r.status != "ok":
                lines.append(f"- {prefix}: {r.name} {r.status}: {r.note}")
        lines += [f"- {prefix}: {line}" for line in cr.check_lines + cr.extra_lines]
    return lines


def to_json(cr: CaseResult) -> dict[str, Any]:
    baselines = list(cr.case.baselines)
    return {
        "scenario": cr.case.scenario,
        "size": cr.case.size,
        "unit": cr.case.unit,
        "rounds": cr.rounds,
        "wall_s": cr.wall_s,
        "check": cr.check_lines,
        "extra": cr.extra_lines,
        "contenders": [
            {
                "name": r.name,
                "status": r.status,
                "note": r.note,
                "median_s": r.median,
                "iqr_over_median": r.spread,
                "n": len(r.timed),
                "call_s": {str(n): r.call_time(n) for n in REPORTED_CALLS},
                "xla_compiles_calls_1_2": r.compiles_in(1, 2) if r.uses_jax else None,
                "xla_compiles_calls_3_on": r.compiles_in(3) if r.uses_jax else None,
                "ratio_of_medians": {b: cr.ratio(r.name, b) for b in baselines},
                "median_paired_ratio": {b: cr.paired_ratio(r.name, b) for b in baselines},
                "timed_s": r.timed,
            }
            for r in cr.results
        ],
    }
