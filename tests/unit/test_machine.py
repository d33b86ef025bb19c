import pytest

from rooflab.machine import cpu as C
from rooflab.machine.limits import flops_per_cycle, theoretical
from rooflab.machine.uarch import identify

ZEN3_CPUINFO = "\n".join(f"""processor	: {i}
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 1
model name	: AMD EPYC 7B13
cpu MHz		: 2450.000
physical id	: 0
core id		: {i}
flags		: fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 fma bmi2
""" for i in range(2))

# Graviton2 (Neoverse N1): Arm cpuinfo has no model name, only implementer/part
N1_CPUINFO = "\n\n".join(f"""processor	: {i}
BogoMIPS	: 243.75
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1""" for i in range(4))

N1_LSCPU = """Architecture:        aarch64
CPU(s):              4
Thread(s) per core:  1
Core(s) per socket:  4
Socket(s):           1
Vendor ID:           ARM
Model name:          Neoverse-N1
L1d cache:           256 KiB (4 instances)
L1i cache:           256 KiB (4 instances)
L2 cache:            4 MiB (4 instances)
L3 cache:            32 MiB (1 instance)
"""

SKX_CPUINFO = """processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 85
model name	: Intel(R) Xeon(R) Silver 4114 CPU @ 2.20GHz
flags		: sse2 avx avx2 fma avx512f avx512bw avx512vl
"""


def test_parse_cpuinfo_x86_counts_physical_cores():
    d = C.parse_cpuinfo(ZEN3_CPUINFO)
    assert d["processors"] == 2 and d["physical_cores"] == 2 and d["model name"] == "AMD EPYC 7B13"


def test_zen3_description_and_peaks():
    cpu = C.cpu_from_texts(arch="x86_64", cpuinfo=ZEN3_CPUINFO)
    assert cpu.uarch.name == "Zen 3" and cpu.uarch.fma_pipes == 2 and cpu.uarch.fma_bits == 256
    assert cpu.isa.name == "avx2" and cpu.isa.vector_registers == 16 and cpu.isa.vector_bits == 256
    assert cpu.nominal_mhz == 2450.0
    assert flops_per_cycle(cpu, "fp32", "simd_fma") == 32
    assert flops_per_cycle(cpu, "fp64", "simd_fma") == 16
    assert flops_per_cycle(cpu, "fp64", "scalar") == 4
    # Zen has separate add pipes: mul + add without FMA reaches the same FLOP rate
    assert flops_per_cycle(cpu, "fp32", "simd") == 32
    th = theoretical(cpu, 3.0e9, "measured")
    assert th.fp32_flops == pytest.approx(32 * 3.0e9 * 2)
    assert th.fp64_flops == pytest.approx(16 * 3.0e9 * 2)
    assert th.limit("fp32", "simd_fma", 1) == pytest.approx(96e9)
    assert any("FMA+ADD" in a["text"] for a in th.assumptions)


def test_intel_without_add_pipes_halves_the_no_fma_peak():
    cpu = C.cpu_from_texts(arch="x86_64", cpuinfo=SKX_CPUINFO.replace("Silver 4114", "Gold 6148"))
    assert cpu.uarch.fma_bits == 512 and cpu.uarch.fma_pipes == 2 and cpu.isa.vector_registers == 32
    assert flops_per_cycle(cpu, "fp32", "simd_fma") == 64
    assert flops_per_cycle(cpu, "fp32", "simd") == 32


def test_xeon_silver_has_one_512_bit_fma_unit():
    cpu = C.cpu_from_texts(arch="x86_64", cpuinfo=SKX_CPUINFO)
    assert cpu.uarch.fma_pipes == 1 and flops_per_cycle(cpu, "fp64", "simd_fma") == 16


def test_zen4_runs_avx512_on_256_bit_pipes():
    u = identify(arch="x86_64", vendor="AuthenticAMD", family=0x19, model=0x11, vector_bits=512)
    assert u.name == "Zen 4" and u.fma_bits == 256


def test_neoverse_n1_from_cpuinfo_and_lscpu_caches():
    cpu = C.cpu_from_texts(arch="aarch64", cpuinfo=N1_CPUINFO, lscpu=N1_LSCPU)
    assert cpu.uarch.name == "Neoverse N1" and cpu.uarch.fma_pipes == 2 and cpu.uarch.fma_bits == 128
    assert cpu.isa.name == "neon" and cpu.isa.vector_registers == 32 and cpu.isa.vector_bits == 128
    assert cpu.physical_cores == 4 and cpu.logical_cpus == 4
    assert cpu.model_name == "Neoverse-N1"
    assert cpu.cache(1).size == 64 * 1024 and cpu.cache(2).size == 1024 * 1024 and cpu.cache(3).size == 32 << 20
    assert flops_per_cycle(cpu, "fp32", "simd_fma") == 16


def test_unknown_cpu_is_marked_assumed():
    cpu = C.cpu_from_texts(arch="x86_64", cpuinfo="processor : 0\nvendor_id : HygonGenuine\nflags : sse2 avx avx2 fma\n")
    assert cpu.uarch.assumed and "assumed" in cpu.uarch.source
    th = theoretical(cpu, 2e9, "measured")
    assert any("guess" in a["text"] for a in th.assumptions)


def test_apple_silicon_from_sysctl():
    sysctl = {"machdep.cpu.brand_string": "Apple M2", "hw.logicalcpu": "8", "hw.physicalcpu": "8",
              "hw.perflevel0.l1dcachesize": "131072", "hw.perflevel0.l2cachesize": "16777216",
              "hw.cachelinesize": "128", "hw.memsize": "17179869184"}
    cpu = C.cpu_from_texts(arch="arm64", sysctl=sysctl)
    assert cpu.arch == "aarch64" and cpu.uarch.fma_pipes == 4 and cpu.isa.name == "neon"
    assert cpu.cache(1).size == 131072 and cpu.cache(1).line == 128 and cpu.memory_bytes == 16 << 30


def test_sysfs_cache_tree(tmp_path):
    def mk(idx, level, typ, size, shared):
        d = tmp_path / "cpu0" / "cache" / f"index{idx}"
        d.mkdir(parents=True)
        for k, v in dict(level=level, type=typ, size=size, shared_cpu_list=shared, coherency_line_size="64",
                         ways_of_associativity="8").items():
            (d / k).write_text(str(v) + "\n")

    mk(0, 1, "Data", "48K", "0-1")
    mk(1, 1, "Instruction", "32K", "0-1")
    mk(2, 2, "Unified", "1280K", "0-1")
    mk(3, 3, "Unified", "30720K", "0-15")
    caches = C.read_sysfs_caches(tmp_path, logical_cpus=16)
    names = [c.name for c in caches]
    assert names == ["L1d", "L1i", "L2", "L3"]
    assert caches[0].size == 48 * 1024 and caches[0].shared_by == 2 and caches[0].instances == 8
    assert caches[3].size == 30 * 1024 * 1024 and caches[3].instances == 1


def test_numa_and_cpu_lists(tmp_path):
    for n, cpus in ((0, "0-3,8"), (1, "4-7")):
        d = tmp_path / f"node{n}"
        d.mkdir()
        (d / "cpulist").write_text(cpus + "\n")
    assert C.parse_numa(tmp_path) == {0: [0, 1, 2, 3, 8], 1: [4, 5, 6, 7]}


@pytest.mark.parametrize("text,expected", [("32K", 32768), ("1024 KiB", 1 << 20), ("2 MiB (2 instances)", 2 << 20),
                                           ("32768", 32768), ("x", None)])
def test_parse_size(text, expected):
    assert C.parse_size(text) == expected


def test_describe_this_machine_has_sane_fields():
    cpu = C.describe_cpu()
    assert cpu.logical_cpus >= 1 and cpu.physical_cores >= 1
    assert cpu.isa.arch in ("x86_64", "aarch64") or cpu.isa.name == "scalar"
    assert cpu.model_name  # never the empty platform.processor() of Linux
