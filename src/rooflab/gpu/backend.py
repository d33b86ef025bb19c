"""The device side of `measure --device cuda`: CuPy (NVRTC for rooflab's kernels, cuBLAS for the matrix ceilings),
every time taken with CUDA events around a batch of launches, after synchronisation; never host submission time.

A backend hands out ``Timed`` objects: ``run(reps)`` launches ``reps`` times between two events and returns the
seconds the device took; ``check()`` verifies the result (relative error); ``clock_hz()`` (FMA kernels) gives the
SM clock of the last launch, each block's ``clock64`` cycles over its ``%globaltimer`` nanoseconds.
:mod:`rooflab.commands.measure.gpu` only sees this interface, so it runs the same against :class:`SimulatedBackend`
in the tests.
"""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
from dataclasses import dataclass
from importlib import resources
from typing import Callable

import numpy as np

from rooflab.errors import RooflabError
from rooflab.gpu.specs import DeviceInfo
from rooflab.i18n import msg, text

STREAM_BYTES_PER_FLOAT = {"read": 4, "copy": 8, "triad": 12}
# cudaDataType and cublasComputeType_t values (cuda_runtime / cublas_api.h)
CUDA_R_32F, CUDA_R_64F, CUDA_R_16F, CUDA_R_16BF = 0, 1, 2, 14
COMPUTE_32F, COMPUTE_64F, COMPUTE_32F_FAST_TF32 = 68, 70, 77
GEMM_TYPES = {  # precision -> (A/B type, C type, compute type, bytes per A/B element)
    "fp64_tensor": (CUDA_R_64F, CUDA_R_64F, COMPUTE_64F, 8),
    "tf32": (CUDA_R_32F, CUDA_R_32F, COMPUTE_32F_FAST_TF32, 4),
    "fp16": (CUDA_R_16F, CUDA_R_32F, COMPUTE_32F, 2),
    "bf16": (CUDA_R_16BF, CUDA_R_32F, COMPUTE_32F, 2),
}


PASS_BYTES = 256 << 20  # bytes one launch of a bandwidth kernel moves at least (a launch costs microseconds)


def elements(kind: str, nbytes: int) -> int:
    """Floats per array for a working set of ``nbytes`` (a multiple of 1024, so of the float4 width)."""
    narrays = {"read": 1, "copy": 2, "triad": 3}[kind]
    return max(1024, (nbytes // (4 * narrays)) // 1024 * 1024)


def passes(working_set: int) -> int:
    """Passes over the working set in one launch: enough that a launch moves PASS_BYTES."""
    return max(1, -(-PASS_BYTES // max(1, working_set)))


class GpuUnavailable(RooflabError):
    """--device cuda cannot run here: no CuPy, no driver, or no device."""


class Unsupported(RooflabError):
    """This device or this installation has no way to run one ceiling (e.g. fp8 without PyTorch); ``msg`` says why
    (an i18n message)."""

    def __init__(self, m: dict):
        self.msg = m
        super().__init__(text(m, "en"))


@dataclass
class Timed:
    run: Callable[[int], float]
    work: float  # FLOP or bytes per launch
    check: Callable[[], float] = lambda: 0.0
    clock_hz: Callable[[], float | None] | None = None  # the SM clock during the last launch, measured in-kernel
    note: str = ""


def kernel_source() -> str:
    return resources.files("rooflab").joinpath("csrc/gpu.cu").read_text(encoding="utf-8")


def select_backend(device: str = "cuda", index: int = 0):
    """The backend for ``--device``; a clear error when CuPy, the driver or the device is missing."""
    if device != "cuda":
        raise GpuUnavailable(f"unknown device {device!r}: rooflab measures 'cpu' or 'cuda'")
    try:
        _cupy()
    except ImportError as exc:
        raise GpuUnavailable(
            "--device cuda needs CuPy, which is not installed: pip install 'rooflab[gpu]' (CuPy for CUDA 12), or "
            f"'rooflab[gpu-cuda13]' for a CUDA 13 driver ({exc})") from None
    except Exception as exc:  # a CuPy that cannot load its CUDA libraries
        raise GpuUnavailable(f"CuPy is installed but could not load CUDA: {exc}") from None
    return CupyBackend(index)


def _cupy():
    """CuPy (an optional dependency: pip install 'rooflab[gpu]'), imported when a GPU is measured."""
    import cupy

    return cupy


def _device_count(cp) -> int:
    try:
        return cp.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CUDARuntimeError: no driver, or no device
        raise GpuUnavailable(f"CuPy found no usable CUDA driver or device: {exc}") from None


class CupyBackend:
    name = "cupy"

    def __init__(self, index: int = 0):
        cp = _cupy()
        self.cp = cp
        if getattr(cp.cuda.runtime, "is_hip", False):
            raise GpuUnavailable("this CuPy is built for ROCm (AMD GPUs); --device cuda measures NVIDIA GPUs")
        n = _device_count(cp)
        if n == 0:
            vis = os.environ.get("CUDA_VISIBLE_DEVICES")
            raise GpuUnavailable("no CUDA device is visible" + (f" (CUDA_VISIBLE_DEVICES={vis!r})" if vis is not None
                                                              else ""))
        if not 0 <= index < n:
            raise GpuUnavailable(f"CUDA device {index} does not exist ({n} visible)")
        self.index = index
        cp.cuda.Device(index).use()
        self._mod = None
        self._info: DeviceInfo | None = None

    # ------------------------------------------------------------------------------------------ device
    def device(self) -> DeviceInfo:
        if self._info is not None:
            return self._info
        rt = self.cp.cuda.runtime
        p = rt.getDeviceProperties(self.index)

        def attr(key, attr_id):
            v = p.get(key)
            if v:
                return v
            try:
                return rt.deviceGetAttribute(attr_id, self.index)
            except Exception:
                return None

        name = p.get("name", b"")
        name = name.decode() if isinstance(name, bytes) else str(name)
        mem_khz = attr("memoryClockRate", 36)
        sm_khz = attr("clockRate", 13)
        nv = nvml_info(self.index)
        self._info = DeviceInfo(
            name=name, cc=(int(p["major"]), int(p["minor"])), sms=int(p["multiProcessorCount"]),
            l2_bytes=int(p.get("l2CacheSize") or 0), memory_bytes=int(p.get("totalGlobalMem") or 0),
            bus_width_bits=attr("memoryBusWidth", 37) or None,
            memory_clock_hz=(mem_khz * 1e3 if mem_khz else (nv.get("max_mem_clock_hz"))),
            max_sm_clock_hz=(sm_khz * 1e3 if sm_khz else nv.get("max_sm_clock_hz")),
            shared_per_sm_bytes=p.get("sharedMemPerMultiprocessor"),
            driver=_version(rt.driverGetVersion()), runtime=_version(rt.runtimeGetVersion()),
            uuid=nv.get("uuid"))
        return self._info

    def state(self) -> dict:
        """Clocks, power, temperature, throttle reasons and other processes on the GPU now (NVML or nvidia-smi);
        {} when neither is available."""
        return gpu_state(self.index)

    def _module(self):
        if self._mod is None:
            self._mod = self.cp.RawModule(code=kernel_source(), options=("-DRL_CHAINS=8", "--std=c++17"))
        return self._mod

    def _events(self, launch: Callable[[], None]) -> Callable[[int], float]:
        cp = self.cp

        def run(reps: int) -> float:
            start, end = cp.cuda.Event(), cp.cuda.Event()
            cp.cuda.Device().synchronize()
            start.record()
            for _ in range(reps):
                launch()
            end.record()
            end.synchronize()
            return cp.cuda.get_elapsed_time(start, end) / 1e3

        return run

    # ------------------------------------------------------------------------------------------ kernels
    def fma(self, precision: str, iters: int, blocks_per_sm: int = 4, threads: int = 256) -> Timed:
        cp = self.cp
        dtype = {"fp32": cp.float32, "fp64": cp.float64}[precision]
        k = self._module().get_function({"fp32": "fma_f32", "fp64": "fma_f64"}[precision])
        grid = self.device().sms * blocks_per_sm
        out = cp.empty(grid * threads, dtype=dtype)
        cyc = cp.zeros(2 * grid, dtype=cp.int64)  # per block: SM cycles, nanoseconds
        a, b = dtype(0.999), dtype(0.001)

        def launch():
            k((grid,), (threads,), (out, cyc, cp.int32(iters), a, b))

        def check() -> float:
            # each accumulator follows x <- a x + b from its own start x0: x_n = a^n x0 + b (1 - a^n) / (1 - a);
            # thread t sums its 8 chains (x0 = (t + c) / 1000)
            t, an = 5, float(a) ** iters
            ref = sum(an * (t + c) * 1e-3 + float(b) * (1 - an) / (1 - float(a)) for c in range(8))
            got = float(out[t].get())
            return abs(got - ref) / abs(ref)

        return Timed(self._events(launch), work=2.0 * 8 * iters * grid * threads, check=check,
                     clock_hz=lambda: block_clock_hz(cyc.get()))

    def stream(self, kind: str, nbytes: int, blocks_per_sm: int = 8, threads: int = 256) -> Timed:
        """``nbytes``: the working set (all arrays together); one launch makes ``passes(nbytes)`` passes over it."""
        cp = self.cp
        narrays = {"read": 1, "copy": 2, "triad": 3}[kind]
        n = elements(kind, nbytes)
        reps = passes(4 * narrays * n)
        arrays = [cp.full(n, 1.0 + i, dtype=cp.float32) for i in range(narrays)]
        grid = self.device().sms * blocks_per_sm
        n4, npass = cp.int64(n // 4), cp.int32(reps)
        mod = self._module()
        if kind == "read":
            k = mod.get_function("bw_read")
            out = cp.empty(grid * threads, dtype=cp.float32)
            args = (arrays[0], n4, npass, out)
        elif kind == "copy":
            k = mod.get_function("bw_copy")
            args = (arrays[0], arrays[1], n4, npass)
        else:
            k = mod.get_function("bw_triad")
            args = (arrays[0], arrays[1], arrays[2], cp.float32(3.0), n4, npass)

        def launch():
            k((grid,), (threads,), args)

        def check() -> float:
            if kind == "read":  # the array holds 1.0 everywhere; pass p weighs it by p + 1
                got, ref = float(out.astype(cp.float64).sum().get()), float(n) * reps * (reps + 1) / 2
            elif kind == "copy":
                got, ref = float(arrays[1][-1].get()), 1.0
            else:
                got, ref = float(arrays[0][-1].get()), 2.0 + 3.0 * 3.0
            return abs(got - ref) / ref

        return Timed(self._events(launch), work=float(STREAM_BYTES_PER_FLOAT[kind] * n * reps), check=check,
                     note=f"{reps} pass(es) per launch")

    def d2d_copy(self, nbytes: int) -> Timed:
        """cudaMemcpy device to device of ``nbytes``; its traffic counted as for copy (read + write)."""
        cp = self.cp
        n = max(1024, nbytes // 2 // 4)
        a = cp.full(n, 2.0, dtype=cp.float32)
        b = cp.empty_like(a)
        rt = cp.cuda.runtime

        def launch():
            rt.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes, rt.memcpyDeviceToDevice,
                           cp.cuda.get_current_stream().ptr)

        return Timed(self._events(launch), work=2.0 * a.nbytes,
                     check=lambda: abs(float(b[-1].get()) - 2.0) / 2.0)

    def gemm(self, precision: str, m: int, n: int, k: int) -> Timed:
        """C[m,n] = A[m,k] B[k,n] (row-major) through cublasGemmEx; fp8 through PyTorch's scaled_mm."""
        if precision == "fp8":
            return self._gemm_fp8(m, n, k)
        if precision not in GEMM_TYPES:
            raise Unsupported(msg("rooflab has no GEMM for {prec}", prec=precision))

        cp = self.cp
        cublas, handle = cublas_of(cp)
        abt, ct, comp, esize = GEMM_TYPES[precision]
        rng = cp.random.default_rng(7)
        a32 = rng.standard_normal((m, k), dtype=cp.float32)
        b32 = rng.standard_normal((k, n), dtype=cp.float32)
        if precision in ("fp16",):
            a, b = a32.astype(cp.float16), b32.astype(cp.float16)
        elif precision == "bf16":
            a, b = _to_bf16(cp, a32), _to_bf16(cp, b32)
        elif precision == "fp64_tensor":
            a, b = a32.astype(cp.float64), b32.astype(cp.float64)
        else:
            a, b = a32, b32
        c = cp.empty((m, n), dtype=cp.float64 if ct == CUDA_R_64F else cp.float32)
        one = np.array(1.0, dtype=np.float64 if comp == COMPUTE_64F else np.float32)
        zero = np.zeros((), dtype=one.dtype)

        def launch():
            # row-major C = A B is column-major C^T = B^T A^T: swap the operands, no transposes
            cublas.gemmEx(handle, 0, 0, n, m, k, one.ctypes.data, b.data.ptr, abt, n, a.data.ptr, abt, k,
                          zero.ctypes.data, c.data.ptr, ct, n, comp, -1)

        def check() -> float:
            # against fp32/fp64 products of the same (rounded) inputs, on a block of rows
            rows = min(m, 64)
            if precision == "bf16":
                ar, br = _from_bf16(cp, a[:rows]), _from_bf16(cp, b)
            else:
                ar, br = a[:rows].astype(cp.float64), b.astype(cp.float64)
            ref = ar.astype(cp.float64) @ br.astype(cp.float64)
            err = cp.abs(c[:rows].astype(cp.float64) - ref).max() / cp.abs(ref).max()
            return float(err.get())

        return Timed(self._events(launch), work=2.0 * m * n * k, check=check)

    def _gemm_fp8(self, m: int, n: int, k: int) -> Timed:
        try:
            import torch
        except ImportError:
            raise Unsupported(msg("fp8 GEMM goes through cuBLASLt, which rooflab reaches through PyTorch "
                                  "(torch._scaled_mm); PyTorch is not installed")) from None
        if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
            raise Unsupported(msg("this PyTorch ({version}) has no float8 matmul", version=torch.__version__))
        dev = torch.device("cuda", self.index)
        a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()  # column-major B, as scaled_mm wants
        one = torch.ones((), device=dev)
        out = {}

        def launch():
            r = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            out["c"] = r[0] if isinstance(r, tuple) else r

        def check() -> float:
            rows = min(m, 64)
            ref = a[:rows].float() @ b.float()
            return float(((out["c"][:rows].float() - ref).abs().max() / ref.abs().max()).item())

        return Timed(self._events(launch), work=2.0 * m * n * k, check=check, note="torch._scaled_mm (cuBLASLt)")

    def release(self) -> None:
        self.cp.get_default_memory_pool().free_all_blocks()


def block_clock_hz(per_block) -> float | None:
    """The SM clock from each block's (cycles, nanoseconds) pairs: the median over blocks of cycles per second; None
    where the global timer did not advance (a device or driver that does not expose it)."""
    rates = sorted(float(c) / float(ns) * 1e9 for c, ns in zip(per_block[0::2], per_block[1::2]) if ns > 0 and c > 0)
    if not rates:
        return None
    mid = len(rates) // 2
    return rates[mid] if len(rates) % 2 else (rates[mid - 1] + rates[mid]) / 2


def cublas_of(cp):
    """CuPy's cuBLAS bindings and the current device's handle (their home moved between CuPy versions)."""
    try:
        from cupy.cuda import cublas
    except ImportError:
        from cupy_backends.cuda.libs import cublas
    try:
        handle = cp.cuda.device.get_cublas_handle()
    except AttributeError:
        handle = cp.cuda.Device().cublas_handle
    return cublas, handle


def _to_bf16(cp, x32):
    """float32 -> bfloat16 bit patterns (uint16), rounding to nearest even."""
    u = x32.view(cp.uint32)
    rounded = u + cp.uint32(0x7FFF) + ((u >> 16) & cp.uint32(1))
    return (rounded >> 16).astype(cp.uint16)


def _from_bf16(cp, x16):
    return (x16.astype(cp.uint32) << 16).view(cp.float32)


def _version(v: int) -> str:
    return f"{v // 1000}.{(v % 1000) // 10}"


# ----------------------------------------------------------------------------------------------- NVML


def _nvml():
    """NVML's bindings (nvidia-ml-py, optional), initialised."""
    import pynvml

    pynvml.nvmlInit()
    return pynvml


def nvml_info(index: int) -> dict:
    """Maximum clocks and UUID from NVML (nvidia-ml-py), or {}."""
    try:
        nv = _nvml()
        h = nv.nvmlDeviceGetHandleByIndex(index)
        uuid = nv.nvmlDeviceGetUUID(h)
        return {"max_sm_clock_hz": nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_SM) * 1e6,
                "max_mem_clock_hz": nv.nvmlDeviceGetMaxClockInfo(h, nv.NVML_CLOCK_MEM) * 1e6,
                "uuid": uuid.decode() if isinstance(uuid, bytes) else uuid}
    except Exception:
        return {}


SMI_FIELDS = ("clocks.sm", "clocks.mem", "clocks.max.sm", "power.draw", "power.limit", "temperature.gpu",
              "utilization.gpu", "clocks_event_reasons.active")


def gpu_state(index: int) -> dict:
    """The GPU's state now: NVML where nvidia-ml-py is installed, else one nvidia-smi query; {} without either."""
    try:
        nv = _nvml()
        h = nv.nvmlDeviceGetHandleByIndex(index)
        try:
            reasons = nv.nvmlDeviceGetCurrentClocksEventReasons(h)
        except AttributeError:
            reasons = nv.nvmlDeviceGetCurrentClocksThrottleReasons(h)
        procs = nv.nvmlDeviceGetComputeRunningProcesses(h)
        return {"source": "nvml", "sm_clock_hz": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM) * 1e6,
                "mem_clock_hz": nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_MEM) * 1e6,
                "power_w": nv.nvmlDeviceGetPowerUsage(h) / 1e3,
                "power_limit_w": nv.nvmlDeviceGetEnforcedPowerLimit(h) / 1e3,
                "temperature_c": nv.nvmlDeviceGetTemperature(h, nv.NVML_TEMPERATURE_GPU),
                "utilization": nv.nvmlDeviceGetUtilizationRates(h).gpu / 100.0,
                "event_reasons": decode_reasons(int(reasons)),
                "processes": [{"pid": p.pid, "memory_bytes": p.usedGpuMemory} for p in procs]}
    except Exception:
        pass
    smi = shutil.which("nvidia-smi")
    if not smi:
        return {}
    try:
        r = subprocess.run([smi, f"--id={index}", "--query-gpu=" + ",".join(SMI_FIELDS),
                            "--format=csv,noheader,nounits"], capture_output=True, text=True, errors="replace",
                            timeout=20)
        p = subprocess.run([smi, f"--id={index}", "--query-compute-apps=pid,used_memory",
                            "--format=csv,noheader,nounits"], capture_output=True, text=True, errors="replace",
                            timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return parse_smi(r.stdout, p.stdout)


# NVML clocks event (throttle) reason bits
REASONS = {0x1: "idle", 0x2: "applications clocks setting", 0x4: "software power cap", 0x8: "hardware slowdown",
           0x10: "sync boost", 0x20: "software thermal slowdown", 0x40: "hardware thermal slowdown",
           0x80: "hardware power brake slowdown", 0x100: "display clock setting"}
# the reasons that mean the GPU ran slower than it could have during a measurement
SLOWING = ("software power cap", "hardware slowdown", "software thermal slowdown", "hardware thermal slowdown",
           "hardware power brake slowdown")


def decode_reasons(bits: int) -> list[str]:
    return [name for bit, name in REASONS.items() if bits & bit]


def _num(s: str) -> float | None:
    try:
        return float(s.strip())
    except ValueError:
        return None


def parse_smi(query: str, apps: str = "") -> dict:
    """Read ``nvidia-smi --query-gpu=<SMI_FIELDS> --format=csv,noheader,nounits`` (and the compute apps)."""
    line = next((x for x in query.splitlines() if x.strip()), "")
    parts = [x.strip() for x in line.split(",")]
    if len(parts) < len(SMI_FIELDS):
        return {}
    v = dict(zip(SMI_FIELDS, parts))
    mhz = {k: _num(v[k]) for k in ("clocks.sm", "clocks.mem", "clocks.max.sm")}
    reasons = v["clocks_event_reasons.active"]
    try:
        bits = int(reasons, 16) if reasons.lower().startswith("0x") else int(reasons)
    except ValueError:
        bits = 0
    util = _num(v["utilization.gpu"])
    procs = []
    for row in apps.splitlines():
        cols = [c.strip() for c in row.split(",")]
        if len(cols) >= 2 and cols[0].isdigit():
            mem = _num(cols[1])
            procs.append({"pid": int(cols[0]), "memory_bytes": mem * 2 ** 20 if mem is not None else None})
    return {"source": "nvidia-smi",
            "sm_clock_hz": mhz["clocks.sm"] * 1e6 if mhz["clocks.sm"] is not None else None,
            "mem_clock_hz": mhz["clocks.mem"] * 1e6 if mhz["clocks.mem"] is not None else None,
            "max_sm_clock_hz": mhz["clocks.max.sm"] * 1e6 if mhz["clocks.max.sm"] is not None else None,
            "power_w": _num(v["power.draw"]), "power_limit_w": _num(v["power.limit"]),
            "temperature_c": _num(v["temperature.gpu"]), "utilization": util / 100 if util is not None else None,
            "event_reasons": decode_reasons(bits), "processes": procs}


# -------------------------------------------------------------------------------------- a simulated device


class SimulatedBackend:
    """A device that answers from a model instead of hardware: peaks, an L2 plateau, HBM, a clock, noise. The
    tests drive the whole of `measure --device cuda` through it; it is never used to report a measurement."""

    name = "simulated"

    def __init__(self, info: DeviceInfo, *, sm_clock_hz: float, l2_bytes_per_s: float, hbm_bytes_per_s: float,
                 flops: dict[str, float], d2d_bytes_per_s: float | None = None, noise: float = 0.01, seed: int = 1,
                 state: dict | None = None, launch_s: float = 4e-6, wrong: tuple[str, ...] = (),
                 kernel_clock: bool = True, burst: float = 0.0, burst_s: float = 0.05):
        self.info, self.clock, self.l2, self.hbm = info, sm_clock_hz, l2_bytes_per_s, hbm_bytes_per_s
        self.flops, self.d2d = flops, d2d_bytes_per_s or hbm_bytes_per_s
        self.noise, self.rng, self._state, self.launch_s = noise, random.Random(seed), state or {}, launch_s
        self.wrong, self.kernel_clock = wrong, kernel_clock
        # a power cap: each GEMM's first burst_s of device time runs (1 + burst) times faster than it can sustain
        self.burst, self.burst_s = burst, burst_s
        self.launches: list[tuple[str, int]] = []

    def device(self) -> DeviceInfo:
        return self.info

    def state(self) -> dict:
        return dict(self._state)

    def _timed(self, what: str, work: float, rate: float, **kw) -> Timed:
        def run(reps: int) -> float:
            self.launches.append((what, reps))
            return reps * (work / rate + self.launch_s) * (1 + self.rng.gauss(0, self.noise))

        err = 0.5 if what in self.wrong else 1e-13
        return Timed(run, work=work, check=lambda: err, **kw)

    def fma(self, precision: str, iters: int, blocks_per_sm: int = 4, threads: int = 256) -> Timed:
        work = 2.0 * 8 * iters * self.info.sms * blocks_per_sm * threads
        t = self._timed(f"fma {precision}", work, self.flops[precision])
        return Timed(t.run, t.work, t.check, clock_hz=lambda: self.clock if self.kernel_clock else None)

    def stream(self, kind: str, nbytes: int, blocks_per_sm: int = 8, threads: int = 256) -> Timed:
        narrays = {"read": 1, "copy": 2, "triad": 3}[kind]
        n = elements(kind, nbytes)
        ws = 4 * narrays * n
        # a smooth step from the L2 rate to the HBM rate around the L2 capacity
        f = 1 / (1 + (ws / (0.7 * self.info.l2_bytes)) ** 6)
        rate = math.exp(f * math.log(self.l2) + (1 - f) * math.log(self.hbm))
        return self._timed(f"stream {kind}", float(STREAM_BYTES_PER_FLOAT[kind] * n * passes(ws)), rate)

    def d2d_copy(self, nbytes: int) -> Timed:
        return self._timed("d2d", float(nbytes), self.d2d)

    def gemm(self, precision: str, m: int, n: int, k: int) -> Timed:
        if precision not in self.flops:
            raise Unsupported(msg("the simulated device has no {prec} GEMM", prec=precision))
        work = 2.0 * m * n * k
        esize = {"fp8": 1, "fp16": 2, "bf16": 2, "tf32": 4, "fp64_tensor": 8}.get(precision, 2)
        nbytes = esize * (m * k + k * n) + 4 * m * n
        rate = min(self.flops[precision] * 0.92, work / nbytes * self.hbm * 0.9)  # a GEMM reaches ~92% of peak
        t = self._timed(f"gemm {precision}", work, rate)
        if not self.burst:
            return t
        ran = [0.0]

        def run(reps: int) -> float:
            s = t.run(reps)
            fast = min(s, max(0.0, self.burst_s - ran[0]) * (1 + self.burst))  # device time spent bursting
            s = s - fast + fast / (1 + self.burst)
            ran[0] += s
            return s

        return Timed(run, t.work, t.check)

    def release(self) -> None:
        pass
