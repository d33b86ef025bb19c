"""The labs' own kernels as kernel specs, so `rooflab profile lab:NAME` can look at them like at a user kernel."""

from __future__ import annotations

from rooflab.documents.common import cache_sizes
from rooflab.errors import RooflabError
from rooflab.kernels.builders import gemm_params, vector_bytes
from rooflab.machine.env import usable_cpus
from rooflab.model.caches import block_size
from rooflab.paths import CSRC
from rooflab.toolchain.compiler import find_compiler, openmp_flags
from rooflab.userkernel.proto import parse_prototype, prototype_from_source
from rooflab.userkernel.spec import ArrayArg, KernelSpec

GEMM = {"gemm_ijk": "gemm.c", "gemm_ikj": "gemm.c", "gemm_blocked": "gemm.c", "gemm_regtile": "gemm.c",
        "gemm_packed": "gemm.c",
        **{f"loop_{o}": "loops.c" for o in ("ijk", "ikj", "jik", "jki", "kij", "kji")}}
STREAM = {"stream_read": "rl_read_pass", "stream_copy": "rl_copy_pass", "stream_triad": "rl_triad_pass"}


def names() -> list[str]:
    return sorted(GEMM) + sorted(STREAM)


def spec_for(name: str, machine: dict, n: int = 128) -> KernelSpec:
    isa = machine["isa"]
    if name == "gemm_packed":  # the ladder's best rung, on every CPU this process may use, built as the ladder's

        threads = usable_cpus()
        gp = gemm_params(isa)
        src = CSRC / "gemm.c"
        proto = prototype_from_source(src.read_text(), "gemm_packed_call", f"lab:{name}")
        args = {"M": "n", "N": "n", "K": "n", "A": ArrayArg(("n", "n"), "float32"),
                "B": ArrayArg(("n", "n"), "float32"), "C": ArrayArg(("n", "n"), "float32", output=True),
                "threads": threads}
        return KernelSpec(name=name, source=src, function="gemm_packed_call", prototype=proto, flops="2*n**3",
                          bytes="12*n**2", sizes=[{"n": max(n, 768)}], args=args,
                          flags=[f"-D{k}={v}" for k, v in gp.defines().items()], check={"C": "A @ B"},
                          tolerance=1e-4, precision="fp32", threads=threads, audit_function="rl_micro_packed",
                          openmp=openmp_flags(find_compiler()) is not None)
    if name in GEMM:
        src = CSRC / GEMM[name]
        fn = name if name.startswith("gemm_") else "gemm_" + name[5:]
        gp = gemm_params(isa)
        args = {"M": "n", "N": "n", "K": "n", "A": ArrayArg(("n", "n"), "float32"),
                "B": ArrayArg(("n", "n"), "float32"), "C": ArrayArg(("n", "n"), "float32", output=True)}
        if fn == "gemm_blocked":
            args["bs"] = block_size(cache_sizes(machine).get("L2") or (1 << 20))
        flags = [f"-D{k}={v}" for k, v in gp.defines().items()] if src.name == "gemm.c" else []
        if src.name == "loops.c":  # written by a macro: the prototype is not in the text
            proto = parse_prototype(f"void {fn}(long M, long N, long K, const float *A, const float *B, float *C)")
        else:
            proto = prototype_from_source(src.read_text(), fn, f"lab:{name}")
        return KernelSpec(name=name, source=src, function=fn, prototype=proto, flops="2*n**3", bytes="12*n**2",
                          sizes=[{"n": n}], args=args, flags=flags, check={"C": "A @ B"}, tolerance=1e-4,
                          precision="fp32")
    if name in STREAM:
        fn = STREAM[name]
        src = CSRC / "stream.c"
        proto = prototype_from_source(src.read_text(), fn, f"lab:{name}")
        m = n * 1024
        arrays = {"a": ArrayArg(("n",), "float64", output=name != "stream_read"),
                  "b": ArrayArg(("n",), "float64"), "c": ArrayArg(("n",), "float64")}
        args = {p.name: arrays[p.name] for p in proto.params if p.name in arrays}
        args.update({"s": 3.0, "lo": 0, "hi": "n"})
        args = {p.name: args[p.name] for p in proto.params}
        work = {"stream_read": ("n", "8*n"), "stream_copy": ("0", "16*n"), "stream_triad": ("2*n", "24*n")}[name]
        check = {"stream_copy": {"a": "b"}, "stream_triad": {"a": "b + s * c"}}.get(name, {})
        return KernelSpec(name=name, source=src, function=fn, prototype=proto, flops=work[0], bytes=work[1],
                          sizes=[{"n": m}], args=args, flags=[f"-DRL_VBYTES={vector_bytes(isa)}"], check=check,
                          precision="fp64")
    raise RooflabError(f"no lab kernel {name!r}; the lab kernels are: {', '.join(names())}")


REFERENCE = {"read": ("rl_read_call", "0", "8*n"), "copy": ("rl_copy_call", "0", "16*n"),
             "triad": ("rl_triad_call", "2*n", "24*n"), "copy_nt": ("rl_copy_nt_call", "0", "16*n"),
             "triad_nt": ("rl_triad_nt_call", "2*n", "24*n")}


def stream_reference(kind: str, n: int, threads: int, machine: dict) -> KernelSpec:
    """rooflab's own read, copy or triad kernel (the one its bandwidth ceilings come from) over arrays of ``n``
    doubles on ``threads`` threads, as a kernel spec: the live reference for a memory-bound kernel."""
    fn, flops, nbytes = REFERENCE[kind]
    src = CSRC / "stream.c"
    proto = prototype_from_source(src.read_text(), fn, f"stream reference {kind}")
    arrays = {"a": ArrayArg(("n",), "float64", output=kind != "read"), "b": ArrayArg(("n",), "float64"),
              "c": ArrayArg(("n",), "float64")}
    args = {p.name: arrays.get(p.name, {"s": 3.0, "n": "n", "threads": threads}.get(p.name)) for p in proto.params}
    return KernelSpec(name=f"{kind} reference", source=src, function=fn, prototype=proto, flops=flops, bytes=nbytes,
                      sizes=[{"n": n}], args=args, flags=[f"-DRL_VBYTES={vector_bytes(machine['isa'])}"],
                      check=CHECK.get(kind.removesuffix("_nt"), {}), precision="fp64", threads=threads, openmp=True)


CHECK = {"copy": {"a": "b"}, "triad": {"a": "b + 3.0 * c"}}  # what the references write, checked before timing
