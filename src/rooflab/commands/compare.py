"""`rooflab compare A B`: did it really get faster?

Two kernels (``spec.toml:name``, or a spec with one kernel) are checked, then timed in interleaved rounds at each
size; the verdict comes from the per-round ratios (:func:`~rooflab.timing.stats.paired_ratio`). Two stored bench
runs are compared kernel by kernel and size by size from their raw samples, unpaired
(:func:`~rooflab.timing.stats.unpaired_ratio`), with what differed between the two records.
"""

from __future__ import annotations

from rooflab.errors import RooflabError
from rooflab.results.schema import schema_id
from rooflab.session import Session
from rooflab.timing.harness import HarnessConfig, Timing
from rooflab.kernels.runner import compare_c_kernels
from rooflab.timing.stats import paired_ratio, unpaired_ratio
from rooflab.kernels.user import build_spec, task
from rooflab.userkernel.spec import KernelSpec, load_spec


def is_run_ref(text: str) -> bool:
    return text.isdigit() or text.startswith(("latest", "last"))


def kernel_from(text: str) -> KernelSpec:
    path, _, name = text.partition(":") if ":" in text and not text.endswith(".toml") else (text, "", "")
    specs = load_spec(path)
    if name:
        for s in specs:
            if s.name == name:
                return s
        raise RooflabError(f"{text}: no kernel {name!r} in {path} (it has: {', '.join(s.name for s in specs)})")
    if len(specs) > 1:
        raise RooflabError(f"{text}: {path} has several kernels ({', '.join(s.name for s in specs)}); "
                           f"name one as {path}:NAME")
    return specs[0]


def compare_kernels(session: Session, a: KernelSpec, b: KernelSpec, *, threshold: float, rounds: int,
                    quick: bool) -> dict:
    if set(a.sizes[0]) != set(b.sizes[0]):
        raise RooflabError(f"{a.name} and {b.name} take different size variables ({', '.join(a.sizes[0])} vs "
                           f"{', '.join(b.sizes[0])}): they cannot be run at the same sizes")
    libs = {s.name: build_spec(s) for s in (a, b)}  # a CompileError stops here, with the compiler's message
    cfg = HarnessConfig(min_sample_s=0.005 if quick else max(a.min_sample, b.min_sample), samples=rounds, warmup=1)
    rows = []
    for size in a.sizes:
        label = " ".join(f"{k}={v}" for k, v in size.items())
        session.progress(f"compare at {label}")
        ka = task(a, libs[a.name], size, f"A {a.name} {label}")
        kb = task(b, libs[b.name], size, f"B {b.name} {label}")
        row = {"size": size}
        try:
            res = session.call(f"compare {label}", compare_c_kernels, ka, kb, cfg, rounds,
                               timeout_s=max(a.timeout, b.timeout) * 4)
        except RooflabError as exc:
            row["error"] = str(exc)
            rows.append(row)
            session.record(f"compare {label}", row)
            continue
        ta, tb = Timing.from_dict(res["A"]), Timing.from_dict(res["B"])
        c = paired_ratio(ta.samples, tb.samples, threshold=threshold)
        row.update(a_time_s=ta.summary.median, b_time_s=tb.summary.median, rel_error=res["rel_error"],
                   a_seconds=ta.samples, b_seconds=tb.samples, **c.to_dict())
        session.check_timing(ka.name, ta)
        session.check_timing(kb.name, tb)
        rows.append(row)
        session.record(f"compare {label}", row)
    return {"mode": "kernels", "a": a.to_dict(), "b": b.to_dict(), "rows": rows}


def _diff(x, y, path="") -> list[str]:
    """Fields that differ between two records (machine, environment, compiler, flags)."""
    if isinstance(x, dict) and isinstance(y, dict):
        out = []
        for k in sorted(set(x) | set(y)):
            if k in ("loadavg", "argv", "hostname") and path.endswith("environment"):
                continue
            out += _diff(x.get(k), y.get(k), f"{path}.{k}" if path else k)
        return out
    return [] if x == y else [f"{path}: {x!r} -> {y!r}"]


def compare_runs(session: Session, ra: str, rb: str, *, threshold: float) -> dict:
    st = session.store
    if st is None:
        raise RooflabError("comparing stored runs needs the store")
    da, db = st.get(ra), st.get(rb)
    for d in (da, db):
        if d["kind"] != "bench" or not d.get("result"):
            raise RooflabError(f"run {d['run_id']} is a {d['kind']} run ({d['status']}); compare takes two finished "
                               "bench runs")
    rows = []
    kb = {k["name"]: k for k in db["result"]["kernels"]}
    for k in da["result"]["kernels"]:
        other = kb.get(k["name"])
        if other is None:
            continue
        bsizes = {str(r["size"]): r for r in other["sizes"]}
        for r in k["sizes"]:
            o = bsizes.get(str(r["size"]))
            if not o or not r.get("seconds") or not o.get("seconds"):
                continue
            c = unpaired_ratio(r["seconds"], o["seconds"], threshold=threshold)
            rows.append({"kernel": k["name"], "size": r["size"], "a_time_s": r["time_s"], "b_time_s": o["time_s"],
                         **c.to_dict()})
    if not rows:
        raise RooflabError(f"runs {da['run_id']} and {db['run_id']} have no kernel and size in common")
    differs = _diff(da["header"].get("machine", {}), db["header"].get("machine", {}), "machine") + \
        _diff(da["header"].get("environment", {}), db["header"].get("environment", {}), "environment") + \
        _diff([k.get("library", {}).get("flags") for k in da["result"]["kernels"]],
              [k.get("library", {}).get("flags") for k in db["result"]["kernels"]], "flags") + \
        _diff([k.get("git") for k in da["result"]["kernels"]], [k.get("git") for k in db["result"]["kernels"]], "git")
    return {"mode": "runs", "a": {"run_id": da["run_id"], "created": da["created"]},
            "b": {"run_id": db["run_id"], "created": db["created"]}, "rows": rows, "record_differences": differs}


def run(session: Session, a: str, b: str, *, threshold: float = 0.02, rounds: int | None = None,
        quick: bool = False) -> dict:
    rounds = rounds or (10 if quick else 30)
    if is_run_ref(a) and is_run_ref(b):
        body = compare_runs(session, a, b, threshold=threshold)
    elif is_run_ref(a) or is_run_ref(b):
        raise RooflabError("compare two kernels (spec.toml[:NAME]) or two stored runs, not one of each")
    else:
        body = compare_kernels(session, kernel_from(a), kernel_from(b), threshold=threshold, rounds=rounds,
                               quick=quick)
    doc = {"schema": schema_id("compare"), "threshold": threshold, **body}
    from rooflab.interpret.compare import compare_observations

    return session.finish(doc, observe=compare_observations)
