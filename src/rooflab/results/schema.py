"""Plain data for results, versioned JSON, and migrations of older documents.

Every JSON document rooflab writes carries ``schema``: ``"rooflab.<kind>/<version>"``. Readers call
:func:`migrate`, which upgrades older versions step by step through registered functions and refuses versions newer
than this rooflab knows, with a message that says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from rooflab.errors import RooflabError
from rooflab.i18n import msg

# kind -> current version
CURRENT = {
    "info": 1,
    "measure": 2,  # 2: statuses "impossible" (was "above-limit") and "disturbed"; bandwidth bounds; trust; NT kernels
    "measure.gpu": 2,  # measure --device cuda; 2: "above-limit" renamed "impossible"
    "lab.fma": 1, "lab.tiles": 1, "lab.loops": 1, "lab.blocking": 1,
    "lab.ladder": 2,  # 2: each rung says what it changes as an id (step_id), not only in English
    "lab.vectorize": 2,  # 2: each build of the flags matrix has an id
    "lab.threads": 1, "lab.imbalance": 1, "lab.numa": 1,
    "bench": 1, "compare": 1, "profile": 1,
    "history": 1,
    "run": 1,  # a stored run as `rooflab show --json` prints it: header, records and result
    "runs": 1,  # several stored runs
    "labs": 1,  # the list of labs
}

def _rename_above_limit(doc: dict) -> dict:
    for group in (doc.get("ceilings") or {}).values():
        for c in group if isinstance(group, list) else []:
            if isinstance(c, dict) and c.get("status") == "above-limit":
                c["status"] = "impossible"
    return doc


def _measure_1_to_2(doc: dict) -> dict:
    """A measure run stored before bandwidth had bounds: statuses renamed, every bandwidth ceiling held against the
    bound of its level (at the run's own clock), and the roofs drawn again from what is left. An old run whose
    figures break a bound stops being drawn as a roof, as a new one would."""
    from rooflab.model.bounds import KERNEL_ACCESS, bandwidth_bound
    from rooflab.model.roofline import measure_roofs, trust

    doc = _rename_above_limit(doc)
    m = doc.get("machine") or {}
    clock = max([m.get("clock_hz") or 0.0] + [c.get("clock_hz_during") or 0.0
                                              for c in (doc.get("ceilings") or {}).get("compute", [])])
    for c in (doc.get("ceilings") or {}).get("bandwidth", []):
        rate = c.get("bytes_per_s")
        if c.get("status") != "ok" or not rate or c.get("reference"):
            continue
        loads, stores = KERNEL_ACCESS.get(c.get("kernel"), (8.0, 0.0))
        bound, basis = bandwidth_bound(m.get("uarch"), c.get("level", "DRAM"), loads, stores, c.get("threads", 1),
                                       m.get("physical_cores") or c.get("threads", 1), clock)
        if rate > 1.02 * bound:
            c["status"] = "impossible"
            c["reason"] = msg("{rate:.3g} B/s is {r:.3g}x the most {level} can deliver to this kernel "
                              "({bound:.3g} B/s: {basis})", rate=rate, r=rate / bound, level=c.get("level"),
                              bound=bound, basis=basis)
    if "threads_all" in doc and "ceilings" in doc:
        doc["roofs"] = measure_roofs(doc)
        doc["trust"] = trust(doc)
    return doc


_LADDER_STEPS = {"baseline": "baseline", "loop order": "loop_order", "cache blocking": "blocking",
                 "register reuse": "register_reuse", "packing": "packing",
                 "SIMD microkernel for this ISA": "simd_microkernel", "threads": "threads", "reference": "reference"}


def _ladder_1_to_2(doc: dict) -> dict:
    """Rungs of /1 named their step only in an English description: its first words become the step's id."""
    for r in doc.get("rungs") or []:
        if isinstance(r, dict) and "step_id" not in r:
            r["step_id"] = _LADDER_STEPS.get(str(r.get("step", "")).split(":")[0], "")
    return doc


_VECTORIZE_IDS = (("-O2", "O2"), ("-O3 vectorizer off", "O3_novec"), ("-O3", "O3"))


def _vectorize_1_to_2(doc: dict) -> dict:
    """Builds of /1 were told apart by their flag labels: each gets the id of its build."""
    for r in doc.get("flags") or []:
        if isinstance(r, dict) and "id" not in r:
            label = str(r.get("label", ""))
            rid = dict(_VECTORIZE_IDS).get(label)
            if rid is None and label.startswith("-O3 -m"):
                rid = "O3_native_fastmath" if "fast-math" in label else "O3_native"
            r["id"] = rid or ""
    return doc


# (kind, from_version) -> function(doc) -> doc at from_version + 1
MIGRATIONS: dict[tuple[str, int], Callable[[dict], dict]] = {
    ("measure", 1): _measure_1_to_2,
    ("measure.gpu", 1): _rename_above_limit,
    ("lab.ladder", 1): _ladder_1_to_2,
    ("lab.vectorize", 1): _vectorize_1_to_2,
}


def schema_id(kind: str) -> str:
    return f"rooflab.{kind}/{CURRENT[kind]}"


def parse_schema(s: str) -> tuple[str, int]:
    if not isinstance(s, str) or not s.startswith("rooflab.") or "/" not in s:
        raise RooflabError(f"not a rooflab document (schema {s!r})")
    kind, ver = s[len("rooflab."):].rsplit("/", 1)
    try:
        return kind, int(ver)
    except ValueError:
        raise RooflabError(f"bad schema version in {s!r}") from None


def migrate(doc: dict) -> dict:
    """Bring a document to the current version of its kind."""
    kind, ver = parse_schema(doc.get("schema"))
    if kind not in CURRENT:
        raise RooflabError(f"unknown document kind {kind!r} (schema {doc.get('schema')!r})")
    cur = CURRENT[kind]
    if ver > cur:
        raise RooflabError(f"this document is rooflab.{kind}/{ver}, newer than this rooflab understands "
                           f"(/{cur}); upgrade rooflab to read it")
    while ver < cur:
        step = MIGRATIONS.get((kind, ver))
        if step is None:
            raise RooflabError(f"no migration from rooflab.{kind}/{ver} to /{ver + 1}")
        doc = step(dict(doc))
        ver += 1
        doc["schema"] = f"rooflab.{kind}/{ver}"
    return doc


class InvalidResult(RooflabError):
    pass


@dataclass
class Measurement:
    """One timed kernel at one configuration, with its raw samples and what they mean.

    ``seconds`` are per-repetition samples (overhead removed). ``flops`` and ``bytes`` are the work model of one
    repetition; rates are derived, never stored twice.
    """

    name: str
    params: dict
    seconds: list[float]
    flops: float = 0.0
    bytes: float = 0.0
    reps: int = 1
    ci95_seconds: tuple[float, float] | None = None
    rel_error: float | None = None
    audit: dict | None = None
    warnings: list[dict] = field(default_factory=list)

    def __post_init__(self):
        if not self.seconds:
            raise InvalidResult(f"{self.name}: a measurement needs samples")
        if any((not math.isfinite(s)) or s <= 0 for s in self.seconds):
            raise InvalidResult(f"{self.name}: times must be positive and finite")
        if self.flops < 0 or self.bytes < 0:
            raise InvalidResult(f"{self.name}: work counts must not be negative")

    @property
    def median_s(self) -> float:
        s = sorted(self.seconds)
        n = len(s)
        return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])

    def rate(self, work: float) -> tuple[float, tuple[float, float] | None]:
        """Work per second at the median time, and its CI (from the CI of the time)."""
        r = work / self.median_s
        ci = (work / self.ci95_seconds[1], work / self.ci95_seconds[0]) if self.ci95_seconds else None
        return r, ci

    def to_dict(self) -> dict:
        return {"name": self.name, "params": self.params, "seconds": self.seconds, "reps": self.reps,
                "flops": self.flops, "bytes": self.bytes,
                "ci95_seconds": list(self.ci95_seconds) if self.ci95_seconds else None,
                "rel_error": self.rel_error, "audit": self.audit, "warnings": self.warnings}

    @classmethod
    def from_dict(cls, d: dict) -> "Measurement":
        ci = d.get("ci95_seconds")
        return cls(name=d["name"], params=dict(d.get("params", {})), seconds=list(d["seconds"]),
                   flops=float(d.get("flops", 0.0)), bytes=float(d.get("bytes", 0.0)), reps=int(d.get("reps", 1)),
                   ci95_seconds=tuple(ci) if ci else None, rel_error=d.get("rel_error"), audit=d.get("audit"),
                   warnings=list(d.get("warnings", [])))
