"""Theoretical GPU limits from device attributes (pure).

Per-SM throughput per clock by compute capability, for the data-centre parts NVIDIA documents (dense tensor-core
rates; the sparse figures of the datasheets are twice these). A peak is ``per-SM rate x SMs x SM clock``; the clock is
the one measured during the run, never the boost clock of the datasheet, since a GPU under load clocks lower. HBM
bandwidth is ``2 x memory clock x bus width`` (double data rate).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# FLOP per clock per SM. "fp32"/"fp64": FMA on the CUDA cores (lanes x 2). Tensor-core precisions: dense matrix math.
# Sources: NVIDIA V100, A100, H100 architecture white papers; A10/A40, L4/L40S datasheets (rates / (SMs x clock)).
PER_SM: dict[tuple[int, int], dict] = {
    (7, 0): {"arch": "Volta (V100)", "fp32": 128, "fp64": 64, "fp16": 1024,
             "source": "NVIDIA Tesla V100 white paper: 64 FP32 and 32 FP64 lanes and 8 tensor cores per SM"},
    (8, 0): {"arch": "Ampere (A100)", "fp32": 128, "fp64": 64, "fp64_tensor": 128, "tf32": 1024, "fp16": 2048,
             "bf16": 2048, "int8": 4096,
             "source": "NVIDIA A100 white paper: 64 FP32 and 32 FP64 lanes per SM; 312 TFLOP/s dense fp16 on 108 SMs "
                       "at 1410 MHz"},
    (8, 6): {"arch": "Ampere (A10, A40)", "fp32": 256, "fp64": 4, "tf32": 512, "fp16": 1024, "bf16": 1024,
             "int8": 2048,
             "source": "NVIDIA A10 and A40 datasheets (dense rates) and the GA10x white paper: 128 FP32 lanes per SM"},
    (8, 9): {"arch": "Ada (L4, L40S)", "fp32": 256, "fp64": 4, "tf32": 512, "fp16": 1024, "bf16": 1024, "fp8": 2048,
             "int8": 2048,
             "source": "NVIDIA L4 and L40S datasheets (dense rates) and the Ada white paper: 128 FP32 lanes per SM"},
    (9, 0): {"arch": "Hopper (H100, H200)", "fp32": 256, "fp64": 128, "fp64_tensor": 256, "tf32": 2048, "fp16": 4096,
             "bf16": 4096, "fp8": 8192, "int8": 8192,
             "source": "NVIDIA H100 white paper: 128 FP32 and 64 FP64 lanes per SM; 989 TFLOP/s dense bf16 on 132 "
                       "SMs at 1830 MHz"},
}

CUDA_CORE = ("fp64", "fp32")
TENSOR = ("fp64_tensor", "tf32", "fp16", "bf16", "fp8")


@dataclass
class DeviceInfo:
    """What the backend reads from the device (cudaDeviceProp, NVML)."""
    name: str
    cc: tuple[int, int]
    sms: int
    l2_bytes: int
    memory_bytes: int
    bus_width_bits: int | None = None
    memory_clock_hz: float | None = None  # the DDR clock the driver reports; data rate is twice it
    max_sm_clock_hz: float | None = None
    shared_per_sm_bytes: int | None = None
    driver: str | None = None
    runtime: str | None = None
    uuid: str | None = None
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"name": self.name, "compute_capability": f"{self.cc[0]}.{self.cc[1]}", "sms": self.sms,
                "l2_bytes": self.l2_bytes, "memory_bytes": self.memory_bytes, "bus_width_bits": self.bus_width_bits,
                "memory_clock_hz": self.memory_clock_hz, "max_sm_clock_hz": self.max_sm_clock_hz,
                "shared_per_sm_bytes": self.shared_per_sm_bytes, "driver": self.driver, "runtime": self.runtime,
                "uuid": self.uuid, **self.extra}


def per_sm(cc: tuple[int, int]) -> dict | None:
    """The table row of a compute capability, or None for one rooflab does not know."""
    return PER_SM.get(tuple(cc))


def flops_per_clock(cc: tuple[int, int], precision: str) -> float | None:
    """FLOP per clock per SM for ``precision`` (fp64, fp32 on the CUDA cores; fp64_tensor, tf32, fp16, bf16, fp8
    on the tensor cores); None when the device has no such unit or is not in the table."""
    row = per_sm(cc)
    return None if row is None else row.get(precision)


def peak_flops(dev: DeviceInfo, precision: str, sm_clock_hz: float) -> float | None:
    f = flops_per_clock(dev.cc, precision)
    return None if f is None or not sm_clock_hz else f * dev.sms * sm_clock_hz


def hbm_bandwidth(dev: DeviceInfo) -> float | None:
    """Theoretical memory bandwidth: 2 x memory clock x bus width / 8 (bytes/s); None when either is unknown."""
    if not dev.memory_clock_hz or not dev.bus_width_bits:
        return None
    return 2.0 * dev.memory_clock_hz * dev.bus_width_bits / 8.0


def precisions(cc: tuple[int, int]) -> list[str]:
    """The precisions this device has units for, CUDA cores first."""
    row = per_sm(cc) or {}
    return [p for p in CUDA_CORE + TENSOR if p in row]


def gemm_precisions(cc: tuple[int, int]) -> list[str]:
    """The tensor-core GEMMs to measure: the table's for a known device; for one rooflab does not know yet, what
    its compute capability implies (fp16 from 7.0, tf32 and bf16 from 8.0, fp8 from 8.9), measured but unchecked."""
    if per_sm(cc):
        return [p for p in precisions(cc) if p in TENSOR]
    cc = tuple(cc)
    out = []
    if cc >= (8, 0):
        out.append("tf32")
    if cc >= (7, 0):
        out.append("fp16")
    if cc >= (8, 0):
        out.append("bf16")
    if cc >= (8, 9):
        out.append("fp8")
    return out


def theoretical(dev: DeviceInfo, sm_clock_hz: float) -> dict:
    """Every theoretical peak of the device at ``sm_clock_hz``, with the assumptions written out."""
    row = per_sm(dev.cc)
    out = {"sm_clock_hz": sm_clock_hz, "flops": {}, "hbm_bytes_per_s": hbm_bandwidth(dev), "known": row is not None,
           "arch": row["arch"] if row else None, "source": row["source"] if row else None}
    if row:
        for p in precisions(dev.cc):
            out["flops"][p] = peak_flops(dev, p, sm_clock_hz)
    return out
