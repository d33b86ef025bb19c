"""`rooflab explain` without timing: the evidence read from code and from the tools' reports, and the rules that turn
evidence into findings (synthetic evidence in, findings out)."""

import math
import os
import stat

import numpy as np
import pytest

from rooflab.diagnosis.evidence import (access_kinds, column_walks, counted_size, cycles_per_iteration, loaded_bounds,
                                        loop_causes, loop_remarks, outer_loops, packed_stores, select_reductions,
                                        traffic_tells, walked_iterations, without_cold_loops)
from rooflab.diagnosis.experiments import scaled_size, with_restrict
from rooflab.i18n import text
from rooflab.interpret.explain import (AT_ROOF, MIN_PARALLEL_S, diagnose, experiment_sentence, explain_observations,
                                       weigh)
from rooflab.interpret.outline import code_line, line_ranges
from rooflab.kernels.runner import ArraySpec
from rooflab.toolchain import asm
from rooflab.toolchain.mca import NoPrediction, model_for, parse_mca, predict
from rooflab.toolchain.remarks import Remark, alias_details, causes_of, function_lines, parse_remarks
from rooflab.userkernel.spec import Checker

# ------------------------------------------------------------------------------------------ the compiled loop

# gcc -O3 without -ffast-math: a dot product with one running sum, added in order
REDUCTION = """
    1120:	vmovsd (%rdi,%rax,8),%xmm1
    1125:	vmulsd (%rsi,%rax,8),%xmm1,%xmm1
    112a:	inc    %rax
    112d:	vaddsd %xmm1,%xmm0,%xmm0
    1131:	cmp    %rax,%rdx
    1134:	jne    1120 <dot+0x20>
"""
# y[i] = a[i] * y[i-1] + b[i]: each FMA needs the previous one
RECURRENCE = """
    1120:	vmovsd (%rsi,%rax,8),%xmm1
    1125:	vfmadd213sd (%rdx,%rax,8),%xmm1,%xmm0
    112b:	vmovsd %xmm0,(%rdi,%rax,8)
    1130:	inc    %rax
    1133:	cmp    %rax,%rcx
    1136:	jne    1120 <rec+0x20>
"""
# y[i] += x[idx[i]] with AVX-512: a masked gather
GATHER = """
    1120:	kxnorb %k1,%k1,%k1
    1124:	vmovdqu64 (%rdx,%rax,1),%ymm2
    1129:	vgatherqpd (%rsi,%zmm2,8),%zmm1{%k1}
    1130:	vaddpd (%rdi,%rax,2),%zmm1,%zmm1
    1136:	vmovupd %zmm1,(%rdi,%rax,2)
    113c:	add    $0x40,%rax
    1140:	cmp    %rax,%rcx
    1143:	jne    1120 <g+0x20>
"""
# x[i] = sqrt(x[i]) through libm (errno kept)
CALL = """
    1120:	vmovsd (%rbx),%xmm0
    1124:	call   1030 <sqrt@plt>
    1129:	vmovsd %xmm0,(%rbx)
    112d:	add    $0x8,%rbx
    1131:	cmp    %rbx,%rbp
    1134:	jne    1120 <r+0x20>
"""


def detail(snippet: str) -> dict:
    insns = asm.parse_objdump(snippet)
    return asm.detail_loop(insns, asm.hot_loop(insns), "x86_64").to_dict()


def test_an_in_order_sum_is_one_accumulator_chained_by_adds():
    d = detail(REDUCTION)
    assert (d["accumulators"], d["longest_chain"], d["chain_op"]) == (1, 1, "add")
    assert d["scalar_fp"] == 2 and d["vector_fp"] == 0 and d["vector_bits"] == 0  # vmovsd is no vector work
    assert d["flops"] == 2 and d["bytes"] == 16 and d["element_bits"] == 64  # one double each from x and y


def test_a_recurrence_is_chained_by_its_fma():
    d = detail(RECURRENCE)
    assert d["chain_op"] == "fma" and d["longest_chain"] == 1 and d["fma"] == 1
    assert d["flops"] == 2 and d["bytes"] == 24


# p *= x[i]: a product carried in one register, multiplied in order
PRODUCT = """
    a08:	vmulsd (%rsi),%xmm0,%xmm0
    a0c:	add    $0x8,%rsi
    a10:	cmp    %rsi,%rax
    a13:	jne    a08 <prod+0x18>
"""


def test_a_running_product_is_a_reduction_and_a_value_multiplied_then_added_to_is_not():
    d = detail(PRODUCT)
    assert (d["accumulators"], d["longest_chain"], d["chain_op"]) == (1, 1, "mul")
    loop = {**LOOP_SCALAR_SUM, **{k: d[k] for k in ("accumulators", "longest_chain", "chain_op", "scalar_fp")}}
    fs = diagnose(code(loop), row(of_roof=0.03), CTX)
    f = next(x for x in fs if x["id"] == "reduction_chain")
    assert fs[0]["id"] == "reduction_chain" and f["experiments"] == ["fast_math"]
    assert "multiplied in order" in text(f["hypothesis"]) and "reduction(*:p)" in text(f["advice"])
    # s = s * a + x[i] (a multiply, then an add, into the carried value): a recurrence, which no reordering splits
    rec = detail(PRODUCT.replace("    a0c:", "    a0a:\tvaddsd (%rdx),%xmm0,%xmm0\n    a0c:"))
    assert rec["chain_op"] == "add+mul" and rec["longest_chain"] == 2
    fs = diagnose(code({**loop, **{k: rec[k] for k in ("longest_chain", "chain_op")}}), row(of_roof=0.03), CTX)
    assert "reduction_chain" not in ids(fs)


# out[i * 2 * w + j] = in[(i / 2) * w + j / 2]: a copy through an index the counters make
UPSAMPLE = """
    1280:	mov    %rax,%rdi
    1283:	sar    %rdi
    1286:	add    %r8,%rdi
    1289:	vmovss (%rdx,%rdi,4),%xmm0
    128e:	vmovss %xmm0,(%rcx,%rax,4)
    1293:	add    $0x1,%rax
    1297:	cmp    %r9,%rax
    129a:	jl     1280 <upsample2+0x30>
"""
# s = 0, c = 0; for each x: y = x - c; t = s + y; c = (t - s) - y; s = t  (Kahan)
KAHAN = """
      18:	vmovsd (%rsi),%xmm2
      1c:	add    $0x8,%rsi
      20:	vsubsd %xmm0,%xmm2,%xmm0
      24:	vmovsd %xmm1,%xmm1,%xmm2
      28:	vaddsd %xmm0,%xmm1,%xmm1
      2c:	vsubsd %xmm2,%xmm1,%xmm2
      30:	vsubsd %xmm0,%xmm2,%xmm0
      34:	cmp    %rsi,%rax
      37:	jne    18 <kahan_sum+0x18>
"""


def test_a_compensated_sum_takes_back_its_own_rounding_a_recurrence_no_reordering_may_split():
    d = detail(KAHAN)
    assert d["feedback"] >= 1 and d["longest_chain"] == 4
    loop = {**LOOP_SCALAR_SUM, **{k: d[k] for k in ("accumulators", "longest_chain", "chain_op", "scalar_fp",
                                                      "feedback")}}
    fs = diagnose(code(loop), row(of_roof=0.01), CTX)
    # -ffast-math would fold the compensation away (its error check would not tell): no reduction, no fast_math
    assert fs[0]["id"] == "dependency_chain" and "reduction_chain" not in ids(fs)
    assert not any("fast_math" in f["experiments"] for f in fs)
    assert detail(REDUCTION)["feedback"] == 0


def test_a_copy_through_an_index_the_counters_make_is_data_moved_not_computed():
    assert detail(UPSAMPLE)["moves_only"] is True
    assert detail(REDUCTION)["moves_only"] is False  # added up
    lut = ("    520:\tmovzbl (%rdx,%rax,1),%r8d\n    525:\tmovzbl (%rsi,%r8,1),%r8d\n"
           "    52a:\tmov    %r8b,(%rcx,%rax,1)\n    52e:\tadd    $0x1,%rax\n    532:\tcmp    %rax,%rdi\n"
           "    535:\tjne    520 <l+0x10>\n")
    assert detail(lut)["moves_only"] is False  # an address made from a loaded byte: a lookup
    assert detail(SEARCH)["moves_only"] is False  # a compare on a loaded byte, and nothing stored
    # scalar, built for this core, the compiler naming a dependence it calls aliasing: aliasing first with its
    # test, narrow vectors after it, which stand alone once restrict left the loop as it was
    copy = {"vector_bits": 0, "scalar_fp": 0, "vector_fp": 0, "accumulators": 0, "longest_chain": 0, "chain_op": "",
            "flops": 0, "bytes": 8, "element_bits": 0, "calls": [], "moves_only": True}
    fs = diagnose(code(copy, causes=["aliasing"]), row(of_roof=0.23, level="L3"), CTX)
    assert ids(fs)[:2] == ["aliasing", "narrow_vectors"]
    assert "j / 2" in text(fs[1]["advice"])
    unchanged = {**experiment("restrict", "no difference", 1.0), "speedup_ci95": [0.98, 1.02], "a_time_s": 3e-3,
                 "loop_unchanged": True}
    assert ids(weigh(fs, [unchanged], 3e-3))[0] == "narrow_vectors"
    # the same instructions cannot be faster: restrict's identical loop refutes the overlap however wide a noisy
    # moment made its interval (TSVC's s293, a[i] = a[0]: 0.93x to 1.14x); a different loop with that interval does not
    noisy = {**unchanged, "speedup_ci95": [0.93, 1.14], "speedup": 1.01}
    weighed = weigh(fs, [noisy], 3e-3)
    assert ids(weighed)[0] == "narrow_vectors" and weighed[-1]["refuted"]["loop_unchanged"]
    assert not weigh(fs, [{**noisy, "loop_unchanged": False}], 3e-3)[0].get("refuted")
    # a copy along a walk another finding names is that finding's: a transpose's column walk, a gather's index
    walk = [{"array": "out", "index": "[j * n + i]", "var": "j", "stride": "n", "sum": False}]
    assert "narrow_vectors" not in ids(diagnose(code(copy, causes=["aliasing"], pragmas={"column_walks": walk}),
                                                row(of_roof=0.23, level="L3"), CTX))
    assert "narrow_vectors" not in ids(diagnose(code({**copy, "indexed_loads": 1}), row(of_roof=0.23), CTX))
    # a loop that computes, where gcc named aliasing: aliasing first (restrict its test), narrow vectors after it,
    # which go where restrict vectorized the loop and stand on their own where it left the loop scalar (TSVC's s211,
    # whose statements' order keeps it scalar: restrict gained 1.59x from loads no longer repeated)
    computes = {**LOOP_SCALAR_SUM, "accumulators": 0, "longest_chain": 0, "chain_op": ""}
    fs = diagnose(code(computes, causes=["aliasing"]), row(of_roof=0.2), CTX)
    assert ids(fs)[:2] == ["aliasing", "narrow_vectors"] and fs[1]["unless_vectorized_by"] == "restrict"
    vectorized = {**experiment("restrict", "faster", 4.0), "a_time_s": 1e-3, "vector_bits": [0, 512]}
    assert ids(weigh(fs, [vectorized], 1e-3)) == ["aliasing"]
    scalar = {**experiment("restrict", "faster", 1.59), "a_time_s": 1e-3, "vector_bits": [0, 0]}
    weighed = weigh(fs, [scalar], 1e-3)
    assert ids(weighed)[:2] == ["narrow_vectors", "aliasing"] and weighed[1]["confirmed"]["speedup"] == 1.59
    assert "after" not in weighed[0] and "reorder the statements" in text(weighed[0]["advice"])
    # where restrict's loop could not be read, the order is the rules'
    assert ids(weigh(fs, [{**scalar, "vector_bits": None}], 1e-3))[:2] == ["aliasing", "narrow_vectors"]
    # a copy already near its L3 roof is a stream, whatever its width
    assert "narrow_vectors" not in ids(diagnose(code(copy), row(of_roof=0.7, level="L3"), CTX))
    # a gain measured for the finding that goes first stays what was measured
    fs = diagnose(code(copy, causes=["aliasing"]), row(of_roof=0.23, level="L3"), CTX)
    (a, n) = weigh(fs, [{**experiment("restrict", "faster", 2.0), "a_time_s": 1e-3}], 1e-3)
    assert (a["id"], n["id"]) == ("aliasing", "narrow_vectors") and a["saving_s"] == pytest.approx(0.5e-3)


def test_a_scalar_copied_between_xmm_registers_is_not_a_vector():
    # TSVC's s244 built with restrict: scalar FMAs, and gcc keeps a value with vmovaps %xmm2,%xmm3
    d = asm.audit_loop(*(lambda i: (i, asm.find_loops(i)[0]))(asm.parse_objdump("""
    3150:	vmovss (%rdx,%rax,1),%xmm2
    3155:	vmovss (%rsi,%rax,1),%xmm0
    315a:	vmovss (%rcx,%rax,1),%xmm1
    315f:	vmovaps %xmm2,%xmm3
    3163:	vfmadd132ss %xmm1,%xmm0,%xmm3
    3168:	vaddss %xmm2,%xmm0,%xmm0
    316c:	vfmadd132ss 0x4(%rdi,%rax,1),%xmm0,%xmm1
    3173:	vmovss %xmm0,(%rsi,%rax,1)
    3178:	vmovss %xmm3,(%rdi,%rax,1)
    317d:	vmovss %xmm1,0x4(%rdi,%rax,1)
    3183:	add    $0x4,%rax
    3187:	cmp    $0x1f3fc,%rax
    318d:	jne    3150 <s244+0x10>
""")))
    assert d.vector_bits == 0
    # a 128-bit load of packed elements is a vector
    d = asm.audit_loop(*(lambda i: (i, asm.find_loops(i)[0]))(asm.parse_objdump("""
    10:	vmovaps (%rsi,%rax,1),%xmm3
    15:	vaddps %xmm3,%xmm0,%xmm0
    19:	add    $0x10,%rax
    1d:	cmp    %rax,%rdx
    20:	jne    10 <f+0x10>
""")))
    assert d.vector_bits == 128


def test_packed_signed_doubleword_instructions_are_vector_work_not_scalar_doubles():
    # max(|x[i]|) over ints, vectorized: vpabsd and vpmaxsd end in "sd" as vmovsd does, and are 512 bits wide
    d = asm.audit_loop(*(lambda i: (i, asm.find_loops(i)[0]))(asm.parse_objdump("""
    11d0:	vpabsd (%rax),%zmm0
    11d6:	add    $0x40,%rax
    11da:	vpmaxsd %zmm0,%zmm1,%zmm1
    11e0:	cmp    %rcx,%rax
    11e3:	jne    11d0 <absmax_i32+0x30>
""")), "x86_64")
    assert d.vector_bits == 512
    assert detail(REDUCTION)["vector_bits"] == 0  # vmovsd and vaddsd are one double each


def test_an_atomic_update_is_read_from_its_lock_prefix():
    d = detail("""
    50:	mov    (%rdx),%eax
    52:	and    $0xf,%eax
    55:	lock addq $0x1,(%rcx,%rax,8)
    5b:	add    $0x4,%rdx
    5f:	cmp    %rdx,%rsi
    62:	jne    50 <h+0x50>
""")
    assert d["atomics"] == 1 and d["indexed_updates"] == 1
    assert detail(REDUCTION)["atomics"] == 0
    assert [i.locked for i in asm.parse_objdump("    10:\txchg   %eax,(%rdx)\n    12:\txchg   %eax,%edx\n"
                                                "    14:\tldaddal w1, w0, [x2]\n")] == [True, False, True]


def test_a_table_lookup_that_reuses_the_index_register_is_an_indexed_load():
    # y[i] = lut[x[i]] on bytes: gcc loads the index and the value into the same register
    d = detail("""
    520:	movzbl (%rdx,%rax,1),%r8d
    525:	movzbl (%rsi,%r8,1),%r8d
    52a:	mov    %r8b,(%rcx,%rax,1)
    52e:	add    $0x1,%rax
    532:	cmp    %rax,%rdi
    535:	jne    520 <apply_lut+0x10>
""")
    assert (d["indexed_loads"], d["indexed_updates"], d["pointer_chains"]) == (1, 0, 0)
    # a pointer chased through one register, unrolled twice: no index loaded this iteration, a chain instead
    chase = detail("""
    10:	mov    (%rax),%rax
    13:	mov    (%rax),%rax
    16:	sub    $0x2,%rdx
    1a:	jne    10 <c+0x10>
""")
    assert chase["indexed_loads"] == 0


def test_a_histogram_binned_from_floats_is_an_update_through_an_index():
    # h[(int)((x[i] - lo) * scale)]++: the bin comes from a loaded float through FP arithmetic and a conversion
    d = detail("""
    c20:	vmovss (%rsi),%xmm1
    c24:	vsubss %xmm0,%xmm1,%xmm1
    c28:	vmulss %xmm2,%xmm1,%xmm1
    c2c:	vcvttss2si %xmm1,%eax
    c30:	cmp    %eax,%edx
    c32:	jle    c3e <float_hist+0x3e>
    c34:	test   %eax,%eax
    c36:	js     c3e <float_hist+0x3e>
    c38:	cltq
    c3a:	addl   $0x1,(%rcx,%rax,4)
    c3e:	add    $0x4,%rsi
    c42:	cmp    %rsi,%rdi
    c45:	jne    c20 <float_hist+0x20>
""")
    assert (d["indexed_loads"], d["indexed_updates"]) == (1, 1)
    f = diagnose(code(d), row(of_roof=0.13), CTX)[0]
    assert f["id"] == "indirect" and "histogram" in text(f["hypothesis"]) and "copies of the bins" in text(f["advice"])
    assert "update memory through the index" in text(f["evidence"][1])
    # a float converted and stored as an integer (quantized) is no index
    q = detail("""
    c20:	vmulss (%rsi,%rax,4),%xmm0,%xmm1
    c26:	vcvtss2si %xmm1,%edx
    c2a:	mov    %dl,(%rcx,%rax,1)
    c2d:	inc    %rax
    c30:	cmp    %rax,%rdi
    c33:	jne    c20 <q+0x20>
""")
    assert (q["indexed_loads"], q["indexed_updates"]) == (0, 0)
    # a gather through loaded indices reads and does not write
    assert detail(SPMV)["indexed_updates"] == 0


def test_a_value_read_back_from_where_the_last_iteration_stored_it_is_a_chain_through_memory():
    # S[i][j] = x[i][j] + S[i-1][j] + S[i][j-1] - S[i-1][j-1]: gcc reads S[i][j-1] back from the array
    sat = """
    5f0:	vmovsd (%rsi,%rax,8),%xmm0
    5f5:	vaddsd (%rdx,%rax,8),%xmm0,%xmm0
    5fa:	vaddsd -0x8(%rcx,%rax,8),%xmm0,%xmm0
    600:	vsubsd -0x8(%rdx,%rax,8),%xmm0,%xmm0
    606:	vmovsd %xmm0,(%rcx,%rax,8)
    60b:	add    $0x1,%rax
    60f:	cmp    %rdi,%rax
    612:	jne    5f0 <summed_area+0x50>
"""
    d = detail(sat)
    assert d["memory_recurrences"] == 1 and d["longest_chain"] == 0
    pred = {"cycles_per_iteration": 2.1, "block_rthroughput": 2.0, "bound": "ports", "tool": "llvm-mca",
            "model": "sapphirerapids"}
    fs = diagnose(code(d, prediction=pred), row(of_roof=0.13, cycles_per_iteration=12.8), CTX)
    f = fs[0]
    assert f["id"] == "dependency_chain" and f["factor"] == pytest.approx(12.8 / 2.1)
    assert "the iteration before it stored" in text(f["evidence"][0])
    # the same loop reading the element the next iteration will overwrite (x[i] = x[i + 1]) carries nothing, nor
    # does a copy from another array; a pointer that moves does as an index does
    assert detail(sat.replace("-0x8(%rcx,%rax,8)", "0x8(%rcx,%rax,8)"))["memory_recurrences"] == 0
    assert detail(sat.replace("-0x8(%rcx,%rax,8),%xmm0,%xmm0", "-0x8(%r9,%rax,8),%xmm0,%xmm0"))[
        "memory_recurrences"] == 0
    assert detail("""
    10:	vmulsd -0x8(%rdi),%xmm1,%xmm0
    15:	vmovsd %xmm0,(%rdi)
    19:	add    $0x8,%rdi
    1d:	cmp    %rdi,%rax
    20:	jne    10 <g+0x10>
""")["memory_recurrences"] == 1
    # a[i] = b[i - 1] + c[i] * d[i]; b[i] = b[i + 1] - e[i] * d[i] (TSVC's s211): b[i - 1] is read back where the
    # last iteration stored it, but goes into a[i]; what is stored to b waits on nothing stored before
    s211 = """
    2ea0:	vmovss (%rdx,%rax,1),%xmm0
    2ea5:	vmovss -0x4(%rsi,%rax,1),%xmm1
    2eab:	vfmadd132ss (%rcx,%rax,1),%xmm1,%xmm0
    2eb1:	vmovss %xmm0,(%rdi,%rax,1)
    2eb6:	vmovss (%r8,%rax,1),%xmm0
    2ebc:	vmovss 0x4(%rsi,%rax,1),%xmm2
    2ec2:	vfnmadd132ss (%rcx,%rax,1),%xmm2,%xmm0
    2ec8:	vmovss %xmm0,(%rsi,%rax,1)
    2ecd:	add    $0x4,%rax
    2ed1:	cmp    $0x1f3fc,%rax
    2ed7:	jne    2ea0 <s211+0x10>
"""
    assert detail(s211)["memory_recurrences"] == 0
    # the same loop with b[i] computed from b[i - 1]: the chain closes
    assert detail(s211.replace("vmovss 0x4(%rsi,%rax,1),%xmm2", "vmovaps %xmm1,%xmm2"))["memory_recurrences"] == 1


def test_floor_kept_scalar_by_trapping_math_is_tested_without_it(tmp_path):
    from rooflab.diagnosis.experiments import variant
    from rooflab.userkernel.spec import load_spec

    d = detail("""
    12c0:	vmovsd (%rsi,%rax,8),%xmm1
    12c5:	vaddsd %xmm3,%xmm1,%xmm0
    12c9:	vdivsd %xmm2,%xmm0,%xmm0
    12cd:	vrndscalesd $0x9,%xmm0,%xmm0,%xmm0
    12d4:	vfnmadd132sd %xmm2,%xmm1,%xmm0
    12d9:	vmovsd %xmm0,(%rdx,%rax,8)
    12de:	add    $0x1,%rax
    12e2:	cmp    %rax,%rdi
    12e5:	jne    12c0 <wrap_angle+0x20>
""")
    assert d["scalar_rounds"] == 1 and d["vector_bits"] == 0
    f = next(x for x in diagnose(code(d), row(of_roof=0.4), CTX) if x["id"] == "calls")
    assert f["experiments"] == ["no_trapping_math"] and f["test"] == "no_trapping_math"
    assert "-fno-trapping-math" in text(f["advice"])
    # built without trapping math already, the rounding is not why the loop is scalar
    built = code(d, build={"flags": ["-O3", "-march=native", "-fno-trapping-math"]})
    assert not any(x["id"] == "calls" for x in diagnose(built, row(of_roof=0.4), CTX))
    (tmp_path / "k.c").write_text("#include <math.h>\nvoid w(long n, const double *a, double *y)\n"
                                  "{ for (long i = 0; i < n; i++) y[i] = floor(a[i]); }\n")
    (tmp_path / "k.toml").write_text('source = "k.c"\nfunction = "w"\nflops = "n"\nbytes = "16*n"\n'
                                     'sizes = {n = [64]}\nargs = {n = "n", a = {shape = ["n"]}, '
                                     'y = {shape = ["n"], output = true}}\n')
    spec = load_spec(tmp_path / "k.toml")[0]
    assert variant("no_trapping_math", spec, {"n": 64}, {})[0].flags[-1] == "-fno-trapping-math"


def test_fmod_has_no_vector_version_so_its_call_is_told_how_to_write_it_out():
    loop = {**LOOP_SCALAR_SUM, "accumulators": 0, "longest_chain": 0, "chain_op": "", "calls": ["fmod"]}
    fs = diagnose(code(loop), row(of_roof=0.13), CTX)
    f = fs[0]
    assert f["id"] == "calls" and f["experiments"] == [] and "floor(x / L)" in text(f["advice"])
    assert "no compiler flag vectorizes it" in text(f["hypothesis"])
    # exp has one: tested by the build that calls it
    f = diagnose(code({**loop, "calls": ["exp"]}), row(of_roof=0.13), CTX)[0]
    assert f["experiments"] == ["vector_math"]


def test_a_running_maximum_of_magnitudes_is_scalar_code_chained_by_its_max():
    # if (fabs(x[i]) > m) m = fabs(x[i]): gcc takes the magnitude with vandpd on an xmm register (a scalar's sign
    # bit, no vector of elements) and keeps the maximum in order with vmaxsd
    snippet = """
    1408:	vmovsd (%rsi),%xmm0
    140c:	add    $0x8,%rsi
    1410:	vandpd %xmm2,%xmm0,%xmm0
    1414:	vmaxsd %xmm1,%xmm0,%xmm1
    1418:	cmp    %rsi,%rax
    141b:	jne    1408 <absmax+0x18>
"""
    d = detail(snippet)
    assert d["vector_bits"] == 0 and d["scalar_fp"] == 1 and d["vector_fp"] == 0
    assert (d["accumulators"], d["longest_chain"], d["chain_op"]) == (1, 1, "max")
    src = "{ double m = 0; for (long i = 0; i < n; i++) if (fabs(x[i]) > m) m = fabs(x[i]); return m; }"
    c = code(d, pragmas={"omp": False, "select_reductions": select_reductions(src)})
    fs = diagnose(c, row(of_roof=0.04), CTX)
    assert fs[0]["id"] == "reduction_chain" and "running maximum in m" in text(fs[0]["evidence"][0])
    # a loop vectorized 128 bits wide is still seen as one
    assert detail(snippet.replace("vmaxsd", "vmaxpd"))["vector_bits"] == 128


def test_an_fma_that_only_adds_into_its_destination_is_a_sum_not_a_recurrence():
    # tmp += A[i][j] * x[j] (PolyBench's atax): vfmadd231 keeps the sum as the addend, the multiply is off the chain
    d = detail("""
    1120:	vmovsd (%rsi,%rax,8),%xmm1
    1125:	vfmadd231sd (%rdx,%rax,8),%xmm1,%xmm0
    1130:	inc    %rax
    1133:	cmp    %rax,%rcx
    1136:	jne    1120 <atax+0x20>
""")
    assert d["chain_op"] == "add" and d["longest_chain"] == 1 and d["fma"] == 1
    fs = diagnose(code(d), row(), CTX)
    assert "reduction_chain" in ids(fs) and "dependency_chain" not in ids(fs)


def test_gathers_masks_and_lanes_are_counted():
    d = detail(GATHER)
    assert d["gathers"] == 1 and d["masked"] == 1 and d["vector_bits"] == 512
    assert d["flops"] == 8 and d["accumulators"] == 0  # a vaddpd of fresh loads carries nothing over


def test_calls_in_the_loop_are_named():
    d = detail(CALL)
    assert d["calls"] == ["sqrt"] and d["flops"] == 0


def test_the_loop_for_the_analyzer_is_a_closed_block():
    insns = asm.parse_objdump(REDUCTION)
    body = asm.loop_assembly(insns, asm.hot_loop(insns))
    lines = body.strip().splitlines()
    assert lines[0].endswith(":") and lines[-1].split()[-1] == lines[0][:-1]  # the branch goes back to the label
    assert "vaddsd" in body and "<" not in body  # objdump's symbol hints are gone


# --------------------------------------------------------------------------------------------- llvm-mca

MCA = """Iterations:        200
Instructions:      1200
Total Cycles:      614
Total uOps:        1200

Dispatch Width:    6
uOps Per Cycle:    1.95
IPC:               1.95
Block RThroughput: 1.0


Cycles with backend pressure increase [ 79.80% ]
Throughput Bottlenecks:
  Resource Pressure       [ 0.00% ]
  Data Dependencies:      [ 79.80% ]
  - Register Dependencies [ 79.80% ]
  - Memory Dependencies   [ 0.00% ]
"""


def test_parse_mca_reads_cycles_throughput_and_the_bound():
    p = parse_mca(MCA)
    assert p["cycles_per_iteration"] == pytest.approx(614 / 200) and p["block_rthroughput"] == 1.0
    assert p["bound"] == "dependencies" and p["dependency_share"] == pytest.approx(0.798) and p["ipc"] == 1.95
    with pytest.raises(NoPrediction, match="no cycle count"):
        parse_mca("error: something")


def fake_mca(tmp_path, cpus: str, fail: str | None = None) -> str:
    """An llvm-mca stand-in: its version, the CPUs it models, and either a report or a failure."""
    tool = tmp_path / "llvm-mca"
    (tmp_path / "report.txt").write_text(MCA)
    run = f"echo 'error: {fail}' >&2; exit 1" if fail else f"cat '{tmp_path / 'report.txt'}'"
    tool.write_text("#!/bin/sh\n"
                    'case "$*" in\n'
                    '  *--version*) echo "LLVM version 14.0.6";;\n'
                    f'  *-mcpu=help*) for c in {cpus}; do echo "  $c - Select the $c processor."; done;;\n'
                    f"  *) {run};;\n"
                    "esac\n")
    tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return str(tool)


def test_model_for_takes_the_nearest_older_model_and_says_so(tmp_path):
    tool = fake_mca(tmp_path, "znver2 znver3")
    cpu, note = model_for("Zen 4 (EPYC 9004)", "x86_64", tool)
    assert cpu == "znver3" and "no Zen 4" in note and "stands in" in note
    assert model_for("Zen 3", "x86_64", tool) == ("znver3", "")
    with pytest.raises(NoPrediction, match="no model of Haswell"):
        model_for("Haswell", "x86_64", fake_mca(tmp_path, "znver3"))
    with pytest.raises(NoPrediction, match="no llvm-mca model is known"):
        model_for("Some Future Core", "x86_64", tool)


def test_without_llvm_mca_the_reason_says_what_to_install(monkeypatch):
    monkeypatch.setattr("shutil.which", lambda name: None)
    with pytest.raises(NoPrediction, match="apt-get install llvm"):
        model_for("Zen 4", "x86_64")


def test_predict_names_the_instruction_the_model_cannot_read(tmp_path):
    tool = fake_mca(tmp_path, "znver3", fail="unsupported instruction: vfmadd231pd %zmm1, %zmm2, %zmm3")
    with pytest.raises(NoPrediction, match="znver3 model cannot read `vfmadd231pd"):
        predict(".L:\n\tjne .L\n", "Zen 4", "x86_64", tool)
    p = predict(".L:\n\tjne .L\n", "Zen 4", "x86_64", fake_mca(tmp_path, "znver3"))
    assert p["tool"] == "llvm-mca 14.0.6" and p["model"] == "znver3" and p["note"]


# ------------------------------------------------------------------------------------ the compiler's remarks

SOURCE = """/* dot(x, y) in a comment is not the definition */
double dot(const double *x, const double *y, long n)
{
    double s = 0.0;
    for (long i = 0; i < n; i++)  // { a brace in a comment
        s += x[i] * y[i];
    return s;
}
void other(void) { }
"""

GCC_REPORT = """k.c:5:23: missed: couldn't vectorize loop
k.c:6:11: missed: not vectorized: no vectype for stmt: _4 = *_3;
k.c:6:11: missed: not vectorized: no vectype for stmt: _4 = *_3;
k.c:9:6: note: vectorized 0 loops in function.
other.h:3:1: missed: not this file
k.c:5:23: optimized: loop vectorized using 32 byte vectors
"""


def test_function_lines_skip_comments_and_declarations():
    assert function_lines(SOURCE, "dot") == (2, 8)
    assert function_lines(SOURCE, "other") == (9, 9)
    assert function_lines("double dot(double *x);\n", "dot") is None


def test_parse_remarks_keeps_the_functions_lines_vectorized_first_without_repeats():
    rs = parse_remarks(GCC_REPORT, "k.c", (2, 8))
    assert [r.kind for r in rs] == ["vectorized", "missed", "missed"]
    assert [r.line for r in rs] == [5, 5, 6] and all(r.line <= 8 for r in rs)


def test_a_libm_call_kept_for_errno_is_a_remark_other_memory_clobbers_are_noise():
    out = ("k.c:3:24: missed: couldn't vectorize loop\n"
           "k.c:3:41: missed: statement clobbers memory: _18 = sqrt (_4);\n"
           "k.c:4:9: missed: statement clobbers memory: mine (_4);\n"
           "k.c:5:9: missed: statement clobbers memory: _7 = __builtin_expf (_6);\n")
    kept = [r.text for r in parse_remarks(out, "k.c", None)]
    assert kept == ["couldn't vectorize loop", "statement clobbers memory: _18 = sqrt (_4);",
                    "statement clobbers memory: _7 = __builtin_expf (_6);"]


def test_alias_details_come_from_the_vectorizers_dump():
    dump = ("k.c:3:106: missed:   versioning for alias required: can't determine dependence between *_3 and *_15\n"
            "k.c:3:116: missed:   versioning for alias required: can't determine dependence between *_9 and *_3\n"
            "k.c:3:22: missed:   number of versioning for alias run-time tests exceeds 10 (--param x)\n"
            "k.c:3:22: note:   === vect_prune_runtime_alias_test_list ===\n")
    rs = alias_details(dump, "k.c", None)
    assert len(rs) == 2 and {r.kind for r in rs} == {"missed"}  # one per kind of message
    assert causes_of(rs) == ["aliasing"]


def test_a_dependence_within_one_array_is_not_aliasing_that_restrict_could_lift():
    """An in-place reversal (fannkuch's flip: perm[i] and perm[k - i]) makes gcc version the loop for a dependence
    between two elements of one array: no restrict separates them, so it is no aliasing cause; two pointers, or a
    base the compiler names by a temporary only, still are."""
    from rooflab.toolchain.remarks import within_one_array

    same = "versioning for alias required: can't determine dependence between (*perm.1_44)[i_84] and (*perm.1_44)[_15]"
    rs = [Remark(36, "vectorized", "loop versioned for vectorization because of possible aliasing"),
          Remark(37, "missed", same)]
    assert within_one_array(same) and "aliasing" not in causes_of(rs)
    assert within_one_array("can't determine dependence between a[i_5][j_6] and a[_7][j_6]")
    two = "versioning for alias required: can't determine dependence between *x_5(D) and *y_7(D)"
    temp = "versioning for alias required: can't determine dependence between *_3 and *_3"
    for other in (two, temp):
        assert not within_one_array(other)
        assert "aliasing" in causes_of([rs[0], Remark(37, "missed", same), Remark(37, "missed", other)])


def test_causes_are_read_from_missed_remarks_and_from_versioning():
    rs = [Remark(3, "missed", "not vectorized: not suitable for strided load _12 = *_11;"),
          Remark(3, "vectorized", "loop vectorized using 32 byte vectors"),
          Remark(4, "vectorized", "loop versioned for vectorization because of possible aliasing"),
          Remark(5, "missed", "reduction: unsafe fp math optimization: s_12 = _4 + s_9;")]
    assert causes_of(rs) == ["stride", "aliasing", "reduction"]



LISTING = """
Disassembly of section .text:

0000000000000000 <two>:
two():
/tmp/x/k.c:3
   0:\ttest   %rdi,%rdi
   3:\tjle    40 <two+0x40>
/usr/include/x86_64-linux-gnu/bits/math.h:12
   5:\tvmovsd (%rsi),%xmm0
/tmp/x/k.c:5 (discriminator 3)
   9:\tvaddsd %xmm0,%xmm0,%xmm0
   d:\tcs nopw 0x0(%rax,%rax,1)
/tmp/x/k.c:4 (discriminator 1)
  17:\tcmp    %rax,%rdi
  1a:\tjne    9 <two+0x9>

0000000000000020 <two._omp_fn.0>:
two._omp_fn.0():
/tmp/x/k.c:9
  20:\tret
"""


def test_a_line_listing_gives_each_instruction_its_line_of_the_source_and_none_for_other_files():
    funcs = asm.parse_line_listing(LISTING, "k.c")
    assert funcs["two"] == [("test", 3), ("jle", 3), ("vmovsd", None), ("vaddsd", 5), ("nopw", 5), ("cmp", 4),
                            ("jne", 4)]
    assert funcs["two._omp_fn.0"] == [("ret", 9)]
    assert asm.parse_line_listing(LISTING, "other.c")["two"][0] == ("test", None)


def test_a_loops_remarks_are_those_on_its_lines_and_the_functions_where_its_lines_are_unknown():
    said = [Remark(4, "missed", "not vectorized: not suitable for gather load _5 = *_4;"),
            Remark(7, "missed", "not vectorized: control flow in loop."),
            Remark(8, "missed", "statement clobbers memory: _47 = sqrt (_22);"),
            Remark(30, "missed", "not vectorized: complicated access pattern.")]  # another function's
    dump = [Remark(4, "missed", "versioning for alias required: can't determine dependence between *_3 and *_9")]
    on_first = loop_remarks(said, dump, [3, 4], (2, 10), [])
    assert [r["line"] for r in on_first["remarks"]] == [4, 4]
    assert on_first["causes"] == ["stride", "aliasing"] and on_first["remarks_elsewhere"] == 2
    on_second = loop_remarks(said, dump, [7, 8], (2, 10), [])
    assert on_second["causes"] == ["control_flow"] and on_second["remarks_elsewhere"] == 1
    # a loop inlined from another function of the source: its own lines count, even outside the caller's
    assert loop_remarks(said, [], [30], (2, 10), [])["causes"] == ["stride"]
    unknown = loop_remarks(said, dump, [], (2, 10), [])
    assert [r["line"] for r in unknown["remarks"]] == [4, 7, 8, 4] and unknown["remarks_elsewhere"] == 0


# --------------------------------------------------------------------------------------------- experiments

def test_with_restrict_qualifies_the_pointers_of_the_definition_only():
    src = "void f(double *y, const double *x, long n);\nvoid f(double *y, const double *x, long n)\n{ y[0] = x[0]; }\n"
    out = with_restrict(src, "f", ["y", "x"])
    assert out.splitlines()[0] == "void f(double *y, const double *x, long n);"  # the declaration as it was
    assert "double *__restrict__ y, const double *__restrict__ x, long n)" in out.splitlines()[1]
    assert with_restrict(out, "f", ["y", "x"]) == out  # already restrict: nothing doubles
    assert with_restrict(src, "g", ["y"]) is None
    # array parameters get the qualifier in their first brackets, once
    arr = "void k(int n, double C[n][n], const double x[])\n{ C[0][0] = x[0]; }\n"
    got = with_restrict(arr, "k", ["C", "x"])
    assert "double C[__restrict__ n][n], const double x[__restrict__ ])" in got
    assert with_restrict(got, "k", ["C", "x"]) == got


def test_pointer_params_reads_every_pointer_and_array_parameter_of_the_definition():
    from rooflab.diagnosis.experiments import pointer_params

    src = ("static void step(int n, const float coef[4], const float *restrict a, double (*C)[n], float out[],\n"
           "                 long m)\n{ out[0] = a[0] * coef[0] + C[0][0]; }\n")
    assert pointer_params(src, "step") == ["coef", "a", "C", "out"]
    assert pointer_params(src, "other") == []
    assert pointer_params("void g(double (*f)(double), double *x, int n)\n{ x[0] = f(x[0]); }\n", "g") == ["x"]


def test_restrict_reaches_the_helper_that_holds_the_hot_loop(tmp_path, monkeypatch):
    """restrict on the kernel's parameters says nothing about a helper the compiler did not inline (a time-step
    loop calling the step): the copy qualifies the helper's pointers too."""
    from rooflab.diagnosis.experiments import _restrict_copy
    from rooflab.userkernel.spec import load_spec

    monkeypatch.setenv("ROOFLAB_HOME", str(tmp_path / "home"))
    (tmp_path / "k.c").write_text(
        "static void step(int n, const float c[2], const float *in, float *out)\n"
        "{ for (int i = 1; i < n - 1; i++) out[i] = c[0] * in[i] + c[1] * (in[i - 1] + in[i + 1]); }\n"
        "void run(int n, int t, const float c[2], float *a, float *b)\n"
        "{ for (int s = 0; s < t; s++) { if (s & 1) step(n, c, b, a); else step(n, c, a, b); } }\n")
    (tmp_path / "k.toml").write_text(
        'source = "k.c"\nfunction = "run"\nflops = "3*n*t"\nbytes = "8*n*t"\nsizes = {n = [64], t = [2]}\n'
        '[args]\nn = "n"\nt = "t"\nc = {shape = [2]}\na = {shape = ["n"], output = true}\n'
        'b = {shape = ["n"], output = true}\n')
    spec = load_spec(tmp_path / "k.toml")[0]
    copy = _restrict_copy(spec, "step.constprop.0").source.read_text()
    assert "const float c[__restrict__ 2], const float *__restrict__ in, float *__restrict__ out)" in copy
    assert "float *__restrict__ a, float *__restrict__ b)" in copy
    # the loop in the kernel's own function: its parameters only, as before
    own = _restrict_copy(spec, "run").source.read_text()
    assert "const float *in, float *out)" in own and "float *__restrict__ a" in own


def test_scaled_size_shrinks_every_size_variable_to_fit(tmp_path):
    from rooflab.userkernel.spec import load_spec

    (tmp_path / "k.c").write_text("void s(double *x, long n, long m) { for (long i = 0; i < n * m; i++) x[i] = 0; }")
    (tmp_path / "k.toml").write_text('source = "k.c"\nfunction = "s"\nflops = "n*m"\nbytes = "8*n*m"\n'
                                     'sizes = {n = [4000], m = [1000]}\n[args]\nx = {shape = ["n", "m"]}\n'
                                     'n = "n"\nm = "m"\n')
    spec = load_spec(tmp_path / "k.toml")[0]
    small = scaled_size(spec, {"n": 4000, "m": 1000}, 1 << 20)
    assert spec.array_bytes(small) <= 1 << 20 and spec.array_bytes(small) > (1 << 20) / 2
    assert small["n"] / small["m"] == pytest.approx(4, rel=0.05)  # scaled together
    assert scaled_size(spec, {"n": 10, "m": 10}, 1 << 20) is None  # it fits already: nothing to change


# --------------------------------------------------------------------------------------------- evidence

def test_access_kinds_follow_the_loops_memory_operations():
    assert access_kinds({"audit": {"loads": 2, "stores": 0}}) == ("read", "read_nt")
    assert access_kinds({"audit": {"loads": 2, "stores": 1}}) == ("copy", "triad")
    assert access_kinds({"audit": {"loads": 2, "stores": 1, "nt_stores": 1}}) == ("copy_nt", "triad_nt")
    assert access_kinds({"audit": None}) is None


CRC = """
    4b0:	movzbl (%rsi),%ecx
    4b3:	add    $0x1,%rsi
    4b7:	xor    %eax,%ecx
    4b9:	shr    $0x8,%eax
    4bc:	movzbl %cl,%ecx
    4bf:	xor    (%rdx,%rcx,4),%eax
    4c2:	cmp    %rdi,%rsi
    4c5:	jne    4b0 <crc32_table+0x10>
"""
# a running mean and variance (Welford): mean += (x - mean) / k feeds the mean back into its own addend
WELFORD = """
     848:	vmovsd (%rsi,%rax,8),%xmm1
     84d:	add    $0x1,%rax
     851:	vcvtsi2sd %rax,%xmm5,%xmm0
     856:	vsubsd %xmm2,%xmm1,%xmm3
     85a:	vdivsd %xmm0,%xmm3,%xmm0
     85e:	vaddsd %xmm0,%xmm2,%xmm2
     862:	vsubsd %xmm2,%xmm1,%xmm1
     866:	vfmadd231sd %xmm3,%xmm1,%xmm4
     86b:	cmp    %rdi,%rax
     86e:	jne    848 <welford+0x18>
"""


def test_a_table_lookup_at_the_last_steps_result_is_a_chain_and_its_iterations_come_from_the_walked_buffer():
    d = detail(CRC)
    # a byte read and a 4-byte lookup, each by its own size; the buffer walked a byte an iteration
    assert d["bytes"] == 5.0 and d["streams"] == [1]
    assert (d["lookup_chains"], d["pointer_chains"], d["indexed_loads"]) == (1, 0, 1)
    # a histogram's index comes from this iteration's load, a gather's from a moving index array: no chain
    hist = detail("""
    10:	movzbl (%rsi,%rax,1),%edx
    14:	add    $0x1,%rax
    18:	addl   $0x1,(%rdi,%rdx,4)
    1c:	cmp    %rax,%rcx
    1f:	jne    10 <h+0x10>
""")
    assert hist["lookup_chains"] == 0 and hist["indexed_updates"] == 1 and hist["streams"] == [1]
    assert detail(GATHER)["lookup_chains"] == 0
    # 1 MB of bytes through a 1 KiB table: the iterations are the buffer's bytes, not the bytes the model counts
    # over the 5 the body reads (7.6 cycles a byte measured read 36)
    c, iters = cycles_per_iteration(2.6e-3, 2.9e9, d, 1e6, 1e6, arrays=[1_000_000, 1024])
    assert iters == 1e6 and c == pytest.approx(7.54)
    assert cycles_per_iteration(2.6e-3, 2.9e9, d, 1e6, 1e6)[1] == pytest.approx(2e5)  # without the arrays: bytes
    # several streams agree on one count: y[i] = x[idx[i]] + x[idx[i] + 1] walks idx (4 B) and y (8 B)
    assert walked_iterations([4, 8], [4_000_000, 64_000_000, 8_000_000]) == 1e6
    assert walked_iterations([], [100]) is None and walked_iterations([8], [4]) is None
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "scalar_fp": 0,
            "indexed_loads": 1, "lookup_chains": 1}
    pred = {"tool": "llvm-mca", "model": "sapphirerapids", "cycles_per_iteration": 8.0, "dependency_share": 0.92,
            "block_rthroughput": 1.5}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.01, cycles_per_iteration=8.1), CTX)
    assert fs[0]["id"] == "dependency_chain" and "indirect" not in ids(fs)
    assert "previous iteration's lookup" in text(fs[0]["evidence"][0]) and "slicing-by-8" in text(fs[0]["advice"])
    assert "indirect" in ids(diagnose(code({**loop, "lookup_chains": 0}), row(of_roof=0.01), CTX))


def test_a_running_value_added_to_with_a_term_computed_from_itself_is_a_recurrence_not_a_reduction():
    d = detail(WELFORD)
    assert d["accumulators"] == 2 and d["feedback"] == 1  # the mean feeds back; the sum of squares does not
    # a running value subtracted from a term computed from it (LFK 19: b5[k] = sa[k] + stb5 * sb[k];
    # stb5 = b5[k] - stb5) is a recurrence too
    lin = detail("""
    1120:	vmovsd (%rcx,%rax,1),%xmm1
    1125:	vfmadd213sd (%rdx,%rax,1),%xmm0,%xmm1
    112b:	vmovsd %xmm1,(%rsi,%rax,1)
    1130:	add    $0x8,%rax
    1134:	vsubsd %xmm0,%xmm1,%xmm0
    1138:	cmp    %rax,%r8
    113b:	jne    1120 <g+0x20>
""")
    assert lin["feedback"] == 1
    # a loaded value subtracted from the running one (s -= x[i]) is a reduction still
    sub = detail("""
    1120:	vsubsd (%rcx,%rax,8),%xmm0,%xmm0
    1125:	add    $0x1,%rax
    1129:	cmp    %rax,%rsi
    112c:	jne    1120 <g+0x20>
""")
    assert sub["accumulators"] == 1 and sub["feedback"] == 0
    assert detail(REDUCTION)["feedback"] == 0 and detail(RECURRENCE)["feedback"] == 0
    # gcc's in-order fold-left passes the running sum from register to register through adds and shuffles: the
    # register that held it is reused for a lane before the sum comes back to it
    fold = detail("""
 418:	vmovups (%rdx,%rax,1),%zmm5
 41f:	vmulps (%r14,%rax,1),%zmm5,%zmm1
 426:	add    $0x40,%rax
 42a:	vshufps $0xff,%xmm1,%xmm1,%xmm3
 436:	vaddss %xmm0,%xmm1,%xmm4
 43a:	vshufps $0x55,%xmm1,%xmm1,%xmm0
 43f:	vaddss %xmm4,%xmm0,%xmm0
 443:	vunpckhps %xmm1,%xmm1,%xmm4
 447:	vaddss %xmm4,%xmm0,%xmm0
 44b:	vaddss %xmm3,%xmm0,%xmm0
 44f:	cmp    %rax,%r10
 452:	jne    418 <dense+0x78>
""")
    assert fold["feedback"] == 0
    loop = {**LOOP_SCALAR_SUM, "accumulators": 2, "longest_chain": 1, "chain_op": "add", "scalar_fp": 5,
            "div_sqrt": 1, "feedback": 1}
    fs = diagnose(code(loop), row(of_roof=0.06, cycles_per_iteration=19.9), CTX)
    assert fs[0]["id"] == "dependency_chain" and "reduction_chain" not in ids(fs)
    assert "computed from themselves" in text(fs[0]["evidence"][0]) and "Chan" in text(fs[0]["advice"])
    plain = ids(diagnose(code({**loop, "feedback": 0}), row(of_roof=0.06), CTX))
    assert "reduction_chain" in plain and "dependency_chain" not in plain


def test_a_pair_stored_and_the_overlapping_pair_loaded_next_is_a_chain_through_memory():
    # one pass of bubble sort: the 16-byte pair (a[i], a[i+1]) swapped and stored, the next iteration loading the
    # pair one element on, which the store cannot forward in full (21.6 cycles an element measured)
    d = detail("""
 600:	vmovupd (%rsi),%xmm0
 604:	vunpckhpd %xmm0,%xmm0,%xmm1
 608:	vcomisd %xmm1,%xmm0
 60c:	jbe    618 <bubble_pass+0x28>
 60e:	vpermilpd $0x1,%xmm0,%xmm0
 614:	vmovupd %xmm0,(%rsi)
 618:	add    $0x8,%rsi
 61c:	cmp    %rsi,%rax
 61f:	jne    600 <bubble_pass+0x10>
""")
    assert d["memory_recurrences"] == 1
    # an update in place (y[i] += x[i], a vector at a time) meets no store of its own: no chain
    assert detail(GATHER)["memory_recurrences"] == 0 and detail(RECURRENCE)["memory_recurrences"] == 0


def test_an_integer_running_value_stored_at_every_element_is_a_scan():
    por = detail("""
     f90:	or     (%rsi,%rax,8),%rcx
     f94:	mov    %rcx,(%rdx,%rax,8)
     f98:	add    $0x1,%rax
     f9c:	cmp    %rax,%rdi
     f9f:	jne    f90 <prefix_or+0x10>
""")
    assert por["int_scans"] == 1 and por["accumulators"] == 0
    # an integer sum kept in a register (no store) is no scan; a CRC's register is set by two steps
    assert detail("""
     10:	add    (%rsi,%rax,4),%ecx
     16:	add    $0x1,%rax
     1a:	cmp    %rax,%rdi
     1d:	jne    10 <c+0x10>
""")["int_scans"] == 0
    assert detail(CRC)["int_scans"] == 0
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "scalar_fp": 0,
            "int_scans": 1}
    pred = {"tool": "llvm-mca", "model": "sapphirerapids", "cycles_per_iteration": 1.0, "block_rthroughput": 1.0}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.45, cycles_per_iteration=1.0), {**CTX, "cpus": 2})
    # one element a cycle is the ports' pace for scalar code: the gain is a scan in vector lanes (8 of 64 bits)
    assert fs[0]["id"] == "dependency_chain" and fs[0]["factor"] == pytest.approx(2.0)
    assert "integer running value" in text(fs[0]["evidence"][0]) and "scan in blocks" in text(fs[0]["advice"])


def test_a_gather_written_out_lane_by_lane_is_indirect_access_not_a_chase_nor_a_stride():
    # gcc's AVX-512 loop over bm[pos[i] >> 6]: indices computed in a vector, moved out a lane at a time, each
    # loaded into the register that held it
    d = detail("""
 1020:	vpsrld $0x6,(%rdi),%zmm1
 1027:	add    $0x40,%rdi
 102d:	vpmovzxdq %ymm1,%zmm0
 1033:	vmovq  %xmm0,%r9
 1038:	mov    (%rax,%r9,8),%r9
 103c:	vpextrq $0x1,%xmm0,%r11
 1042:	vpinsrq $0x1,(%rax,%r11,8),%xmm2,%xmm2
 1049:	cmp    %rdi,%r8
 104c:	jne    1020 <bitmap_hits+0x20>
""")
    assert d["pointer_chains"] == 0 and d["indexed_loads"] == 2
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512,
            "indexed_loads": 2}
    t = {"method": "cachegrind", "holding_ratio": 4.4, "holding_level": "L3", "holding_bytes": 50.7e6,
         "model_bytes": 11.4e6, "l1_ratio": 4.4}
    fs = diagnose(code(loop), row(of_roof=0.21, level="L3", traffic=t), CTX)
    assert fs[0]["id"] == "indirect" and "strided" not in ids(fs)
    # the same traffic without loads at a loaded index: lines used in part
    assert "strided" in ids(diagnose(code({**loop, "indexed_loads": 0}), row(of_roof=0.21, level="L3", traffic=t),
                                     CTX))


def test_divisions_beside_a_chain_are_tested_apart_from_it():
    # a running box filter: s += x[i + r] - x[i - r - 1]; y[i] = s / w. The in-core model gives the chain and the
    # divider 4 cycles each; -ffast-math (the chain's test) also makes the division a multiplication
    from rooflab.interpret.outline import _standing

    loop = {**LOOP_SCALAR_SUM, "div_sqrt": 1, "scalar_fp": 3}
    pred = {"tool": "llvm-mca", "model": "sapphirerapids", "cycles_per_iteration": 4.1, "block_rthroughput": 4.0,
            "cycles_without_div": 4.1}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.45, cycles_per_iteration=4.0), CTX)
    div = next(x for x in fs if x["id"] == "div_sqrt")
    assert div["experiments"] == ["reciprocal"] and "tells the two apart" in text(div["evidence"][1])
    # the reciprocal build measured 1.95x and -ffast-math 1.96x: the sum gains nothing beyond the division
    rec = {**experiment("reciprocal", "faster", 1.95), "a_time_s": 2e-4}
    fm = {**experiment("fast_math", "faster", 1.96), "a_time_s": 2e-4}
    out = weigh([{"id": "reduction_chain", "saving_s": 1.5e-4}, {"id": "div_sqrt", "saving_s": 1e-4}], [rec, fm])
    assert ids(out)[0] == "div_sqrt" and out[1]["refuted"]["beyond"] == "reciprocal"
    assert "beyond what the reciprocal build gained" in _standing(out[1], {"time_s": 2e-4})
    # vectorized, or with no chain, a division that does not pace the loop is no finding
    assert "div_sqrt" not in ids(diagnose(code({**loop, "vector_bits": 512}, prediction=pred),
                                          row(of_roof=0.45), CTX))


def test_the_bytes_of_an_integer_instruction_are_its_operand_size():
    assert [asm._x86_gpr_bytes(m, o) for m, o in [
        ("movzbl", "(%rsi),%ecx"), ("xor", "(%rdx,%rcx,4),%eax"), ("mov", "(%rdi,%rax,8),%rdx"),
        ("addq", "$0x1,(%rax)"), ("movslq", "(%rdx,%rax,4),%rax"), ("movzwl", "(%rax),%eax"),
        ("add", "%r8d,(%rdi)"), ("cmpb", "$0x0,(%rdi,%rax,1)"), ("mov", "%cl,(%rdx,%rax,1)")]] == \
        [1, 4, 8, 8, 4, 2, 4, 1, 1]


def test_cycles_per_iteration_from_the_work_of_one_iteration():
    c, iters = cycles_per_iteration(1e-3, 3e9, {"flops": 2.0, "bytes": 16.0}, 2e6, 16e6)
    assert iters == 1e6 and c == pytest.approx(3.0)
    c, iters = cycles_per_iteration(1e-3, 3e9, {"flops": 0, "bytes": 16.0}, 0, 16e6)  # a copy: by its bytes
    assert iters == 1e6 and c == pytest.approx(3.0)
    assert cycles_per_iteration(1e-3, None, {"flops": 2.0}, 2e6, 0) == (None, None)


def test_traffic_is_counted_where_it_can_tell_something_and_at_a_smaller_size_when_it_would_take_long(tmp_path):
    from rooflab.userkernel.spec import load_spec

    (tmp_path / "k.c").write_text("void s(double *x, long n) { for (long i = 0; i < n; i++) x[i] += 1; }")
    (tmp_path / "k.toml").write_text('source = "k.c"\nfunction = "s"\nflops = "n"\nbytes = "16*n"\n'
                                     'sizes = {n = [1000]}\n[args]\nx = {shape = ["n"], output = true}\nn = "n"\n')
    base = {"bound": "memory", "of_roof": 0.3, "time_s": 1e-3, "working_set_bytes": 4 << 20, "level": "L3",
            "caches": {"L1": 32 << 10, "L2": 1 << 20, "L3": 32 << 20}}
    assert traffic_tells(base)
    assert traffic_tells({**base, "bound": "compute"})  # missing reuse shows in the traffic too
    assert not traffic_tells({**base, "of_roof": 0.9})  # at its roof: nothing to explain
    assert not traffic_tells({**base, "level": "L1"})  # no traffic to count
    spec = load_spec(tmp_path / "k.toml")[0]  # one array of n doubles
    size = {"n": 1 << 19}
    assert counted_size(spec, size, base) == (size, None)
    # cachegrind would take minutes: a smaller size whose arrays stay past L2 (1.5x), so still in L3
    from rooflab.diagnosis.evidence import CACHEGRIND_SLOWDOWN, TRAFFIC_BUDGET_S

    slow = 1.6 * TRAFFIC_BUDGET_S / (2 * CACHEGRIND_SLOWDOWN)  # counting it would take 1.6x the budget
    small, why = counted_size(spec, size, {**base, "time_s": slow})
    assert small and small["n"] < size["n"] and spec.array_bytes(small) > 1.5 * (1 << 20)
    assert "still in L3" in why["text"]
    # no smaller size keeps the data in its level: not counted, and why
    none, why = counted_size(spec, {"n": 200000}, {**base, "time_s": 10.0, "working_set_bytes": 1600000})
    assert none == {} and "no smaller size" in why["text"]


def test_long_calls_are_experimented_on_at_a_smaller_size_in_the_same_level(tmp_path):
    from rooflab.diagnosis.engine import TRIAL_CALL_S, trial_size
    from rooflab.userkernel.spec import load_spec

    (tmp_path / "k.c").write_text("void mm(long n, const double *A, const double *B, double *C) { C[0] = A[0]; }")
    (tmp_path / "k.toml").write_text(
        'source = "k.c"\nfunction = "mm"\nflops = "2*n*n*n"\nbytes = "24*n*n"\nsizes = {n = [512]}\n'
        '[args]\nn = "n"\nA = {shape = ["n", "n"]}\nB = {shape = ["n", "n"]}\nC = {shape = ["n", "n"], output = true}\n')
    spec = load_spec(tmp_path / "k.toml")[0]
    caches = {"L1": 32 << 10, "L2": 1 << 20, "L3": 32 << 20}
    row = {"time_s": 2.0, "level": "L3", "caches": caches}  # 6 MiB of arrays at n = 512, 2 s a call
    small, est = trial_size(spec, {"n": 512}, row, quick=True)
    # halved (a power of two stays one) while the arrays stay past 1.25x L2: n = 256 (1.5 MiB), a call 8x shorter
    assert small == {"n": 256} and est == pytest.approx(0.25)
    assert spec.array_bytes(small) > 1.25 * caches["L2"]
    # a short call keeps its size; so does one that no smaller size keeps in its level
    assert trial_size(spec, {"n": 512}, {**row, "time_s": 2 * TRIAL_CALL_S[True]}, quick=True) is None
    assert trial_size(spec, {"n": 512}, {**row, "level": "L2", "caches": {**caches, "L1": 4 << 20}},
                      quick=True) is None
    # a size that is not a count (a float) is not halved
    assert trial_size(spec, {"n": 512.0}, row, quick=True) is None


# ------------------------------------------------------------------------------------------------ findings

def timed(t: float) -> dict:
    """A call's time with a tight interval around it."""
    return {"time_s": t, "time_ci95": [0.99 * t, 1.01 * t]}


def row(**kw) -> dict:
    r = {"time_s": 1e-3, "time_ci95": [0.99e-3, 1.01e-3], "flops": 2e6, "bytes": 16e6, "flops_per_s": 2e9,
         "of_roof": 0.2, "roof_flops_per_s": 1e10, "bound": "memory", "level": "L2", "working_set_bytes": 16e6,
         "caches": {"L1": 48 << 10, "L2": 1 << 20, "L3": 32 << 20}, "cpus_busy": 1.0}
    r.update(kw)
    return r


LOOP_SCALAR_SUM = {"vector_bits": 0, "scalar_fp": 2, "vector_fp": 0, "accumulators": 1, "longest_chain": 1,
                   "chain_op": "add", "flops": 2, "bytes": 16, "element_bits": 64, "calls": []}
CTX = {"cpus": 1, "threads": 1, "isa_vector_bits": 512, "profile": "native", "openmp": False,
       "roofs": {"compute": [], "memory": [{"level": "L1", "value": 2e11}, {"level": "L2", "value": 1e11},
                                           {"level": "L3", "value": 8e10}, {"level": "DRAM", "value": 2e10}]}}


def code(loop=None, **kw) -> dict:
    c = {"loop": loop, "audit": {"loads": 2, "stores": 0}, "isa_vector_bits": 512, "remarks": [], "causes": [],
         "pragmas": {"omp": False}, "build": {"flags": ["-O3", "-march=native"]}, "prediction": None}
    c.update(kw)
    return c


def ids(findings) -> list[str]:
    return [f["id"] for f in findings]


def test_a_kernel_at_its_roof_gets_that_finding_alone_and_no_advice():
    fs = diagnose(code(LOOP_SCALAR_SUM), row(of_roof=0.93), CTX)
    assert ids(fs) == ["at_roof"] and fs[0]["advice"] is None and fs[0]["saving_s"] == 0
    assert "nothing left to gain" in text(fs[0]["hypothesis"]) and "93%" in text(fs[0]["hypothesis"])
    # the fast end of a noisy interval counts: 0.75 measured, 0.86 at the interval's fast end
    assert ids(diagnose(code(LOOP_SCALAR_SUM), row(of_roof=0.75, time_ci95=[0.87e-3, 1.1e-3]), CTX)) == ["at_roof"]
    assert AT_ROOF == 0.8


def test_a_compute_bound_kernel_as_fast_as_blas_is_at_its_roof():
    ctx = {**CTX, "roofs": {**CTX["roofs"], "compute": [{"klass": "blas_gemm", "value": 2.0e9}]}}
    fs = diagnose(code(None), row(bound="compute", of_roof=0.5), ctx)
    assert ids(fs) == ["at_roof"] and "best real code" in text(fs[0]["hypothesis"])
    assert "BLAS GEMM reaches 2 GFLOP/s" in text(fs[0]["evidence"][-1])


def test_an_in_order_reduction_is_found_from_its_chain_with_the_fast_math_experiment():
    fs = diagnose(code(LOOP_SCALAR_SUM, causes=["reduction"]), row(), CTX)
    assert fs[0]["id"] == "reduction_chain" and fs[0]["experiments"] == ["fast_math"]
    assert 0 < fs[0]["saving_s"] <= 1e-3 * (1 - 0.2)  # never more than the distance to the roof allows
    assert "narrow_vectors" not in ids(fs)  # the reduction is why it is scalar: one finding, not two


def test_a_recurrence_is_a_dependency_chain_and_unrolling_is_its_control():
    loop = {**LOOP_SCALAR_SUM, "chain_op": "fma", "scalar_fp": 1}
    fs = diagnose(code(loop), row(bytes=24e6), CTX)
    assert "dependency_chain" in ids(fs) and "reduction_chain" not in ids(fs)
    assert next(f for f in fs if f["id"] == "dependency_chain")["experiments"] == ["unroll"]


def test_a_predicted_dependency_bound_adds_the_analyzers_numbers():
    pred = {"cycles_per_iteration": 8.0, "block_rthroughput": 1.0, "bound": "dependencies", "dependency_share": 0.8,
            "tool": "llvm-mca 14.0.6", "model": "znver3"}
    loop = {**LOOP_SCALAR_SUM, "chain_op": "fma", "scalar_fp": 1}
    f = next(f for f in diagnose(code(loop, prediction=pred), row(), CTX) if f["id"] == "dependency_chain")
    said = " ".join(text(e) for e in f["evidence"])
    assert "predicts 8.0 cycles per iteration" in said and "80%" in said and f["factor"] == 8.0
    # a vectorized loop with no accumulator carries nothing: the latency counted is within an iteration
    hashed = {**LOOP_SCALAR_SUM, "vector_bits": 512, "accumulators": 0, "longest_chain": 0, "chain_op": ""}
    assert "dependency_chain" not in ids(diagnose(code(hashed, prediction=pred), row(), CTX))
    assert "dependency_chain" in ids(diagnose(code({**hashed, "vector_bits": 0}, prediction=pred), row(), CTX))


def test_one_thread_of_several_cpus_with_a_pragma_built_without_openmp():
    ctx = {**CTX, "cpus": 4}
    r = row(of_roof=0.9, bound="compute", all_threads={"threads": 4, "of_roof": 0.25, "roof_flops_per_s": 8e9,
                                                     "level": "L2"})
    fs = diagnose(code({**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "vector_bits": 512},
                       pragmas={"omp": True}), r, ctx)
    assert fs[0]["id"] == "single_thread" and fs[0]["experiments"] == ["openmp"]
    assert fs[0]["saving_s"] == pytest.approx(1e-3 * 0.75)  # to the roof of four CPUs
    # a call too short to gain from a thread team gets no such advice
    short = row(time_s=MIN_PARALLEL_S / 2, time_ci95=None, of_roof=0.9, bound="compute", all_threads=r["all_threads"])
    assert "single_thread" not in ids(diagnose(code({**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0,
                                                     "vector_bits": 512}), short, ctx))


def test_one_thread_at_its_own_roof_is_told_to_use_the_other_cpus_and_nothing_about_its_loop():
    # a row scan at 99% of its one-thread L3 roof, a chain in its loop, another CPU idle
    ctx = {**CTX, "cpus": 2}
    every = {"threads": 2, "of_roof": 0.5, "roof_flops_per_s": 4e9, "level": "L3"}
    pred = {"tool": "llvm-mca 19", "model": "znver4", "cycles_per_iteration": 4.0, "block_rthroughput": 1.0,
            "bound": "dependencies", "dependency_share": 0.9}
    r = row(of_roof=0.99, level="L3", all_threads=every, cycles_per_iteration=4.2)
    assert ids(diagnose(code(LOOP_SCALAR_SUM, prediction=pred), r, ctx)) == ["single_thread"]
    # below its own roof, the chain is told as well
    slow = row(of_roof=0.4, level="L3", all_threads={**every, "of_roof": 0.2}, cycles_per_iteration=4.2)
    assert "reduction_chain" in ids(diagnose(code(LOOP_SCALAR_SUM, prediction=pred), slow, ctx))


def test_samples_in_the_scalar_copy_of_a_vectorized_loop_are_short_trips_not_narrow_vectors():
    """fannkuch's flip of two to four elements: gcc vectorized the loop (versioned for its in-place overlap), and
    the samples fall in the scalar copy: the vector loop is seldom entered. Short trip counts, not narrow vectors
    (whose advice, a form the compiler vectorizes, it already has); an overlap of two arrays keeps aliasing's."""
    loop = {"vector_bits": 0, "scalar_fp": 0, "vector_fp": 0, "int_ops": 4, "accumulators": 0, "longest_chain": 0,
            "flops": 0, "bytes": 16, "element_bits": 32, "calls": [], "branches": 0}
    hot = {"by": "samples", "samples": 2200, "moved": True, "in_inner_loops": 0.52}
    vec = [{"line": 36, "kind": "vectorized", "text": "loop vectorized using 64 byte vectors"},
           {"line": 36, "kind": "vectorized", "text": "loop versioned for vectorization because of possible aliasing"}]
    r = row(of_roof=0.05, level="L1", bound="memory")
    fs = diagnose(code(loop, hot_loop=hot, remarks=vec, loop_lines=[36, 37]), r, CTX)
    assert fs[0]["id"] == "short_trips" and "narrow_vectors" not in ids(fs), ids(fs)
    assert "scalar copy" in text(fs[0]["evidence"][0])
    # the loop's lines unknown: the remarks are the function's, maybe another loop's
    assert "short_trips" not in ids(diagnose(code(loop, hot_loop=hot, remarks=vec), r, CTX))
    # no vectorized remark: the lanes are unused for want of a form the compiler vectorizes
    plain = diagnose(code(loop, hot_loop=hot, remarks=[], loop_lines=[36, 37]), r, CTX)
    assert "short_trips" not in ids(plain) and "narrow_vectors" in ids(plain)


def test_a_sum_kept_in_order_in_a_scalar_loop_can_reach_half_its_unused_lanes():
    """A float sum the compiler keeps in order keeps the loop from using the core's lanes (narrow vectors defer to
    the chain): where the chain's own bound is small (the loop also at its ports' bound), reassociating it still
    reaches half the lanes, so it outranks two CPUs' 2x; not where the loop gathers (the gather's lanes wait)."""
    loop = {**LOOP_SCALAR_SUM, "element_bits": 32, "vector_bits": 128, "vector_fp": 1, "scalar_fp": 1,
            "accumulators": 2}
    pred = {"tool": "llvm-mca 19", "model": "znver4", "cycles_per_iteration": 3.4, "block_rthroughput": 3.3,
            "bound": "resources", "dependency_share": 0.3}
    ctx = {**CTX, "cpus": 2}
    every = {"threads": 2, "of_roof": 0.06, "roof_flops_per_s": 4e10, "level": "L2"}
    r = row(of_roof=0.12, level="L2", all_threads=every, cycles_per_iteration=5.0)
    fs = diagnose(code(loop, prediction=pred), r, ctx)
    chain = next(f for f in fs if f["id"] == "reduction_chain")
    assert chain["factor"] == pytest.approx(2.0) and fs[0]["id"] == "reduction_chain", ids(fs)
    gathered = diagnose(code({**loop, "gathers": 1, "indexed_loads": 1}, prediction=pred), r, ctx)
    chain = next(f for f in gathered if f["id"] == "reduction_chain")
    assert chain["factor"] < 1.1


def test_threads_gain_no_more_bandwidth_than_a_memory_bound_kernel_really_moves():
    ctx = {**CTX, "cpus": 2}
    every = {"threads": 2, "of_roof": 0.44, "roof_flops_per_s": 8e9, "level": "DRAM"}
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "vector_bits": 512}
    plain = diagnose(code(loop), row(of_roof=0.57, level="DRAM", all_threads=every), ctx)
    assert plain[0]["id"] == "single_thread" and plain[0]["factor"] == pytest.approx(2.0)  # the CPUs it left idle
    # it moves 1.8x its byte model: 0.44 x 1.8 of the bandwidth of both CPUs is used already
    moved = diagnose(code(loop), row(of_roof=0.57, level="DRAM", all_threads=every, traffic={
        "method": "cachegrind", "holding_ratio": 1.8, "holding_level": "DRAM", "model_bytes": 16e6}), ctx)
    one = next(x for x in moved if x["id"] == "single_thread")
    assert one["factor"] == pytest.approx(1 / (0.44 * 1.8))
    assert "it already uses 79% of the bandwidth of all 2 CPUs" in text(one["evidence"][-1])


def test_aliasing_from_the_compilers_words_with_the_restrict_experiment():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": ""}
    remarks = [{"line": 3, "kind": "missed", "text": "number of versioning for alias run-time tests exceeds 10"}]
    fs = diagnose(code(loop, causes=["aliasing"], remarks=remarks), row(), CTX)
    assert fs[0]["id"] == "aliasing" and fs[0]["experiments"] == ["restrict"]
    assert any("line 3" in text(e) for e in fs[0]["evidence"])


def test_a_loop_bound_read_through_a_pointer_the_loop_stores_near_is_aliasing():
    # Fortran-style arguments: the length and the scalar passed by address
    assert loaded_bounds("{ for (long i = 0; i < *n; i++) y[i] += *a * x[i]; }") == [{"var": "i", "bound": "*n"}]
    assert loaded_bounds("{ for (int i = 0; i < s->len; i++) { s->data[i] = 0; } }")[0]["bound"] == "s->len"
    assert loaded_bounds("{ for (int i = 0; i < dims[0]; i++) out[i] = 1; }")[0]["bound"] == "dims[0]"
    # a product is no load; a loop that stores nothing leaves its bound alone
    assert loaded_bounds("{ for (long i = 0; i < 2 * n; i++) y[i] += a * x[i]; }") == []
    assert loaded_bounds("{ for (int i = 0; i < *n; i++) s += x[i]; }") == []
    uncounted = [Remark(9, "missed", "not vectorized: number of iterations cannot be computed.")]
    loaded = [{"var": "i", "bound": "*n"}]
    assert loop_causes(uncounted, loaded) == ["aliasing"]
    assert loop_causes(uncounted, []) == []  # a while loop's unknown count is not aliasing
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": ""}
    fs = diagnose(code(loop, causes=["aliasing"], remarks=[r.to_dict() for r in uncounted],
                       pragmas={"omp": False, "loaded_bounds": loaded}), row(), CTX)
    assert fs[0]["id"] == "aliasing" and fs[0]["experiments"] == ["restrict"]
    assert any("*n" in text(e) for e in fs[0]["evidence"]) and "local variable" in text(fs[0]["advice"])


def test_a_running_maximum_of_a_scalar_loop_is_an_in_order_reduction_tested_by_fast_math():
    assert select_reductions("{ for (long i = 1; i < n; i++) if (x[i] > m) m = x[i]; }") == [{"var": "m", "op": "max"}]
    assert select_reductions("{ for (i = 0; i < n; i++) { if (m > x[i]) { m = x[i]; k = i; } } }")[0]["op"] == "min"
    assert select_reductions("{ for (i = 0; i < n; i++) m = fmaxf(m, fabsf(x[i])); }")[0]["op"] == "max"
    # a running maximum stored at each element is a scan; a clamp or a count is no reduction
    assert select_reductions("{ for (i = 0; i < n; i++) { m = x[i] > m ? x[i] : m; y[i] = m; } }") == []
    assert select_reductions("{ for (i = 0; i < n; i++) y[i] = x[i] > t ? x[i] : 0.0; }") == []
    assert select_reductions("{ for (i = 0; i < n; i++) if (x[i] > 0) c++; }") == []
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "scalar_fp": 0, "branches": 1}
    pragmas = {"omp": False, "select_reductions": [{"var": "m", "op": "max"}]}
    fs = diagnose(code(loop, pragmas=pragmas), row(of_roof=0.12, cycles_per_iteration=2.0), CTX)
    assert fs[0]["id"] == "reduction_chain" and fs[0]["experiments"] == ["fast_math"]
    assert "maximum" in text(fs[0]["evidence"][0]) and "reduction(max:m)" in text(fs[0]["advice"])
    assert "control_flow" not in ids(fs) and "narrow_vectors" not in ids(fs)
    # vectorized, it is no finding
    assert "reduction_chain" not in ids(diagnose(code({**loop, "vector_bits": 512}, pragmas=pragmas), row(), CTX))


def test_a_maximum_kept_with_its_position_is_control_flow_no_flag_vectorizes():
    # an argmax: the branch sets the maximum and where it is; a loop without braces governs the whole if
    src = "{ for (long i = 1; i < n; i++)\n if (x[i] > best) {\n best = x[i];\n k = i;\n }\n at[0] = k; }"
    assert select_reductions(src) == [{"var": "best", "op": "max", "with": "k"}]
    assert select_reductions("{ for (i = 0; i < n; i++) { if (m > x[i]) { m = x[i]; k = i; } } }")[0]["with"] == "k"
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "scalar_fp": 0, "branches": 1}
    pragmas = {"omp": False, "select_reductions": [{"var": "best", "op": "max", "with": "k"}]}
    fs = diagnose(code(loop, pragmas=pragmas), row(of_roof=0.12, cycles_per_iteration=2.0), CTX)
    assert fs[0]["id"] == "control_flow" and "reduction_chain" not in ids(fs)
    assert "sets k with it" in text(fs[0]["evidence"][0]) and "second pass" in text(fs[0]["advice"])
    assert "reduction(max:best)" in text(fs[0]["advice"]) and "第二遍" in text(fs[0]["advice"], "zh")


def test_a_compaction_is_control_flow_with_or_without_a_branch():
    # elements that pass a test packed to the front: the place of each depends on every test before it
    assert packed_stores("{ long k = 0; for (long i = 0; i < n; i++) if (x[i] > t) out[k++] = x[i]; return k; }") == \
        [{"index": "k", "array": "out"}]
    assert packed_stores("{ for (i = 0; i < n; i++) { out[k] = x[i]; k += x[i] > t; } }")[0]["index"] == "k"
    assert packed_stores("{ for (i = 0; i < n; i++) { if (ok[i]) { q[m] = i; m++; } } }") == \
        [{"index": "m", "array": "q"}]
    assert packed_stores("{ for (i = 0; i < n; i++) { if (x[i] > 0) c++; else out[c] = x[i]; } }")[0]["index"] == "c"
    # advanced at every iteration it is a second induction variable; an element's own index is no packing
    assert packed_stores("{ for (i = 0; i < n; i++) { out[k] = x[i]; k += 2; } }") == []
    assert packed_stores("{ for (i = 0; i < n; i++) out[k++] = x[i]; }") == []
    assert packed_stores("{ for (i = 0; i < n; i++) if (x[i] > t) y[i] = x[i]; }") == []
    # gcc if-converts `if (x[i] > t) out[k++] = x[i]` into a branch-free loop (a predictable test): no branch is
    # left, and still the loop is scalar for its packing
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "scalar_fp": 0, "branches": 0}
    remarks = [{"line": 7, "kind": "missed", "text": "not vectorized: unsupported use in stmt."}]
    pragmas = {"omp": False, "packed_stores": [{"index": "k", "array": "out"}]}
    fs = diagnose(code(loop, pragmas=pragmas, remarks=remarks), row(of_roof=0.12, cycles_per_iteration=2.0), CTX)
    assert fs[0]["id"] == "control_flow" and "out[k]" in text(fs[0]["evidence"][0])
    assert "unsupported use in stmt" in text(fs[0]["evidence"][1]) and "compress" in text(fs[0]["advice"])
    assert "out[k] = v; k += (test);" in text(fs[0]["advice"], "zh")
    assert "control_flow" not in ids(diagnose(code(loop, pragmas={"omp": False}), row(of_roof=0.12), CTX))
    # vectorized (a compiler that packs with a compress store), it is no finding
    fs = diagnose(code({**loop, "vector_bits": 512}, pragmas=pragmas), row(of_roof=0.12), CTX)
    assert "control_flow" not in ids(fs)


def test_a_libm_call_kept_for_errno_outside_a_full_width_loop_is_no_finding():
    # double norm(x) { s += x[i]*x[i] ...; return sqrt(s); }: gcc's remark about the sqrt after the loop
    remarks = [{"line": 9, "kind": "missed", "text": "statement clobbers memory: _5 = sqrt (s_3);"}]
    loop = {**LOOP_SCALAR_SUM, "vector_bits": 512, "calls": []}
    assert "calls" not in ids(diagnose(code(loop, remarks=remarks), row(of_roof=0.1), CTX))
    scalar = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "calls": []}
    assert ids(diagnose(code(scalar, remarks=remarks), row(of_roof=0.1), CTX))[0] == "calls"


def test_fmin_and_fmax_calls_are_tested_by_fast_math():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "calls": ["fmax", "fmin"]}
    (f, *_) = diagnose(code(loop), row(of_roof=0.05), CTX)
    assert f["id"] == "calls" and f["experiments"] == ["fast_math"] and f["test"] == "fast_math"
    assert "-ffinite-math-only" in text(f["advice"]) and "fmax, fmin" in text(f["evidence"][0])


def test_rounding_calls_are_tested_by_the_flag_that_lets_gcc_round_inline():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "calls": ["roundf"]}
    (f, *_) = diagnose(code(loop), row(of_roof=0.02), CTX)
    # quantising floats with roundf: its -fno-trapping-math build vectorized the loop, 20x
    assert f["id"] == "calls" and f["experiments"] == ["no_trapping_math"] and f["test"] == "no_trapping_math"
    assert "roundf" in text(f["evidence"][0]) and "-fno-trapping-math" in text(f["advice"])
    (f, *_) = diagnose(code({**loop, "calls": ["lrint"]}), row(of_roof=0.02), CTX)
    assert f["test"] == "no_math_errno"
    (f, *_) = diagnose(code({**loop, "calls": ["lround"]}), row(of_roof=0.02), CTX)
    assert f["test"] == "fast_math"


def test_every_function_of_the_vector_math_library_is_tested_by_its_build():
    # tanhf (a GELU) has a libmvec version since glibc 2.35: its vector math build ran 50x
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "calls": ["tanhf"],
            "element_bits": 32}
    (f, *_) = diagnose(code(loop), row(of_roof=0.01), CTX)
    assert f["id"] == "calls" and f["test"] == "vector_math" and "16 elements per call" in text(f["advice"])
    for name in ("expm1", "log1p", "atan2f", "sinh", "erfc"):
        (f, *_) = diagnose(code({**loop, "calls": [name]}), row(of_roof=0.01), CTX)
        assert f["test"] == "vector_math", name


def test_a_scalar_build_and_narrow_vectors_are_told_apart_by_the_flags():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": ""}
    fs = diagnose(code(loop, build={"flags": ["-O2", "-fno-tree-vectorize"]}), row(), CTX)
    assert fs[0]["id"] == "scalar_build" and fs[0]["experiments"] == ["vectorize"]
    fs = diagnose(code({**loop, "vector_bits": 256}, build={"flags": ["-O3", "-march=x86-64-v3"]}),
                  row(), {**CTX, "profile": "portable"})
    assert fs[0]["id"] == "narrow_vectors" and fs[0]["experiments"] == ["native"]


def test_strided_access_from_the_counted_traffic():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    r = row(traffic={"method": "cachegrind", "l1_ratio": 8.1, "l1_bytes": 8.1 * 16e6, "model_bytes": 16e6})
    fs = diagnose(code(loop), r, CTX)  # the working set in L2: what L1 fetched is the traffic out of L2
    assert fs[0]["id"] == "strided" and "8.1x the bytes the model counts" in text(fs[0]["evidence"][0])


def test_extra_l1_traffic_from_data_reused_out_of_l2_is_not_strided():
    # a stencil's rows or a vector re-read from L2 for every row: 3x the model into L1, 1.0x out of L3 where the
    # working set lives: reuse from a faster level, not stride, even with gcc's "complicated access pattern"
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 0}
    t = {"method": "cachegrind", "l1_ratio": 3.0, "l1_bytes": 48e6, "model_bytes": 16e6, "holding_level": "L3",
         "holding_ratio": 1.0, "holding_bytes": 16e6}
    c = code(loop, causes=["stride"], remarks=[{"line": 3, "kind": "missed", "text": "complicated access pattern"}])
    fs = diagnose(c, row(level="L3", traffic=t), CTX)
    assert "strided" not in ids(fs)
    # the same traffic out of L3 itself: strided, with the level named
    fs = diagnose(c, row(level="L3", traffic={**t, "holding_ratio": 3.0, "holding_bytes": 48e6}), CTX)
    assert fs[0]["id"] == "strided" and "out of L3" in text(fs[0]["evidence"][0])


def test_operands_fetched_again_by_a_compute_bound_kernel_are_missing_reuse_with_tiles_and_the_blocked_test():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    t = {"method": "cachegrind", "l1_ratio": 200.0, "l1_bytes": 2e9, "model_bytes": 1e7, "holding_level": "L3",
         "holding_ratio": 200.0, "holding_bytes": 2e9, "flops": 5e8,
         "reduced": {"id": "counted at n=600", "args": {}, "text": "counted at n=600"}}
    live = {"kind": "blas_gemm", "ratio": 0.25, "ci95": [0.24, 0.26], "rounds": 10, "n": 960, "threads": 1,
            "reference_flops_per_s": 4e10}
    # 5e8 FLOPs in 50 ms: L1's 2e9 bytes at L3's roof take 25 ms of them (they may pace the loop)
    r = row(bound="compute", level="L3", of_roof=0.2, traffic=t, reference=live, flops=5e8, **timed(0.05))
    fs = diagnose(code(loop), r, {**CTX, "gemm_like": True, "precision": "fp64"})
    top = fs[0]
    assert top["id"] == "reuse" and top["experiments"] == ["blocked"] and top["factor"] == pytest.approx(4.0)
    words = " ".join(text(e) for e in top["evidence"])
    assert "200.0x" in words and "counted at n=600" in words and "b ≈ 144 for L2" in words
    assert "4 out of L3" in words  # bytes per FLOP out of the level holding the data: 2e9 / 5e8
    # not GEMM-like: the same finding without an experiment; as fast as BLAS (0.7x): no such finding
    assert diagnose(code(loop), r, CTX)[0]["experiments"] == []
    assert "reuse" not in ids(diagnose(code(loop), row(bound="compute", level="L3", of_roof=0.2, traffic=t,
                                                       reference={**live, "ratio": 0.7, "ci95": [0.69, 0.71]}), CTX))


def test_l1_traffic_beyond_any_stride_with_the_last_level_holding_everything_is_missing_reuse():
    """A product in k-i-j order past L2 on a core whose 300 MiB last level holds the whole working set: the last
    level delivered each byte once, L1 brought in 136x the model. No stride brings in more than a line per element
    used (8x for doubles): the same lines came again from L2, operands not reused (blocking), not stride."""
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    t = {"method": "cachegrind", "l1_ratio": 136.3, "l1_bytes": 1.2e9, "model_bytes": 8.64e6, "holding_level": "L3",
         "holding_ratio": 1.0, "holding_bytes": 8.64e6, "flops": 4.3e8}
    live = {"kind": "blas_gemm", "ratio": 0.1, "ci95": [0.09, 0.11], "rounds": 10, "n": 576, "threads": 1,
            "reference_flops_per_s": 5e10}
    c = code(loop, causes=["stride"], remarks=[{"line": 9, "kind": "missed", "text": "complicated access pattern"}])
    # 4.3e8 FLOPs in 20 ms: L1's 1.2e9 bytes at L3's roof take 15 ms of them
    fs = diagnose(c, row(bound="compute", level="L3", of_roof=0.06, traffic=t, reference=live, flops=4.3e8,
                         **timed(0.02)), {**CTX, "gemm_like": True, "precision": "fp64"})
    assert fs[0]["id"] == "reuse" and "strided" not in ids(fs) and fs[0]["factor"] == pytest.approx(10.0)
    # within what a stride can bring in (8.1x): strided, as before
    fs = diagnose(c, row(bound="compute", level="L3", of_roof=0.06, reference=live, flops=4.3e8, **timed(2e-3),
                         traffic={**t, "l1_ratio": 8.1, "l1_bytes": 7e7}), {**CTX, "precision": "fp64"})
    assert "reuse" not in ids(fs) and "strided" in ids(fs)


def test_spills_are_a_finding_where_they_are_a_material_share_of_the_loops_memory_work():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512, "spills": 4}
    c = code(loop)
    c["audit"] = {"loads": 12, "stores": 4}
    (f,) = [x for x in diagnose(c, row(of_roof=0.3, bound="compute"), CTX) if x["id"] == "spills"]
    assert f["factor"] == pytest.approx(1.25) and "4 value(s)" in text(f["evidence"][0])
    # one value reloaded beside 40 loads and stores: nothing to measure, no advice
    c["audit"] = {"loads": 30, "stores": 10}
    assert "spills" not in ids(diagnose(code({**loop, "spills": 1}, audit=c["audit"]), row(of_roof=0.3), CTX))
    # one among 19 loads and stores, in an iteration measured at 36 cycles: under 3% of its time, no advice
    few = {"loads": 15, "stores": 4}
    assert "spills" not in ids(diagnose(code({**loop, "spills": 1}, audit=few),
                                        row(of_roof=0.3, cycles_per_iteration=36.0), CTX))
    assert "spills" in ids(diagnose(code({**loop, "spills": 1}, audit=few),
                                    row(of_roof=0.3, cycles_per_iteration=8.0), CTX))


def test_results_stored_and_loaded_again_at_every_step_of_the_outer_loop_are_missing_register_reuse():
    """TSVC's s176, a convolution: a[i] += b[i + m - j - 1] * c[j], j outside i. Its vector loop loads a and b and
    stores a for each FMA, 6 bytes a FLOP, where its model needs 0.0006; cachegrind could not finish at its size."""
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512,
            "vector_fp": 1, "scalar_fp": 0, "fma": 1, "flops": 32.0, "bytes": 192.0, "element_bits": 32}
    live = {"kind": "blas_gemm", "ratio": 0.27, "ci95": [0.27, 0.28], "rounds": 10, "n": 512, "threads": 1,
            "reference_flops_per_s": 1e11}
    skipped = {"skipped": {"id": "not counted: cachegrind did not finish", "args": {}, "text": "not counted"}}
    r = row(bound="compute", level="L2", of_roof=0.24, reference=live, intensity=1600.0, traffic=skipped,
            flops=5.1e8, **timed(0.02))
    c = code(loop, audit={"loads": 2, "stores": 1, "vector_bits": 512, "fma": 1})
    fs = diagnose(c, r, {**CTX, "precision": "fp32"})
    assert fs[0]["id"] == "reuse" and fs[0]["factor"] == pytest.approx(1 / 0.27)
    words = " ".join(text(e) for e in fs[0]["evidence"])
    assert "6 bytes per FLOP" in words and "2 load(s) and 1 store(s)" in words
    assert "unroll the outer loop" in text(fs[0]["advice"])
    # a loop that stores nothing keeps its sums in registers; a kernel its model calls memory-bound is not this
    assert "reuse" not in ids(diagnose(code(loop, audit={"loads": 2, "stores": 0}), r, CTX))
    assert "reuse" not in ids(diagnose(c, {**r, "intensity": 0.1}, CTX))
    # as fast as BLAS: nothing to reuse
    assert "reuse" not in ids(diagnose(c, {**r, "reference": {**live, "ratio": 0.8, "ci95": [0.79, 0.81]}}, CTX))
    # a scalar loop in 128-bit registers (no packed arithmetic), or one calling log an element (NPB's EP: what it
    # stores and reloads around the call is the call's; the callee's arithmetic is not counted): not this
    scalar = {**loop, "vector_bits": 128, "vector_fp": 0, "scalar_fp": 14}
    assert "reuse" not in ids(diagnose(code(scalar, audit={"loads": 11, "stores": 6}), r, CTX))
    calling = {**loop, "calls": ["log"]}
    assert "reuse" not in ids(diagnose(code(calling, audit={"loads": 11, "stores": 6}), r, CTX))


def test_lines_fetched_again_in_a_sliver_of_the_time_are_neither_missing_reuse_nor_stride():
    """An n-body loop: its arrays are a little larger than L1 and come back from L2 38 times a call, but moving
    those bytes at L2's roof takes a sliver of the call; it divides and takes square roots the rest of it."""
    loop = {**LOOP_SCALAR_SUM, "accumulators": 3, "calls": [], "side_calls": ["sqrt"]}
    t = {"method": "cachegrind", "l1_ratio": 38.2, "l1_bytes": 3.2e6, "model_bytes": 8.4e4, "holding_level": "L2",
         "holding_ratio": 38.2, "holding_bytes": 3.2e6, "flops": 4.5e7}
    live = {"kind": "blas_gemm", "ratio": 0.1, "ci95": [0.09, 0.11], "rounds": 10, "n": 512, "threads": 1,
            "reference_flops_per_s": 4e10}
    r = row(bound="compute", level="L2", of_roof=0.05, traffic=t, reference=live, flops=4.5e7, **timed(0.01))
    from rooflab.diagnosis.rules import reuse
    from rooflab.diagnosis.rules.facts import Facts

    f = Facts(code(loop), r, CTX)
    assert reuse.traffic_share(f) == pytest.approx(3.2e6 / 1e11 / 0.01)
    assert not {"reuse", "strided"} & set(ids(diagnose(code(loop), r, {**CTX, "gemm_like": True})))
    # the same lines in a call 100 times shorter would take a third of it: they may pace it
    fast = row(bound="compute", level="L2", of_roof=0.05, traffic=t, reference=live, flops=4.5e7, **timed(1e-4))
    assert reuse.traffic_share(Facts(code(loop), fast, CTX)) == pytest.approx(0.32)
    assert "reuse" in ids(diagnose(code(loop), fast, {**CTX, "gemm_like": True}))


def test_scattered_indices_are_probed_by_sorting_them_which_confirms_but_never_refutes():
    from rooflab.diagnosis.experiments import index_arrays, variant
    from rooflab.interpret.outline import _standing
    from rooflab.userkernel.spec import ArrayArg

    # x[col[k]] read one element at a time: probed with the index array's values sorted (same values, valid)
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "indexed_loads": 1}
    f = next(x for x in diagnose(code(loop), row(of_roof=0.2), CTX) if x["id"] == "indirect")
    assert f["experiments"] == ["sorted"] and f["test"] == "sorted"
    # a vector gather's own cost is no matter of order: no probe
    f = next(x for x in diagnose(code({**loop, "gathers": 1}), row(of_roof=0.2), CTX) if x["id"] == "indirect")
    assert f["experiments"] == [] and not f.get("test")
    # sorted CSR columns: 5.29x (a SpMV from L3); a byte table in L1: no difference, the finding kept as it was
    (f,) = weigh([{"id": "indirect", "saving_s": 0.1, "test": "sorted"}],
                 [{**experiment("sorted", "faster", 5.29), "a_time_s": 0.2}])
    assert f["confirmed"]["experiment"] == "sorted" and f["saving_s"] == pytest.approx(0.2 * (1 - 1 / 5.29))
    (f,) = weigh([{"id": "indirect", "saving_s": 0.1, "test": "sorted"}],
                 [{**experiment("sorted", "no difference", 1.0), "speedup_ci95": [0.99, 1.01]}])
    assert f["inconclusive"]["probe"] and not f.get("refuted") and f["saving_s"] == 0.1
    assert "order of the indices" in _standing(f, {"time_s": 0.2})
    # the variant: the integer inputs sorted, their check dropped (the results differ); none without such an array
    spec = _spec_with({"col": ArrayArg(("n",), "int32"), "x": ArrayArg(("n",), "float64"),
                       "y": ArrayArg(("n",), "float64", output=True), "out": ArrayArg(("n",), "int64", output=True)})
    assert index_arrays(spec) == ["col"]
    vspec, _, what = variant("sorted", spec, {"n": 8}, {})
    assert vspec.args["col"].ordered and not vspec.args["x"].ordered and vspec.check == {}
    assert "(col)" in text(what)
    assert variant("sorted", _spec_with({"x": ArrayArg(("n",), "float64")}), {"n": 8}, {}) is None
    a = ArraySpec((3, 4), "int32", "random", seed=5, ordered=True).make()
    b = ArraySpec((3, 4), "int32", "random", seed=5).make()
    assert (a.ravel() == np.sort(b, axis=None)).all()


def _spec_with(args: dict):
    from pathlib import Path

    from rooflab.userkernel.proto import parse_prototype
    from rooflab.userkernel.spec import KernelSpec

    proto = parse_prototype("void k(long n, " + ", ".join(f"double *{k}" for k in args) + ")", "t")
    return KernelSpec(name="k", source=Path("k.c"), function="k", prototype=proto, flops="n", bytes="8*n",
                      sizes=[{"n": 8}], args={"n": "n", **args}, check={"y": "x"})


def test_the_loops_reordered_are_the_strided_findings_fix_unless_they_leave_a_sum_in_one_element():
    walk = [{"array": "C", "index": "[i * n + j]", "var": "i", "stride": "n"}]
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 0}
    fs = diagnose(code(loop, pragmas={"column_walks": walk}), row(level="L3", of_roof=0.02), CTX)
    f = next(x for x in fs if x["id"] == "strided")
    assert f["experiments"] == ["interchange"]
    fast = {**experiment("interchange", "faster", 9.0), "a_time_s": 0.2}
    out = weigh([{"id": "aliasing", "saving_s": 0.1}, {"id": "strided", "saving_s": 0.05}], [fast])
    # the fix measured: its gain is the saving (0.2 s x (1 - 1/9)), ahead of a larger estimate
    assert ids(out) == ["strided", "aliasing"] and out[0]["saving_s"] == pytest.approx(0.2 * 8 / 9)
    # a reordering whose new innermost loop sums into one element only approaches the fix: a larger estimate stands
    part = {**experiment("interchange", "faster", 1.3), "a_time_s": 0.2, "approaches": True}
    (f,) = weigh([{"id": "strided", "saving_s": 0.15}], [part])
    assert f["confirmed"]["bound"] and f["saving_s"] == 0.15
    (f,) = weigh([{"id": "strided", "saving_s": 0.15}], [{**part, "approaches": False}])
    assert f["saving_s"] == pytest.approx(0.2 * (1 - 1 / 1.3))


def test_a_column_walk_whose_traffic_shows_the_lines_used_in_part_is_strided_not_narrow_vectors():
    # TSVC's s141: flat[k] += bb[j][i] in a loop over j, scalar (gcc names the control flow of the outer loop),
    # 3.2 cycles an iteration against 2.1 predicted (not waiting), L2's traffic 5.9x the model
    walk = [{"array": "bb", "index": "[j][i]", "var": "j", "stride": "", "sum": True}]
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 0}
    t = {"method": "cachegrind", "holding_ratio": 5.9, "holding_level": "L2", "holding_bytes": 2.3e6,
         "model_bytes": 0.39e6, "l1_ratio": 5.9}
    pred = {"cycles_per_iteration": 2.1, "block_rthroughput": 2.1, "bound": "ports", "tool": "llvm-mca"}
    c = code(loop, causes=["control_flow"], pragmas={"column_walks": walk}, prediction=pred)
    fs = diagnose(c, row(of_roof=0.12, level="L2", traffic=t, cycles_per_iteration=3.2), CTX)
    assert fs[0]["id"] == "strided" and "narrow_vectors" not in ids(fs)
    # without the traffic counted, the width is what stands
    fs = diagnose(c, row(of_roof=0.12, level="L2", cycles_per_iteration=3.2), CTX)
    assert "narrow_vectors" in ids(fs)


def test_integer_division_control_flow_and_conversions_are_named():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "int_div": 1}
    fs = diagnose(code(loop), row(cycles_per_iteration=14.0), CTX)
    assert fs[0]["id"] == "int_div" and "narrow_vectors" not in ids(fs)
    assert fs[0]["factor"] == pytest.approx(8.0)  # scalar on 512-bit vectors of doubles: the lanes
    branchy = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "branches": 2}
    fs = diagnose(code(branchy, causes=["control_flow"], remarks=[
        {"line": 4, "kind": "missed", "text": "control flow in loop"}]), row(), CTX)
    assert fs[0]["id"] == "control_flow" and "line 4" in text(fs[0]["evidence"][1])
    # a branch the compiler turned into masks (the loop is vectorized): nothing to say about it
    assert "control_flow" not in ids(diagnose(code({**branchy, "vector_bits": 512}, causes=["control_flow"]),
                                              row(), CTX))
    # a search that stops on its data, carrying nothing but its index: the exit keeps it scalar
    search = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "exits": 1, "flops": 0}
    fs = diagnose(code(search, causes=["control_flow"], remarks=[
        {"line": 9, "kind": "missed", "text": "not vectorized: control flow in loop."}]), row(), CTX)
    assert fs[0]["id"] == "control_flow" and "can stop early: 1 exit(s)" in text(fs[0]["evidence"][0])
    assert "count instead of stopping" in text(fs[0]["advice"])
    # the escape test of a recurrence (z = z*z + c until |z| > 2): its iterations cannot run side by side
    escape = {**LOOP_SCALAR_SUM, "longest_chain": 3, "accumulators": 2, "chain_op": "fma", "exits": 1}
    assert "control_flow" not in ids(diagnose(code(escape, causes=["control_flow"]), row(), CTX))
    conv = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512,
            "element_bits": 64, "conversions": 4}
    fs = diagnose(code(conv), row(), CTX)
    assert fs[0]["id"] == "conversions" and fs[0]["experiments"] == ["single_constants"]


def test_gemm_like_kernels_are_recognized_from_their_shapes_and_counts(tmp_path):
    from rooflab.diagnosis.experiments import blocked_gemm_spec, gemm_dims
    from rooflab.userkernel.spec import load_spec

    (tmp_path / "k.c").write_text("void mm(long n, long m, long k, const double *A, const double *B, double *C) {}")
    head = 'source = "k.c"\nfunction = "mm"\nbytes = "8*(n*k + k*m + n*m)"\nsizes = {n = [300], m = [200], k = [100]}\n'
    args = ('[args]\nn = "n"\nm = "m"\nk = "k"\nA = {shape = ["n", "k"]}\nB = {shape = ["k", "m"]}\n'
            'C = {shape = ["n", "m"], output = true}\n')
    (tmp_path / "g.toml").write_text(head + 'flops = "2*n*m*k"\n' + args)
    (tmp_path / "s.toml").write_text(head + 'flops = "n*m"\n' + args)  # as many shapes, not a product's work
    spec = load_spec(tmp_path / "g.toml")[0]
    assert gemm_dims(spec, {"n": 300, "m": 200, "k": 100}) == (300, 200, 100, "float64")
    assert gemm_dims(load_spec(tmp_path / "s.toml")[0], {"n": 300, "m": 200, "k": 100}) is None
    b = blocked_gemm_spec(spec, (300, 200, 100, "float64"), 1 << 20)
    assert b.work(b.sizes[0])[0] == 2 * 300 * 200 * 100 and b.check == {"C": "A @ B"}
    assert b.array_bytes(b.sizes[0]) == 8 * (300 * 100 + 100 * 200 + 300 * 200)


def test_a_working_set_past_a_level_needs_reuse():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    r = row(level="DRAM", of_roof=0.7, working_set_bytes=64 << 20, bytes=4 * (64 << 20))
    fs = diagnose(code(loop), r, CTX)
    assert fs[0]["id"] == "working_set" and fs[0]["experiments"] == ["smaller"]
    assert fs[0]["factor"] == pytest.approx(4.0 / 0.7)  # to the L3 roof, from where it runs
    # one pass over its data: no reuse to keep in a cache, no such finding
    assert "working_set" not in ids(diagnose(code(loop), row(level="DRAM", of_roof=0.7,
                                                               working_set_bytes=64 << 20, bytes=64 << 20), CTX))
    # nor an update in place, which reads every array and writes each back once: twice its arrays, one pass
    assert "working_set" not in ids(diagnose(code(loop), row(level="DRAM", of_roof=0.7,
                                                               working_set_bytes=64 << 20, bytes=2 * (64 << 20)), CTX))


def test_narrow_vectors_are_no_finding_for_a_stream_from_l3_or_dram_near_its_roof():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 128}
    flags = {"build": {"flags": ["-O3", "-march=x86-64-v2"]}}
    for level, share, told in (("L3", 0.75, False), ("DRAM", 0.5, False), ("DRAM", 0.3, True), ("L2", 0.75, True)):
        fs = diagnose(code(loop, **flags), row(bound="memory", level=level, of_roof=share), CTX)
        assert ("narrow_vectors" in ids(fs)) is told, (level, share)


def test_no_evidence_no_advice():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    fs = diagnose(code(loop), row(), CTX)
    assert ids(fs) == ["unexplained"] and fs[0]["advice"] is None and fs[0]["experiments"] == []
    assert diagnose(code(loop), row(error="crashed", time_s=None), CTX) == []


def test_calls_to_libm_suggest_no_math_errno():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "flops": 0,
            "calls": ["sqrt"]}
    fs = diagnose(code(loop), row(), CTX)
    assert fs[0]["id"] == "calls" and fs[0]["experiments"] == ["no_math_errno"]


def test_a_running_sum_stored_at_every_element_is_a_scan_not_a_reduction():
    """A prefix sum: one add chain, its register stored every iteration. "Keep several partial sums" does not apply
    to it, nor does "narrow vectors": it is a dependency chain whose remedy is a blocked scan."""
    loop = {**LOOP_SCALAR_SUM, "stored_chain": True}
    fs = diagnose(code(loop), row(), CTX)
    assert "reduction_chain" not in ids(fs) and "narrow_vectors" not in ids(fs)
    f = next(f for f in fs if f["id"] == "dependency_chain")
    said = " ".join(text(e) for e in f["evidence"]) + text(f["hypothesis"]) + text(f["advice"])
    assert "scan" in said and "partial sums" in said and "block" in said
    # the same chain summed into a register that is stored once, after the loop, stays a reduction
    assert "reduction_chain" in ids(diagnose(code({**LOOP_SCALAR_SUM, "stored_chain": False}), row(), CTX))


def test_a_scan_with_no_loop_around_it_is_told_a_blocked_scan_before_more_threads():
    """A sliding-window sum, its running value stored at each element, in the function's only loop: no outer loop
    for threads to share, and sharing its iterations as they are would be wrong. The chain goes first; the advice
    to use the other CPU says how (blocks scanned apart, then their offsets)."""
    from rooflab.diagnosis.evidence import nested_loops

    flat = "{ double s = 0; for (k = 0; k < w; k++) s += x[k]; for (i = 1; i < n; i++) { s += x[i]; y[i] = s; } }"
    assert not nested_loops(flat)
    assert nested_loops("{ for (i = 0; i < m; i++) for (j = 1; j < n; j++) a[i][j] += a[i][j-1]; }")
    assert nested_loops("{ while (t < steps) { for (i = 0; i < n; i++) u[i] = v[i]; t++; } }")
    ctx = {**CTX, "cpus": 2}
    every = {"threads": 2, "of_roof": 0.36, "roof_flops_per_s": 5.5e9, "level": "L3"}
    r = row(of_roof=0.69, level="L3", all_threads=every, cycles_per_iteration=2.5)
    loop = {**LOOP_SCALAR_SUM, "stored_chain": True}
    fs = diagnose(code(loop, pragmas={"omp": False, "nested_loops": False}), r, ctx)
    assert ids(fs)[:2] == ["dependency_chain", "single_thread"]
    st = fs[1]
    assert "blocked scan" in text(st["advice"]) and "no loop is around it" in text(st["evidence"][-1])
    # rows scanned one by one: the rows are the threads' to share, as any outer loop is
    fs = diagnose(code(loop, pragmas={"omp": False, "nested_loops": True}), r, ctx)
    st = next(f for f in fs if f["id"] == "single_thread")
    assert "#pragma omp parallel for" in text(st["advice"]) and not st.get("after")


def test_a_simd_pragma_the_build_ignores_is_named_and_tested_by_the_build_that_obeys_it():
    pragmas = {"omp": False, "omp_simd": True}
    fs = diagnose(code(LOOP_SCALAR_SUM, pragmas=pragmas), row(), CTX)
    f = next(x for x in fs if x["id"] == "reduction_chain")
    assert f["experiments"] == ["openmp_simd", "fast_math"] and f["test"] == "openmp_simd"
    assert "ignores the pragma" in text(f["evidence"][-1]) and "-fopenmp-simd" in text(f["advice"])
    # built with it (or with OpenMP), the pragma counts: the usual advice and test
    for build in ({"flags": ["-O3", "-fopenmp-simd"]}, {"flags": ["-O3"], "openmp": True}):
        f = next(x for x in diagnose(code(LOOP_SCALAR_SUM, pragmas=pragmas, build=build), row(), CTX)
                 if x["id"] == "reduction_chain")
        assert f["experiments"] == ["fast_math"] and "test" not in f


def test_the_build_that_obeys_a_simd_pragma_adds_its_flag(tmp_path):
    from rooflab.diagnosis.experiments import variant
    from rooflab.userkernel.spec import load_spec

    (tmp_path / "k.c").write_text("double d(long n, const double *x)\n{ double s = 0;\n#pragma omp simd "
                                  "reduction(+:s)\n for (long i = 0; i < n; i++) s += x[i]; return s; }\n")
    (tmp_path / "k.toml").write_text('source = "k.c"\nfunction = "d"\nflops = "n"\nbytes = "8*n"\n'
                                     'sizes = {n = [64]}\nargs = {n = "n", x = {shape = ["n"]}}\n')
    spec = load_spec(tmp_path / "k.toml")[0]
    assert variant("openmp_simd", spec, {"n": 64}, {})[0].flags[-1] == "-fopenmp-simd"


def test_a_recurrence_stored_at_every_element_is_a_dependency_chain_not_a_reduction():
    """An in-place smoother, u[i] += c * (u[i-1] - 2 u[i] + u[i+1]): the point it just wrote is the next one's input,
    a chain of an add and an FMA whose value is stored at every element. It is no sum that partial sums split (it
    was told "an in-order reduction"), and no scan of adds either."""
    loop = {**LOOP_SCALAR_SUM, "stored_chain": True, "chain_op": "add+fma", "longest_chain": 3, "scalar_fp": 3}
    fs = diagnose(code(loop), row(), CTX)
    assert "reduction_chain" not in ids(fs) and "dependency_chain" in ids(fs)
    f = next(f for f in fs if f["id"] == "dependency_chain")
    said = " ".join(text(e) for e in f["evidence"]) + text(f["advice"])
    assert "computed from the one before" in said and "partial sums" not in said and "scan" not in said
    # a chain through a multiply the audit does not follow shows in the cycles and the prediction, never as "0
    # accumulators"
    pred = {"tool": "llvm-mca", "model": "x", "cycles_per_iteration": 4.0, "bound": "dependencies",
            "dependency_share": 0.85, "block_rthroughput": 1.2}
    plain = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": ""}
    fs = diagnose(code(plain, prediction=pred), row(cycles_per_iteration=3.9), CTX)
    f = next(f for f in fs if f["id"] == "dependency_chain")
    assert not any("accumulator" in text(e) for e in f["evidence"])
    assert any("predicts 4.0 cycles" in text(e) for e in f["evidence"])


def test_sqrt_kept_scalar_by_errno_is_named_and_tested_with_no_math_errno():
    """gcc puts sqrt's library call on a cold path (for negative inputs, to set errno): the hot loop holds vsqrtsd
    and no call, and the only trace is the remark. It was "narrow vectors" with no cause."""
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "flops": 1, "calls": [],
            "vector_bits": 0, "element_bits": 64}
    remarks = [{"kind": "missed", "line": 3, "text": "couldn't vectorize loop"},
               {"kind": "missed", "line": 3, "text": "not vectorized: control flow in loop."},
               {"kind": "missed", "line": 3, "text": "statement clobbers memory: _18 = sqrt (_4);"}]
    fs = diagnose(code(loop, remarks=remarks, causes=["control_flow"]), row(), CTX)
    assert ids(fs)[0] == "calls"
    # narrow vectors follows it, for -fno-math-errno's build to keep or drop (see the next test)
    nv = next(f for f in fs if f["id"] == "narrow_vectors")
    assert nv["after"] == ["calls"] and nv["unless_vectorized_by"] == "no_math_errno"
    f = next(f for f in fs if f["id"] == "calls")
    assert f["experiments"] == ["no_math_errno"] and f["factor"] == 8.0  # 512-bit lanes of doubles
    said = " ".join(text(e) for e in f["evidence"]) + text(f["hypothesis"]) + text(f["advice"])
    assert "sqrt" in said and "errno" in said and "-fno-math-errno" in said and "clobbers memory" in said
    # a call that may write memory but is not libm's says nothing about errno
    other = [{"kind": "missed", "line": 3, "text": "statement clobbers memory: mine (_4);"}]
    assert "calls" not in ids(diagnose(code(loop, remarks=other, causes=[]), row(), CTX))


def test_narrow_vectors_behind_an_errno_sqrt_stands_where_no_math_errno_left_the_loop_scalar():
    """CloverLeaf's time-step control: a scalar loop with a sqrt kept for errno, six divisions and an access pattern
    gcc cannot follow. -fno-math-errno removes the call and the loop stays scalar (1.00x): the unused lanes are the
    finding, no longer behind the call's. Where the build vectorizes the loop, the call was the reason: it goes."""
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "flops": 40, "calls": [],
            "side_calls": ["sqrt"], "vector_bits": 0, "element_bits": 64}
    remarks = [{"kind": "missed", "line": 3, "text": "not vectorized: control flow in loop."},
               {"kind": "missed", "line": 3, "text": "statement clobbers memory: _18 = sqrt (_4);"}]
    fs = diagnose(code(loop, remarks=remarks, causes=["control_flow"]), row(), CTX)
    assert ids(fs)[:2] == ["calls", "narrow_vectors"]
    scalar = {**experiment("no_math_errno", "no difference", 1.0), "loop_unchanged": False, "vector_bits": [0, 0]}
    out = weigh([dict(f) for f in fs], [scalar], time_s=1.0)
    assert out[0]["id"] == "narrow_vectors" and "after" not in out[0]
    vectorized = {**experiment("no_math_errno", "faster", 3.5), "loop_unchanged": False, "vector_bits": [0, 512]}
    out = weigh([dict(f) for f in fs], [vectorized], time_s=1.0)
    assert ids(out) == ["calls"] and out[0]["confirmed"]["speedup"] == 3.5
    # a call of the loop's own (not errno's) still explains the scalar loop: no narrow vectors beside it
    called = {**loop, "calls": ["mine"], "side_calls": []}
    assert "narrow_vectors" not in ids(diagnose(code(called, remarks=remarks, causes=["control_flow"]), row(), CTX))


def experiment(eid: str, verdict: str, s: float) -> dict:
    return {"id": eid, "what": {"id": eid, "args": {}, "text": eid}, "verdict": verdict, "speedup": s,
            "speedup_ci95": [s * 0.97, s * 1.03], "rounds": 20, "threshold": 0.02, "rel_error": 0.0}


def test_an_experiment_confirms_or_refutes_its_finding():
    fs = [{"id": "aliasing", "saving_s": 5.0}, {"id": "dependency_chain", "saving_s": 3.0},
          {"id": "reduction_chain", "saving_s": 1.0}]
    tight = {**experiment("restrict", "no difference", 1.0), "speedup_ci95": [0.99, 1.01]}
    out = weigh(fs, [tight, experiment("fast_math", "faster", 3.0),
                     experiment("unroll", "no difference", 1.0)])
    assert ids(out) == ["dependency_chain", "reduction_chain", "aliasing"]  # refuted goes last, with nothing to save
    assert out[-1]["refuted"]["experiment"] == "restrict" and out[-1]["saving_s"] == 0
    assert out[1]["confirmed"] == {"experiment": "fast_math", "speedup": 3.0}
    assert "refuted" not in out[0]  # unrolling is the chain's control, not its test
    # an interval that still allows a gain refutes nothing
    wide = {**experiment("openmp", "no difference", 1.03), "speedup_ci95": [1.01, 1.86]}
    (f,) = weigh([{"id": "single_thread", "saving_s": 2.0}], [wide])
    assert "refuted" not in f and f["inconclusive"]["speedup_ci95"] == [1.01, 1.86] and f["saving_s"] == 2.0
    # but it can save no more than the fast end of that interval: an 8% gain at most ranks under a chain worth 30%
    near = {**experiment("restrict", "no difference", 1.0), "speedup_ci95": [0.99, 1.08], "a_time_s": 10.0}
    out = weigh([{"id": "aliasing", "saving_s": 5.0}, {"id": "dependency_chain", "saving_s": 3.0}], [near])
    assert ids(out) == ["dependency_chain", "aliasing"] and out[1]["inconclusive"]
    assert out[1]["saving_s"] == pytest.approx(10.0 * (1 - 1 / 1.08))
    # no difference, and at most 3%: not material, refuted
    small = {**experiment("restrict", "no difference", 1.0), "speedup_ci95": [0.99, 1.03], "a_time_s": 10.0}
    (f,) = weigh([{"id": "aliasing", "saving_s": 5.0}], [small])
    assert f["refuted"] and f["saving_s"] == 0
    # faster, by 4%: measured, and too little to be why (flush-to-zero on subnormal inputs this core handles
    # almost at full speed); it goes after the roof
    slight = {**experiment("ftz", "faster", 1.04), "speedup_ci95": [1.03, 1.06], "a_time_s": 1e-3}
    out = weigh([{"id": "at_roof", "saving_s": 0.0}, {"id": "denormals", "saving_s": 0.5e-3}], [slight])
    assert ids(out) == ["at_roof", "denormals"] and out[1]["refuted"]["immaterial"] and out[1]["saving_s"] == 0
    # a test that only approaches the fix (rooflab's blocked GEMM for a user's product) bounds nothing
    blocked = {**experiment("blocked", "no difference", 1.16), "speedup_ci95": [0.97, 1.22], "a_time_s": 10.0}
    (f,) = weigh([{"id": "reuse", "saving_s": 6.9}], [blocked])
    assert f["inconclusive"] and f["saving_s"] == 6.9
    # nor does a tight "no difference" while others kept the CPUs busy (the second CPU the threads needed)
    busy = {**experiment("openmp", "no difference", 1.02), "speedup_ci95": [1.01, 1.02], "disturbed_cores": 0.6}
    (f,) = weigh([{"id": "single_thread", "saving_s": 2.0}], [busy])
    assert "refuted" not in f and f["inconclusive"] and f["saving_s"] == 2.0
    said = text(experiment_sentence({**busy, "what": "its OpenMP pragmas on"}))
    assert "0.60 core(s) meanwhile" in said and "refutes nothing" in said
    assert "meanwhile" not in text(experiment_sentence({**busy, "disturbed_cores": None, "what": "w"}))


def test_a_rebuild_that_left_the_hot_loop_as_it_was_refutes_nothing():
    """atax's dependency-bound row loop: -ffast-math could not vectorize it either, measured 1.00x, and the
    reduction chain was marked refuted. A build whose hot loop is the original's tests nothing."""
    tight = {**experiment("fast_math", "no difference", 1.0), "speedup_ci95": [0.99, 1.01], "a_time_s": 4.0,
             "loop_unchanged": True}
    out = weigh([{"id": "reduction_chain", "saving_s": 2.5}, {"id": "single_thread", "saving_s": 1.0}], [tight])
    f = next(x for x in out if x["id"] == "reduction_chain")
    assert "refuted" not in f and f["inconclusive"]["loop_unchanged"]
    # nor does it bound what the finding claims: the build could not make the change the source fix would
    assert f["saving_s"] == 2.5 and out[0]["id"] == "reduction_chain"
    said = text(experiment_sentence({**tight, "what": "a build with -ffast-math"}))
    assert "left the hot loop as it was" in said and "tests nothing" in said
    # the same interval from a build that did change the loop refutes the finding
    (g,) = weigh([{"id": "reduction_chain", "saving_s": 2.5}], [{**tight, "loop_unchanged": False}])
    assert g["refuted"] and g["saving_s"] == 0
    # and a build that made it faster confirms it, changed loop or not
    (h,) = weigh([{"id": "reduction_chain", "saving_s": 2.5}],
                 [{**experiment("fast_math", "faster", 2.0), "loop_unchanged": True}])
    assert h["confirmed"]["speedup"] == 2.0
    # a few percent faster with the loop as it was (cholesky: -ffast-math 1.04x on a sum kept in memory) is no
    # measure of the finding either: inconclusive, not an immaterial gain; with the loop changed it is one
    few = {**experiment("fast_math", "faster", 1.04), "a_time_s": 4.0}
    (k,) = weigh([{"id": "reduction_chain", "saving_s": 2.5}], [{**few, "loop_unchanged": True}])
    assert "refuted" not in k and k["inconclusive"]["loop_unchanged"]
    (m,) = weigh([{"id": "reduction_chain", "saving_s": 2.5}], [{**few, "loop_unchanged": False}])
    assert m["refuted"]["immaterial"]
    # the advice itself applied (restrict) with the loop built as before: that is what refutes it, and said so
    applied = {**tight, "id": "restrict", "what": "restrict on every pointer parameter"}
    (r,) = weigh([{"id": "aliasing", "saving_s": 2.5}], [applied])
    assert r["refuted"] and r["saving_s"] == 0
    said = text(experiment_sentence(applied))
    assert "not what the loop lacks" in said and "tests nothing" not in said


def test_experiment_sentences_give_the_interval_or_the_reason():
    said = text(experiment_sentence(experiment("fast_math", "faster", 3.1)))
    assert "3.10x faster" in said and "95% CI 3.01–3.19x" in said and "20 paired rounds" in said
    wrong = {"id": "fast_math", "what": "a build", "error": "wrong", "error_kind": "wrong", "rel_error": 0.5}
    assert "not safe" in text(experiment_sentence(wrong))
    assert "not measured" in text(experiment_sentence({"id": "x", "what": "w", "error": "no compiler",
                                                       "error_kind": "build"}))


def test_observations_lead_with_the_top_finding_and_every_experiment():
    f = diagnose(code(LOOP_SCALAR_SUM), row(label="dot n=100"), CTX)
    doc = {"kernels": [{"name": "dot", "sizes": [row(label="dot n=100", findings=f,
                                                     experiments=[experiment("fast_math", "faster", 3.0)])]},
                       {"name": "bad", "error": "did not compile"}]}
    said = [text(o) for o in explain_observations(doc)]
    assert said[0].startswith("dot n=100: an in-order reduction") and "3.00x faster" in said[1]
    assert "bad: not explained" in said[2]
    assert all(math.isfinite(x["saving_s"]) for x in f)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="reads x86 assembly")
def test_the_outlined_openmp_body_holds_the_loop(tmp_path):
    from rooflab.toolchain.compiler import find_compiler

    cc = find_compiler()
    (tmp_path / "t.c").write_text("void t(double *a, const double *b, long n) {\n#pragma omp parallel for\n"
                                  "for (long i = 0; i < n; i++) a[i] = 2.0 * b[i];\n}\n")
    lib = tmp_path / "t.so"
    import subprocess

    subprocess.run([*cc.argv, "-O2", "-fopenmp", "-shared", "-fPIC", "-o", str(lib), str(tmp_path / "t.c")],
                   check=True)
    assert asm.outlined_from(lib, "t") == ["t._omp_fn.0"]
    found = asm.hot_loop_of(lib, "t")
    assert found is not None and found[2].flops >= 1


def test_the_reference_kernel_follows_the_loops_accesses():
    from rooflab.diagnosis.evidence import reference_kind

    assert reference_kind({"audit": {"loads": 1, "stores": 0}}) == "read"
    assert reference_kind({"audit": {"loads": 1, "stores": 1}}) == "copy"
    assert reference_kind({"audit": {"loads": 2, "stores": 1}}) == "triad"
    assert reference_kind({"audit": {"loads": 2, "stores": 1, "nt_stores": 1}}) is None
    assert reference_kind({"audit": None}) is None


def test_a_dram_kernel_level_with_the_reference_measured_alongside_is_at_its_roof():
    """The stored DRAM roof came from another moment: the alternated reference decides."""
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    live = {"kind": "triad", "ratio": 0.94, "ci95": [0.89, 1.01], "rounds": 20, "reference_bytes_per_s": 4.6e10}
    fs = diagnose(code(loop), row(level="DRAM", of_roof=0.6, reference=live), CTX)
    assert ids(fs) == ["at_roof"] and "94%" in text(fs[0]["hypothesis"]) and "triad kernel" in text(fs[0]["hypothesis"])
    assert any("0.94x its bandwidth" in text(e) for e in fs[0]["evidence"])
    # far below the reference too: not at the roof, and the reference is part of what was checked
    low = {**live, "ratio": 0.5, "ci95": [0.45, 0.55]}
    fs = diagnose(code(loop), row(level="DRAM", of_roof=0.6, reference=low), CTX)
    assert ids(fs) == ["unexplained"] and any("0.50x its bandwidth" in text(e) for e in fs[0]["evidence"])


def test_a_compute_bound_kernel_is_judged_by_the_blas_gemm_measured_alongside_it():
    """The second CPU of a shared host comes and goes: the GEMM alternated with the kernel decides over the stored
    GEMM rate, both ways."""
    ctx = {**CTX, "roofs": {**CTX["roofs"], "compute": [{"klass": "blas_gemm", "value": 2.0e9}]}}
    live = {"kind": "blas_gemm", "n": 768, "ratio": 0.97, "ci95": [0.95, 0.99], "rounds": 20,
            "reference_flops_per_s": 1.9e11}
    fs = diagnose(code(None), row(bound="compute", of_roof=0.6, reference=live), CTX)
    assert ids(fs) == ["at_roof"] and fs[0]["advice"] is None
    assert "97%" in text(fs[0]["hypothesis"]) and "BLAS GEMM measured alongside" in text(fs[0]["hypothesis"])
    assert any("0.97x its FLOP rate" in text(e) and "n=768" in text(e) for e in fs[0]["evidence"])
    # as fast as the stored GEMM, but at half the one that ran beside it: not at the roof, and no stored-GEMM line
    low = {**live, "ratio": 0.5, "ci95": [0.48, 0.52]}
    fs = diagnose(code(None), row(bound="compute", of_roof=0.5, reference=low), ctx)
    assert ids(fs) == ["unexplained"]
    assert any("0.50x its FLOP rate" in text(e) for e in fs[0]["evidence"])
    assert not any("BLAS GEMM reaches" in text(e) for e in fs[0]["evidence"])
    # a reference that failed leaves the stored GEMM to decide
    failed = {"kind": "blas_gemm", "error": "disturbed"}
    assert ids(diagnose(code(None), row(bound="compute", of_roof=0.5, reference=failed), ctx)) == ["at_roof"]


def test_the_blas_reference_holds_as_many_bytes_as_the_kernels_arrays_within_bounds():
    from rooflab.diagnosis.experiments import BLAS_N, blas_reference_n
    from rooflab.kernels.labkernels import spec_for

    machine = {"isa": {"arch": "x86_64", "vector_bits": 512, "vector_registers": 32, "fma": True}}
    gemm = spec_for("gemm_packed", machine)
    assert blas_reference_n(gemm, {"n": 768}) == 768  # a GEMM kernel meets its own n
    assert blas_reference_n(gemm, {"n": 100}) == BLAS_N[0]  # BLAS is off its pace below
    assert blas_reference_n(gemm, {"n": 5000}) == BLAS_N[1]
    assert blas_reference_n(gemm, {"n": 700}) % 64 == 0


def test_a_size_above_its_roof_says_why_it_can_be():
    from rooflab.interpret.outline import size_outline

    def shown(**kw) -> str:
        return "\n".join(line.text for line in size_outline(row(label="k n=1", findings=[], **kw)))

    assert "part of its working set is still served from L3" in shown(of_roof=1.2, level="DRAM", partly_in="L3")
    assert "measured at another moment" in shown(of_roof=1.3, level="DRAM", above_roof=True)
    assert "above it" not in shown(of_roof=0.5)


def test_gathers_are_indirect_access_not_stride():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512,
            "gathers": 2}
    fs = diagnose(code(loop, causes=["stride"]), row(), CTX)
    assert fs[0]["id"] == "indirect" and "strided" not in ids(fs) and "2 gather" in text(fs[0]["evidence"][0])


def test_openmp_at_a_tiny_size_is_overhead_tested_by_a_serial_build():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    fs = diagnose(code(loop), row(time_s=8e-6, time_ci95=[7.9e-6, 8.1e-6], cpus_busy=1.8), ctx)
    assert fs[0]["id"] == "omp_overhead" and fs[0]["experiments"] == ["serial"]
    # a call long enough to gain from the team: no such finding
    assert "omp_overhead" not in ids(diagnose(code(loop), row(cpus_busy=1.9), ctx))


def test_threads_waiting_for_each_other_are_load_imbalance_unless_already_scheduled_dynamically():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    omp = {"omp": True, "omp_text": "#pragma omp parallel for"}
    fs = diagnose(code(loop, pragmas=omp), row(cpus_busy=1.33, bound="compute"), ctx)
    top = fs[0]
    assert top["id"] == "imbalance" and top["experiments"] == ["dynamic"] and top["factor"] == pytest.approx(2 / 1.33)
    dyn = {"omp": True, "omp_text": "#pragma omp parallel for schedule(dynamic, 4)"}
    assert "imbalance" not in ids(diagnose(code(loop, pragmas=dyn), row(cpus_busy=1.33, bound="compute"), ctx))
    assert "imbalance" not in ids(diagnose(code(loop, pragmas=omp), row(cpus_busy=1.95, bound="compute"), ctx))
    # CPU time the host or other processes took reads like waiting threads: not evidence then
    taken = row(cpus_busy=1.33, bound="compute", others_cores=0.6)
    assert "imbalance" not in ids(diagnose(code(loop, pragmas=omp), taken, ctx))


def test_power_of_two_rows_in_a_strided_walk_suggest_conflicts_tested_by_padding():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    ctx = {**CTX, "pow2_rows": [("a", 8192)]}
    fs = diagnose(code(loop, causes=["stride"]), row(level="L3"), ctx)
    f = next(x for x in fs if x["id"] == "conflicts")
    assert f["experiments"] == ["padded"] and "8192 bytes" in text(f["evidence"][0])
    assert "conflicts" not in ids(diagnose(code(loop, causes=["stride"]), row(level="L3"), CTX))


def test_a_confirmed_finding_ranks_by_the_gain_its_experiment_measured():
    fs = [{"id": "strided", "saving_s": 0.5e-3, "experiments": []},
          {"id": "conflicts", "saving_s": 0.1e-3, "experiments": ["padded"]}]
    e = {"id": "padded", "verdict": "faster", "speedup": 4.0, "speedup_ci95": [3.9, 4.1], "threshold": 0.02,
         "a_time_s": 1e-3, "per_work": False}
    out = weigh(fs, [e])
    assert out[0]["id"] == "conflicts" and out[0]["saving_s"] == pytest.approx(0.75e-3)


def test_conflicts_of_a_walk_an_interchange_makes_contiguous_go_after_the_strided_access():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    ctx = {**CTX, "pow2_rows": [("C", 4096)]}
    made = diagnose(code(loop, causes=["stride"]), row(level="L3"), ctx)
    assert next(f for f in made if f["id"] == "conflicts")["after"] == ["strided"]
    # padding confirmed at 11x outranks everything by its measured gain, but the interchange removes the conflicts
    # too (and gains more): strided first, saving at least as much, conflicts right after it
    fs = [{"id": "strided", "saving_s": 0.5e-3, "experiments": []},
          {"id": "aliasing", "saving_s": 0.6e-3, "experiments": []},
          {"id": "conflicts", "saving_s": 0.1e-3, "experiments": ["padded"], "after": ["strided"]}]
    e = {"id": "padded", "verdict": "faster", "speedup": 11.0, "speedup_ci95": [10.5, 12.0], "threshold": 0.02,
         "a_time_s": 1e-3, "per_work": False}
    out = weigh(fs, [e])
    assert ids(out) == ["strided", "conflicts", "aliasing"]
    assert out[0]["saving_s"] == pytest.approx(out[1]["saving_s"]) == pytest.approx(1e-3 * (1 - 1 / 11))
    # without a strided finding (a walk no interchange removes), the conflicts stand on their own
    alone = weigh([dict(fs[1]), dict(fs[2])], [e])
    assert ids(alone) == ["conflicts", "aliasing"]


def test_dynamic_schedule_padding_and_power_of_two_rows_in_source_and_sizes(tmp_path):
    from rooflab.diagnosis.experiments import padded_size, pow2_rows, with_cyclic_schedule, with_dynamic_schedule
    from rooflab.userkernel.spec import load_spec

    src = ("void other(void) {\n#pragma omp parallel for\n  for (;;) ;\n}\n"
           "void t(double *y, long n) {\n#pragma omp parallel for schedule(static, 4) private(n)\n"
           "  for (long i = 0; i < n; i++) y[i] = 0;\n}\n")
    got = with_dynamic_schedule(src, "t")
    # chunks of an eighth of a thread's share of the loop's iterations, worked out at run time from its bounds
    chunk = "(((n) - (0)) / (8 * omp_get_max_threads()) + 1)"
    assert f"#pragma omp parallel for schedule(dynamic, {chunk}) private(n)" in got
    assert got.count("schedule(dynamic") == 1  # only in the function asked for
    assert got.startswith("int omp_get_max_threads(void);\n")
    assert with_dynamic_schedule("void t(double *y) { y[0] = 1; }", "t") is None
    cyc = with_cyclic_schedule(src, "t")
    assert "#pragma omp parallel for schedule(static, 1) private(n)" in cyc and cyc.count("schedule(static, 1)") == 1
    assert "schedule(static, 1) collapse(2)" in with_cyclic_schedule(
        "void t(long n) {\n#pragma omp parallel for collapse(2)\n  for (long i = 0; i < n; i++)\n"
        "    for (long j = 0; j < n; j++) {}\n}\n", "t")
    # an inclusive bound counts its last iteration; a loop that cannot be read, or collapses, is scheduled guided
    incl = with_dynamic_schedule("void t(long h) {\n#pragma omp parallel for\n  /* rows */\n"
                                 "  for (int r = 1; r <= h - 2; r++) {}\n}\n", "t")
    assert "schedule(dynamic, (((h - 2) - (1) + 1) / (8 * omp_get_max_threads()) + 1))" in incl
    assert "schedule(guided)" in with_dynamic_schedule("void t(long n) {\n#pragma omp parallel for\n"
                                                       "  for (long i = n; i > 0; i--) {}\n}\n", "t")
    assert "schedule(guided) collapse(2)" in with_dynamic_schedule(
        "void t(long n) {\n#pragma omp parallel for collapse(2)\n  for (long i = 0; i < n; i++)\n"
        "    for (long j = 0; j < n; j++) {}\n}\n", "t")
    (tmp_path / "k.c").write_text("void c(double *a, long n, long m) {}")
    (tmp_path / "k.toml").write_text('source = "k.c"\nfunction = "c"\nflops = "n*m"\nbytes = "8*n*m"\n'
                                     'sizes = {n = [1024], m = [1024]}\n[args]\na = {shape = ["m", "n"], output = true}\n'
                                     'n = "n"\nm = "m"\n')
    spec = load_spec(tmp_path / "k.toml")[0]
    assert pow2_rows(spec, {"n": 1024, "m": 1024}) == [("a", 8192)]
    assert pow2_rows(spec, {"n": 1000, "m": 1024}) == []
    assert padded_size(spec, {"n": 1024, "m": 1024}) == {"n": 1032, "m": 1024}


def test_perf_script_lines_become_samples_per_function_offset_of_the_kernels_library(tmp_path):
    from rooflab.diagnosis.sampling import parse_script, runtime_samples

    lib = tmp_path / "libk.so"
    lib.write_bytes(b"")
    text = (f"  100    7f0010001234 atax+0x40 ({lib})\n"
            f"  100    7f0010001238 atax+0x40 ({lib})\n"
            f"  101    7f0010001300 atax._omp_fn.0+0x8 ({lib})\n"
            "  100    7f0020000000 memcpy+0x10 (/usr/lib/libc.so.6)\n"
            "  101    7f0030000000 gomp_barrier_wait+0x10 (/usr/lib/libgomp.so.1.0.0)\n"
            "  101 ffffffff8223b5a6 do_syscall_64+0x46 ([kernel.kallsyms])\n"
            "garbage line\n")
    assert parse_script(text, lib) == {"atax": {0x40: 2}, "atax._omp_fn.0": {0x8: 1}}
    # the team's thread (101): one sample in the kernel's region, two in the runtime and the operating system;
    # the main thread (100), which also makes the arrays, is left out
    assert runtime_samples(text, 100, lib) == (3, 2)


def test_the_sampling_rate_aims_at_a_few_hundred_samples_however_long_a_call():
    from rooflab.diagnosis.sampling import MAX_RATE, MIN_RATE, SAMPLES, sampling_rate

    assert sampling_rate(0.1, 1e-4) == MAX_RATE  # short calls: a tenth of a second at the highest rate
    assert sampling_rate(0.1, 0.7) == int(SAMPLES / 0.7)  # a GEMM's 0.7 s call: about SAMPLES in all
    assert sampling_rate(0.1, 1000.0) == MIN_RATE and sampling_rate(0.1, None) == MAX_RATE


def test_a_sample_in_a_function_the_kernel_calls_counts_where_the_kernel_called_it(tmp_path):
    """perf's call chains (DWARF unwinding): time in libm's expf belongs to the loop that calls it, at the return
    address in the kernel; inlined frames and samples that never pass through the kernel count nowhere."""
    from rooflab.diagnosis.sampling import parse_script, runtime_samples

    lib = tmp_path / "libk.so"
    lib.write_bytes(b"")
    text = (" 100 \n"
            "\t           72c0e __expf_fma+0x6e (/usr/lib/x86_64-linux-gnu/libm.so.6)\n"
            f"\t            1138 softmax+0xd8 ({lib})\n"
            "\t           27249 __libc_start_call_main+0x79 (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
            "\n"
            " 100 \n"
            "\t            1100 softmax+0xa0 (inlined)\n"
            f"\t            1100 softmax+0xa0 ({lib})\n"
            "\n"
            " 101 \n"
            "\t           1f0a0 gomp_barrier_wait_end+0x40 (/usr/lib/libgomp.so.1.0.0)\n"
            "\t           1c2d0 gomp_thread_start+0x90 (/usr/lib/libgomp.so.1.0.0)\n"
            "\n"
            " 101 \n"
            "\t           72c0e __expf_fma+0x6e (/usr/lib/x86_64-linux-gnu/libm.so.6)\n"
            f"\t            1300 softmax._omp_fn.0+0x30 ({lib})\n"
            "\t           1c2d0 gomp_thread_start+0x90 (/usr/lib/libgomp.so.1.0.0)\n"
            f"  100    7f0010001238 softmax+0x40 ({lib})\n")
    assert parse_script(text, lib) == {"softmax": {0xd8: 1, 0xa0: 1, 0x40: 1}, "softmax._omp_fn.0": {0x30: 1}}
    # the team's thread: its expf in the region is the kernel's work, its barrier the runtime's
    assert runtime_samples(text, 100, lib) == (2, 1)


def test_a_sample_in_the_openmp_runtime_is_overhead_even_where_the_kernel_called_it(tmp_path):
    """A dynamic schedule asks libgomp for each next iteration from the kernel's own region: that time is the
    runtime's (OpenMP overhead), not the loop's, in both the loop's samples and the team's runtime share."""
    from rooflab.diagnosis.sampling import parse_script, runtime_samples

    lib = tmp_path / "libk.so"
    lib.write_bytes(b"")
    text = (" 101 \n"
            "\t            e732 [unknown] (/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0)\n"
            f"\t            1300 axpy._omp_fn.0+0x50 ({lib})\n"
            "\n"
            " 101 \n"
            "\tffffffff8223b5a6 do_syscall_64+0x46 ([kernel.kallsyms])\n"
            "\t           2c0c0 syscall+0x1d (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
            f"\t            1300 axpy._omp_fn.0+0x60 ({lib})\n"
            "\n"
            " 101 \n"
            f"\t            1310 axpy._omp_fn.0+0x70 ({lib})\n"
            "\t           1c2d0 gomp_thread_start+0x90 (/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0)\n"
            "\n"
            " 101 \n"
            "\t           4c0c0 __memcpy_avx512+0x1d (/usr/lib/x86_64-linux-gnu/libc.so.6)\n"
            f"\t            1310 axpy._omp_fn.0+0x80 ({lib})\n"
            "  102    7f003000e732 [unknown] (/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0)\n")
    # the loop's own instruction and a memcpy it called are its work; the scheduling and the system call are not
    assert parse_script(text, lib) == {"axpy._omp_fn.0": {0x70: 1, 0x80: 1}}
    assert runtime_samples(text, 100, lib) == (5, 3)


def test_a_frame_in_a_local_alias_is_its_function_in_the_callers_object_and_inlined_frames_are_left_out(tmp_path):
    """Built without semantic interposition, a call within the library goes to gcc's NAME.localalias, which perf
    prints as "(inlined)" with no frame of its own after it (XSBench's lookup: every sample fell to the call site in
    the OpenMP region); the frames perf prints for functions inlined at an instruction repeat that instruction."""
    from rooflab.diagnosis.sampling import parse_script

    lib = tmp_path / "libk.so"
    lib.write_bytes(b"")
    text = (" 101 \n"
            "\t            17cf calculate_macro_xs.localalias+0x13f (inlined)\n"
            f"\t            1d3d xs_event._omp_fn.0+0x2ed ({lib})\n"
            "\t           140b5 GOMP_parallel+0x45 (/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0)\n"
            "\n"
            " 101 \n"
            "\t            1480 grid_search+0x20 (inlined)\n"
            f"\t            1480 calculate_macro_xs+0x60 ({lib})\n"
            f"\t            1d3d xs_event._omp_fn.0+0x2ed ({lib})\n")
    assert parse_script(text, lib) == {"calculate_macro_xs": {0x13f: 1, 0x60: 1}}


def test_the_sampled_loop_is_where_the_time_goes_not_the_busiest_looking_one():
    # two innermost loops: a vectorized one (more FP work per iteration) and a scalar in-order sum
    insns = asm.parse_objdump("""
    1000:	vxorpd %xmm0,%xmm0,%xmm0
    1004:	vmovsd (%rdi,%rax,8),%xmm1
    100a:	vfmadd231sd (%rsi,%rax,8),%xmm1,%xmm0
    1010:	inc    %rax
    1013:	cmp    %rax,%rdx
    1016:	jne    1004 <f+0x4>
    1018:	vmovupd (%rdi,%rax,8),%zmm1
    101f:	vfmadd231pd (%rsi,%rax,8),%zmm2,%zmm1
    1026:	vmovupd %zmm1,(%rdi,%rax,8)
    102d:	add    $0x8,%rax
    1031:	cmp    %rax,%rdx
    1034:	jne    1018 <f+0x18>
    1036:	ret
""")
    assert asm.hot_loop(insns).start == 0x1018  # by the work per iteration: the vector loop
    picked = asm.sampled_loop(insns, {0x0a: 70, 0x10: 20, 0x1f: 10})
    assert picked.start == 0x1004  # by the samples: the scalar sum
    assert asm.sampled_loop(insns, {0x36: 100}) is None  # no loop holds a fifth of the samples: no choice


def test_time_sampled_outside_the_innermost_loops_means_short_trip_counts():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    c = code(loop, hot_loop={"by": "samples", "samples": 400, "moved": False, "in_inner_loops": 0.25})
    fs = diagnose(c, row(), CTX)
    assert fs[0]["id"] == "short_trips" and fs[0]["factor"] == pytest.approx(4.0) and "25%" in text(fs[0]["evidence"][0])
    # most of the time inside the loop, or no samples: nothing to say about trip counts
    for how in ({"by": "samples", "samples": 400, "in_inner_loops": 0.9}, {"by": "work", "why": "no perf"}):
        assert "short_trips" not in ids(diagnose(code(loop, hot_loop=how), row(), CTX))


def test_a_loop_the_samples_show_cold_gives_no_finding_of_its_own():
    # a 16-add in-order chain in a vector loop that a 3-tap filter never enters: the samples fall in the loop around
    # it (its remainder code), so the chain is nothing to act on; the short trips are
    loop = {**LOOP_SCALAR_SUM, "vector_bits": 512, "longest_chain": 16, "scalar_fp": 16, "accumulators": 1}
    pred = {"cycles_per_iteration": 48.0, "block_rthroughput": 8.0, "bound": "dependencies", "dependency_share": 0.98,
            "tool": "llvm-mca", "model": "znver4"}
    cold = code(loop, hot_loop={"by": "samples", "samples": 1200, "moved": False, "in_inner_loops": 0.0},
                prediction=pred)
    got = ids(diagnose(cold, row(), CTX))
    assert got[0] == "short_trips" and "reduction_chain" not in got and "dependency_chain" not in got
    # the same loop holding most of the samples keeps its chain finding
    warm = code(loop, hot_loop={"by": "samples", "samples": 1200, "moved": False, "in_inner_loops": 0.95},
                prediction=pred)
    assert "reduction_chain" in ids(diagnose(warm, row(), CTX))


def test_the_share_of_samples_inside_innermost_loops():
    insns = asm.parse_objdump("""
    1000:	mov    %rdi,%rax
    1003:	vmovsd (%rdi,%rax,8),%xmm1
    1008:	inc    %rax
    100b:	cmp    %rax,%rdx
    100e:	jne    1003 <f+0x3>
    1010:	add    $0x1,%rcx
    1014:	cmp    %rcx,%r8
    1017:	jne    1000 <f>
    1019:	ret
""")
    assert asm.inner_share(insns, {0x3: 10, 0x10: 30}) == (10, 40)


def test_a_parallel_triangle_is_uneven_work_even_while_waiting_threads_spin():
    from rooflab.diagnosis.evidence import uneven_loop

    body = ("#pragma omp parallel for\n    for (long i = 0; i < n; i++)\n        for (long j = 0; j <= i; j++)\n"
            "            y[i * n + j] = f(x[j]);\n")
    assert uneven_loop(body) == {"var": "i", "bound": "j <= i", "read": False}
    assert uneven_loop(body.replace("j <= i", "j < n")) is None
    assert uneven_loop("for (long i = 0; i < n; i++) for (long j = 0; j <= i; j++) ;") is None  # not parallel
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    omp = {"omp": True, "omp_text": "#pragma omp parallel for", "uneven_loop": {"var": "i", "bound": "j <= i"}}
    fs = diagnose(code(loop, pragmas=omp), row(cpus_busy=1.95, bound="compute"), ctx)
    assert fs[0]["id"] == "imbalance" and fs[0]["factor"] == pytest.approx(1.5)  # the last of 2 threads: 3/4
    assert "`j <= i`" in text(fs[0]["evidence"][0])
    # work growing along the loop is dealt in turn, which keeps each thread's rows in its cache from call to call
    assert fs[0]["experiments"] == ["cyclic"] and fs[0]["test"] == "cyclic"
    assert "schedule(static, 1)" in text(fs[0]["advice"])
    # near a stored roof it is still tested: a triangle in L2 at 98% of its stored roof ran 1.46x dealt in turn,
    # and a short call (tens of microseconds) loses to unequal work as a long one does
    fs = diagnose(code(loop, pragmas=omp), row(cpus_busy=2.0, bound="memory", of_roof=0.98, time_s=20e-6), ctx)
    assert "imbalance" in ids(fs) and "at_roof" not in ids(fs)  # beside the team's cost, each to be tested
    fs = diagnose(code(loop, pragmas=omp), row(cpus_busy=2.0, bound="memory", of_roof=0.98, time_s=2e-6), ctx)
    assert "imbalance" not in ids(fs)
    dyn = {**omp, "omp_text": "#pragma omp parallel for schedule(dynamic, 8)"}
    fs = diagnose(code(loop, pragmas=dyn), row(cpus_busy=2.0, bound="memory", of_roof=0.98, time_s=20e-6), ctx)
    assert ids(fs)[0] == "at_roof"


def test_a_parallel_loop_whose_inner_bound_is_read_from_the_data_is_tested_with_a_dynamic_schedule():
    from rooflab.diagnosis.evidence import uneven_loop

    # a sparse row's end, read at the shared loop's variable: the work follows the data, with no pattern to deal
    body = ("#pragma omp parallel for\n    for (long i = 0; i < m; i++) {\n        double s = 0.0;\n"
            "        for (int k = ptr[i]; k < ptr[i + 1]; k++)\n            s += val[k] * x[col[k]];\n")
    assert uneven_loop(body) == {"var": "i", "bound": "k < ptr[i + 1]", "read": True}
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "indexed_loads": 1}
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    omp = {"omp": True, "omp_text": "#pragma omp parallel for", "uneven_loop": uneven_loop(body)}
    f = next(x for x in diagnose(code(loop, pragmas=omp), row(cpus_busy=2.0, of_roof=0.3), ctx)
             if x["id"] == "imbalance")
    assert f["experiments"] == ["dynamic"] and not f.get("test")  # dealt in turn, rows would share their lines
    assert "read from memory at i" in text(f["evidence"][0]) and "schedule(dynamic, chunk)" in text(f["advice"])
    # the sorted probe bounds what the indices' order is worth where nothing else shows it (no traffic or waits
    # beyond the model): 1.10x measured ranks under the even schedule's estimate, not at a guessed 2x
    ind = next(x for x in diagnose(code(loop), row(of_roof=0.3), CTX) if x["id"] == "indirect")
    assert ind["probe_bounds"]
    fs = weigh([{**ind, "saving_s": 0.5e-3}, {**f, "saving_s": 0.33e-3}],
               [{**experiment("sorted", "faster", 1.10), "a_time_s": 1e-3}], 1e-3)
    assert [x["id"] for x in fs] == ["imbalance", "indirect"]
    assert fs[1]["saving_s"] == pytest.approx(1e-3 * (1 - 1 / 1.10))
    # no difference: the interval's fast end bounds it, under a finding measured at 1.25x
    conv = {"id": "conversions", "saving_s": 0.1e-3, "test": "single_constants"}
    fs = weigh([{**ind, "saving_s": 0.5e-3}, conv],
               [{**experiment("sorted", "no difference", 1.0), "speedup_ci95": [0.98, 1.06], "a_time_s": 1e-3},
                {**experiment("single_constants", "faster", 1.25), "a_time_s": 1e-3}], 1e-3)
    assert [x["id"] for x in fs] == ["conversions", "indirect"] and fs[1]["inconclusive"]["probe"]
    assert fs[1]["saving_s"] == pytest.approx(1e-3 * (1 - 1 / 1.06))
    # traffic beyond the model that the loop does not wait for (its instructions account for the cycles measured):
    # the probe bounds it still; where the loop waits, the traffic stands on its own
    t = {"method": "cachegrind", "holding_ratio": 2.6, "holding_level": "L3", "holding_bytes": 26e6,
         "model_bytes": 10e6, "l1_ratio": 2.6}
    pred = {"cycles_per_iteration": 25.0, "tool": "llvm-mca"}
    fit = row(of_roof=0.02, level="L3", traffic=t, cycles_per_iteration=24.9)
    ind = next(x for x in diagnose(code(loop, prediction=pred), fit, CTX) if x["id"] == "indirect")
    assert ind["probe_bounds"] and ind["factor"] == pytest.approx(2.6)
    waiting = row(of_roof=0.02, level="L3", traffic=t, cycles_per_iteration=60.0)
    ind = next(x for x in diagnose(code(loop, prediction=pred), waiting, CTX) if x["id"] == "indirect")
    assert not ind.get("probe_bounds")
    # a loop measured waiting for its loads (cycles well beyond the instructions' prediction) keeps its bound
    slow = row(of_roof=0.3, cycles_per_iteration=12.0)
    pred = {"cycles_per_iteration": 4.0, "tool": "llvm-mca"}
    ind = next(x for x in diagnose(code(loop, prediction=pred), slow, CTX) if x["id"] == "indirect")
    assert not ind.get("probe_bounds") and ind["factor"] == pytest.approx(3.0)


def test_an_openmp_build_s_cycles_per_iteration_are_each_thread_s():
    import dataclasses

    from rooflab.diagnosis.engine import _threads_each
    from rooflab.userkernel.spec import ArrayArg

    spec = _spec_with({"x": ArrayArg(("n",), "float64")})
    assert _threads_each(spec, 2) == 1
    assert _threads_each(dataclasses.replace(spec, openmp=True, threads=4), 2) == 2  # no more than the CPUs
    assert _threads_each(dataclasses.replace(spec, openmp=True, threads=2), 16) == 2
    # two threads sharing 1000 iterations of 8 FLOPs in 1 us at 4 GHz: 8 cycles an iteration on each
    loop = {"flops": 8.0, "bytes": 64.0}
    assert cycles_per_iteration(1e-6 * _threads_each(dataclasses.replace(spec, openmp=True, threads=2), 2), 4e9,
                                loop, 8000, 0)[0] == pytest.approx(8.0)


def test_atomic_updates_shared_by_the_threads_are_their_lines_moving_not_the_loads_waiting():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "indexed_loads": 1,
            "indexed_updates": 1, "atomics": 1}
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    pred = {"cycles_per_iteration": 1.6, "tool": "llvm-mca", "model": "sapphirerapids"}
    slow = row(cpus_busy=2.0, of_roof=0.001, cycles_per_iteration=146.0)
    fs = diagnose(code(loop, prediction=pred), slow, ctx)
    assert fs[0]["id"] == "false_sharing" and fs[0]["experiments"] == ["serial"] and fs[0]["test"] == "serial"
    assert fs[0]["factor"] == pytest.approx(146.0 / 1.6)
    assert "atomic update" in text(fs[0]["evidence"][0]) and "reduction(+:h[:n])" in text(fs[0]["advice"])
    ind = next(x for x in fs if x["id"] == "indirect")
    assert not any("waits for its loads" in text(e) for e in ind["evidence"])  # the lines' wait, not the loads'
    # one thread's atomics share nothing: the update through the index is the finding, as before
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.001, cycles_per_iteration=40.0), CTX)
    assert "false_sharing" not in ids(fs) and fs[0]["id"] == "indirect"


def test_a_time_step_loop_is_not_shared_and_a_short_one_is_not_worth_threads():
    from rooflab.diagnosis.engine import _loop_trips
    from rooflab.diagnosis.evidence import inner_trips, loop_heads, repeat_loop, trips

    body = ("{\n    for (long t = 0; t < steps; t++) {\n        for (long i = 1; i < n - 1; i++)\n"
            "            v[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]);\n"
            "        for (long i = 1; i < n - 1; i++)\n            u[i] = v[i];\n    }\n}\n")
    heads = loop_heads(body)
    assert [(h["var"], h["outer"], h["inner"], h["indexes"]) for h in heads] == [
        ("t", True, False, False), ("i", False, True, True), ("i", False, True, True)]
    assert trips(repeat_loop(heads), {"steps": 10000, "n": 64}) == 10000
    assert inner_trips(heads, {"steps": 10000, "n": 64}) == [62, 62]
    assert _loop_trips(heads, {"steps": 10000, "n": 64}) == {"repeats": 10000, "repeat_var": "t",
                                                             "inner_trips": [62, 62]}
    # an outer loop whose variable indexes the data is the loop to share; a constant inner bound may be unrolled
    rows = loop_heads("for (long i = 0; i < m; i++) for (long j = 0; j < 3; j++) y[i] += a[i * 3 + j];")
    assert repeat_loop(rows) is None and inner_trips(rows, {"m": 10}) == []
    assert inner_trips(loop_heads("for (long i = 0; i < n; i += 2) x[i] = 0;"), {"n": 8}) == []  # not by one
    # a variable used through an index computed from it walks the data as well (a 3-D stencil's flat index)
    grid = loop_heads("for (long i = 1; i < n - 1; i++) for (long j = 1; j < n - 1; j++) {\n"
                      "    long c = i * n + j;\n    v[c] = u[c - n] + u[c + n];\n}\n")
    assert repeat_loop(grid) is None
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    every = {"threads": 2, "of_roof": 0.04, "roof_flops_per_s": 2e11, "level": "L1"}
    two = {**CTX, "cpus": 2}
    # without the loops' trips, a one-thread call this long is told of the other CPU
    assert "single_thread" in ids(diagnose(code(loop), row(of_roof=0.07, time_s=3.4e-4, all_threads=every), two))
    # 10,000 steps of 34 ns: threads would need a parallel region per step, each costing more than the step
    steps = {**two, "repeats": 10000, "repeat_var": "t"}
    assert "single_thread" not in ids(diagnose(code(loop), row(of_roof=0.07, time_s=3.4e-4, all_threads=every),
                                               steps))
    # 100 steps of 3.4 ms each: worth sharing, inside each step
    fs = diagnose(code(loop), row(of_roof=0.07, time_s=0.34, all_threads=every), {**steps, "repeats": 100})
    f = next(x for x in fs if x["id"] == "single_thread")
    assert "#pragma omp for" in text(f["advice"]) and "repeats over the same data" in text(f["evidence"][-1])


def test_a_vector_loop_entered_for_a_few_iterations_at_a_time_is_short_trips():
    from rooflab.diagnosis.rules.facts import Facts
    from rooflab.diagnosis.rules.short_trips import few_vectors

    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512,
            "element_bits": 64}
    pred = {"cycles_per_iteration": 2.4, "tool": "llvm-mca", "model": "sapphirerapids"}
    ctx = {**CTX, "inner_trips": [62, 62]}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.07, cycles_per_iteration=13.2), ctx)
    assert fs[0]["id"] == "short_trips" and fs[0]["factor"] == 4.0  # 5.5x slower than predicted, capped
    assert "7.8 iterations of its 8-lane vector loop" in text(fs[0]["evidence"][0])
    # long rows, a loop running at its prediction, or no prediction: nothing said
    # a stencil of short rows at 60% of its L3 roof: its bandwidth, not its entries, takes the time beyond its body
    near = row(of_roof=0.6, level="L3", cycles_per_iteration=16.4)
    assert few_vectors(Facts(code(loop, prediction={**pred, "cycles_per_iteration": 4.2}), near, ctx)) == []
    # rows of 126 doubles, 15.8 vector iterations: the entries cannot double its time
    assert few_vectors(Facts(code(loop, prediction=pred), row(of_roof=0.3, cycles_per_iteration=31.6),
                             {**CTX, "inner_trips": [126]})) == []
    long_rows = {**CTX, "inner_trips": [1022]}
    slow = row(of_roof=0.07, cycles_per_iteration=13.2)
    assert few_vectors(Facts(code(loop, prediction=pred), slow, long_rows)) == []
    assert few_vectors(Facts(code(loop, prediction=pred), row(of_roof=0.07, cycles_per_iteration=3.0), ctx)) == []
    assert few_vectors(Facts(code(loop), row(of_roof=0.07, cycles_per_iteration=13.2), ctx)) == []
    # the prediction without its share of waits reads without a blank figure
    f = Facts(code(loop, prediction={**pred, "block_rthroughput": 2.2}), row(), ctx)
    assert "—" not in text(f.prediction_evidence()[0]) and "would allow 2.2" in text(f.prediction_evidence()[0])


def test_on_a_tie_the_finding_about_the_code_comes_before_more_threads():
    from rooflab.interpret.explain import _sorted

    fs = [{"id": "single_thread", "saving_s": 1.0e-3}, {"id": "indirect", "saving_s": 0.95e-3}]
    assert [f["id"] for f in _sorted(fs)] == ["indirect", "single_thread"]
    fs[1]["saving_s"] = 0.55e-3  # a finding about the code goes first while it saves half what threads' bound does
    assert [f["id"] for f in _sorted(fs)] == ["indirect", "single_thread"]
    fs[1]["saving_s"] = 0.45e-3  # threads' bound is more than twice as much: they go first, against an estimate
    assert [f["id"] for f in _sorted(fs)] == ["single_thread", "indirect"]
    # against a gain its experiment measured, the bound of perfect scaling needs more than three times as much (it is
    # weighed as any untested bound is, and then as advice any kernel gets)
    fs[1]["confirmed"] = {"experiment": "x", "speedup": 1.74}
    fs[1]["saving_s"] = 0.35e-3
    assert [f["id"] for f in _sorted(fs)] == ["indirect", "single_thread"]
    fs[1]["saving_s"] = 0.25e-3
    assert [f["id"] for f in _sorted(fs)] == ["single_thread", "indirect"]
    # beside a measured gain elsewhere, an untested finding about the code still goes before the CPUs' bound alike
    fs = [{"id": "single_thread", "saving_s": 1.0e-3}, {"id": "indirect", "saving_s": 1.0e-3},
          {"id": "aliasing", "saving_s": 0.17e-3, "confirmed": {"experiment": "restrict", "speedup": 1.21}}]
    assert [f["id"] for f in _sorted(fs)] == ["indirect", "single_thread", "aliasing"]
    # measured as well (its OpenMP build): the larger measured saving first
    fs = [{"id": "single_thread", "saving_s": 1.0e-3, "confirmed": {"experiment": "openmp", "speedup": 2.0}},
          {"id": "indirect", "saving_s": 0.95e-3, "confirmed": {"experiment": "x", "speedup": 1.74}}]
    assert [f["id"] for f in _sorted(fs)] == ["single_thread", "indirect"]


def test_an_experiment_that_is_the_fix_itself_refutes_even_when_the_loop_did_not_change():
    # restrict on every pointer is the advice itself: no change and no gain means aliasing was not the reason
    same = {**experiment("restrict", "no difference", 1.0), "speedup_ci95": [0.99, 1.01], "a_time_s": 4.0,
            "loop_unchanged": True}
    (f,) = weigh([{"id": "aliasing", "saving_s": 3.0}], [same])
    assert f["refuted"] and f["saving_s"] == 0


def test_a_vector_math_build_that_left_the_loop_scalar_tested_nothing_about_the_calls():
    # expf's results summed into a double in order: the sum keeps the loop scalar, so the build that would call
    # libmvec changed nothing; the calls are not refuted by it
    same = {**experiment("vector_math", "no difference", 0.99), "speedup_ci95": [0.95, 1.04], "a_time_s": 5e-4,
            "loop_unchanged": True}
    (f,) = weigh([{"id": "calls", "saving_s": 4e-4, "test": "vector_math"}], [same])
    assert not f.get("refuted") and f["inconclusive"]["loop_unchanged"] and f["saving_s"] == 4e-4
    # where it did vectorize the loop and gained nothing, it refutes as the fix itself does
    changed = {**same, "loop_unchanged": False, "speedup_ci95": [0.99, 1.01]}
    (f,) = weigh([{"id": "calls", "saving_s": 4e-4, "test": "vector_math"}], [changed])
    assert f["refuted"]


def test_an_experiment_that_only_approaches_the_fix_confirms_at_least_its_gain():
    # blocking alone gains 1.24x; the BLAS measured alongside says a tuned kernel gains 2.6x: the finding keeps that
    blocked = {**experiment("blocked", "faster", 1.24), "a_time_s": 1.0}
    (f,) = weigh([{"id": "reuse", "saving_s": 0.62}], [blocked])
    assert f["confirmed"]["speedup"] == 1.24 and f["saving_s"] == 0.62
    # an exact fix ranks by what it measured
    exact = {**experiment("dynamic", "faster", 1.5), "a_time_s": 1.0}
    (g,) = weigh([{"id": "imbalance", "saving_s": 0.1}], [exact])
    assert g["saving_s"] == pytest.approx(1 / 3)


# ------------------------------------------------------------------------------ data, threads and stores

HISTOGRAM = """void h(const double *x, long n, long *counts)
{
    int rows[64][8] = {{0}};
#pragma omp parallel
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long lo = n * t / nt, hi = n * (t + 1) / nt;
        for (long i = lo; i < hi; i++)
            rows[t][(int)((x[i] - 0.5) * 8)]++;
    }
    for (int b = 0; b < 8; b++)
        for (int t = 0; t < 64; t++)
            counts[b] += rows[t][b];
}
"""


def test_each_thread_updating_its_own_element_in_a_loop_is_found_in_the_source():
    from rooflab.diagnosis.evidence import thread_slots

    assert thread_slots(HISTOGRAM) == [{"array": "rows", "index": "t"}]
    # a struct's field, and the thread number used directly
    body = "{\n#pragma omp parallel\n{ int id = omp_get_thread_num();\n for (i = 0; i < n; i++) { acc[id].v += x[i]; } } }"
    assert thread_slots(body) == [{"array": "acc", "index": "id"}]
    direct = "{\n#pragma omp parallel for\n for (i = 0; i < n; i++) s[omp_get_thread_num()] += x[i]; }"
    assert thread_slots(direct)[0]["array"] == "s"
    # written once per thread (after a local sum), or in a loop of a few iterations: no traffic to speak of
    once = "{\n#pragma omp parallel\n{ int t = omp_get_thread_num(); double s = 0;\n for (i = 0; i < n; i++) s += x[i];\n p[t] = s; } }"
    assert thread_slots(once) == []
    few = "{\n#pragma omp parallel\n{ int t = omp_get_thread_num(); int m[8];\n for (int b = 0; b < 8; b++) rows[t][b] = m[b]; } }"
    assert thread_slots(few) == []
    assert thread_slots(HISTOGRAM.replace("#pragma omp parallel\n", "")) == []  # no parallel region


def test_the_unshared_copy_spaces_each_threads_element_by_a_line_and_refuses_a_parameter():
    from rooflab.diagnosis.experiments import PAD, with_unshared_slots

    out = with_unshared_slots(HISTOGRAM, ["rows"], ["x", "n", "counts"])
    assert f"int rows[(64) * {PAD}][8]" in out
    assert f"rows[(t) * {PAD}][(int)((x[i] - 0.5) * 8)]++" in out and f"rows[(t) * {PAD}][b]" in out
    assert with_unshared_slots(HISTOGRAM, ["counts"], ["x", "n", "counts"]) is None  # the caller's memory


def test_false_sharing_is_found_for_an_openmp_kernel_and_tested_by_the_unshared_copy():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": ""}
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    pragmas = {"omp": True, "omp_text": "#pragma omp parallel", "thread_slots": [{"array": "rows", "index": "t"}]}
    fs = diagnose(code(loop, pragmas=pragmas), row(cpus_busy=1.9, of_roof=0.05), ctx)
    f = next(x for x in fs if x["id"] == "false_sharing")
    assert f["experiments"] == ["unshared"] and "`rows[t]`" in text(f["evidence"][0])
    # one thread: nothing shared
    assert "false_sharing" not in ids(diagnose(code(loop, pragmas=pragmas), row(of_roof=0.05), CTX))


def test_subnormal_values_in_the_arrays_are_named_and_tested_with_flush_to_zero_even_at_the_roof():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    sub = {"share": 0.5, "arrays": {"dv": 1.0}}
    fs = diagnose(code(loop), row(of_roof=0.3, subnormals=sub), CTX)
    assert fs[0]["id"] == "denormals" and fs[0]["experiments"] == ["ftz"]
    assert "50%" in text(fs[0]["evidence"][0]) and "dv" in text(fs[0]["evidence"][1])
    # at what looks like its roof the slow path may be what holds it there: named beside it, to be tested (and
    # refuted where the core handles them at full speed)
    at = diagnose(code(loop), row(of_roof=0.95, subnormals=sub), CTX)
    assert sorted(ids(at)) == ["at_roof", "denormals"]
    (f, g) = weigh(at, [{**experiment("ftz", "no difference", 1.0), "speedup_ci95": [0.99, 1.01]}], 1e-3)
    assert f["id"] == "at_roof" and g["refuted"]
    # a trace of them is no finding
    assert "denormals" not in ids(diagnose(code(loop), row(of_roof=0.3, subnormals={"share": 1e-4,
                                                                                     "arrays": {"y": 1e-4}}), CTX))
    # confirmed by flush-to-zero, it ranks by what that gained; unchanged by it, refuted
    (f, *rest) = weigh(fs, [{**experiment("ftz", "faster", 1.3), "a_time_s": 1e-3}], 1e-3)
    assert f["id"] == "denormals" and f["confirmed"] and f["saving_s"] == pytest.approx(1e-3 * (1 - 1 / 1.3))
    weighed = weigh(fs, [{**experiment("ftz", "no difference", 1.0), "speedup_ci95": [0.99, 1.01]}], 1e-3)
    assert next(x for x in weighed if x["id"] == "denormals")["refuted"]


def test_a_flushed_build_is_checked_up_to_the_smallest_normal_number():
    # a gain applied to the subnormal tail of a signal: with flush-to-zero the outputs are 0, which is what the
    # mode does, not a wrong result; a difference above the smallest normal float still counts
    x = ArraySpec((64,), "float32", 1e-39, seed=1, skew=0, name="x")
    check = (("y", "np.float32(0.5) * x"),)
    flushed = np.zeros(64, np.float32)
    assert Checker((("x", x), ("y", x)), (), check)([x.make(), flushed]) == pytest.approx(1.0)
    assert Checker((("x", x), ("y", x)), (), check, flushed=True)([x.make(), flushed]) == 0.0
    wrong = np.full(64, 0.25, np.float32)
    assert Checker((("x", x), ("y", x)), (), check, flushed=True)([x.make(), wrong]) == pytest.approx(0.25)


def test_the_share_of_subnormal_values_is_counted_in_each_float_array():
    import numpy as np

    from rooflab.kernels.runner import ArraySpec, CKernel, subnormals

    k = CKernel("k", "lib.so", "f", ("double*", "double*", "long*"),
                (ArraySpec((4,), name="y"), ArraySpec((4,), name="x"), ArraySpec((4,), "int64", name="i")))
    y = np.array([1e-310, 0.0, 1.0, -5e-320])
    x = np.ones(4)
    got = subnormals(k, [y, x, np.zeros(4, np.int64)])
    assert got == {"share": 2 / 8, "arrays": {"y": 0.5}}
    import rooflab.kernels.runner as runner

    small = runner.SCAN_CHUNK
    try:  # scanned in slices, the same count
        runner.SCAN_CHUNK = 3
        assert subnormals(k, [y.reshape(2, 2), x, np.zeros(4, np.int64)]) == got
    finally:
        runner.SCAN_CHUNK = small
    assert subnormals(k, [x, x, np.zeros(4, np.int64)]) is None


def test_arrays_only_written_are_told_from_arrays_also_read():
    from rooflab.diagnosis.evidence import written_only

    body = "void f(double *a, const double *b, double *c, long n) {\n for (i = 0; i < n; i++) a[i] = b[i] + c[i]; }"
    assert written_only(body, ["a", "b", "c"]) == ["a"]  # the parameter list is not a read
    assert written_only("{ a[i] += b[i]; }", ["a", "b"]) == []
    assert written_only("{ C[i][j] = A[j][i]; }", ["A", "C"]) == ["C"]
    assert written_only("{ C[i*n+j] = 0; x = C[0]; }", ["C"]) == []
    assert written_only("{ C[i] == 0; }", ["C"]) == []  # a comparison reads


WA_CTX = {**CTX, "roofs_nt": {"compute": [], "memory": [{"level": "DRAM", "value": 3e10, "kernel": "copy_nt"}]},
          "roofs": {"compute": [], "memory": [*CTX["roofs"]["memory"][:3],
                                              {"level": "DRAM", "value": 2e10, "kernel": "copy"}]}}


def test_write_allocate_for_a_dram_stream_that_only_writes_an_array_with_ordinary_stores():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    only = {"omp": False, "write_only": ["a"]}
    c = code(loop, audit={"loads": 2, "stores": 1, "nt_stores": 0}, pragmas=only)
    fs = diagnose(c, row(level="DRAM", of_roof=0.95), WA_CTX)  # at the roof of ordinary stores
    assert ids(fs) == ["write_allocate"] and fs[0]["experiments"] == ["streaming_stores"]
    # what the saved reads give: the roofs' ratio, not the rest of its distance to the roof
    assert fs[0]["factor"] == pytest.approx(1.5) and "1.50x" in text(fs[0]["evidence"][1])
    # far below the roof of ordinary stores something else holds it back (a strided read, a page walk per step)
    assert "write_allocate" not in ids(diagnose(c, row(level="DRAM", of_roof=0.38), WA_CTX))
    # streaming stores already, an array also read, data in a cache, or no gain here: none
    nt = code(loop, audit={"loads": 2, "stores": 1, "nt_stores": 1}, pragmas=only)
    assert "write_allocate" not in ids(diagnose(nt, row(level="DRAM", of_roof=0.95), WA_CTX))
    read = code(loop, audit={"loads": 2, "stores": 1, "nt_stores": 0}, pragmas={"omp": False, "write_only": []})
    assert "write_allocate" not in ids(diagnose(read, row(level="DRAM", of_roof=0.95), WA_CTX))
    assert "write_allocate" not in ids(diagnose(c, row(level="L2", of_roof=0.95), WA_CTX))
    flat = {**WA_CTX, "roofs_nt": {"memory": [{"level": "DRAM", "value": 2.1e10, "kernel": "copy_nt"}]}}
    assert "write_allocate" not in ids(diagnose(c, row(level="DRAM", of_roof=0.95), flat))


def test_the_streaming_store_gain_is_scaled_to_the_share_of_the_traffic_written():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    c = code(loop, audit={"loads": 2, "stores": 1, "nt_stores": 0}, pragmas={"omp": False, "write_only": ["e"]})
    # a copy (half its bytes written): the roofs' own ratio, measured on a copy
    copy_like = row(level="DRAM", of_roof=0.95, bytes=16e6, arrays_bytes={"x": 8e6, "e": 8e6})
    assert diagnose(c, copy_like, WA_CTX)[0]["factor"] == pytest.approx(1.5)
    # an array of records read whole, one double written per record: 8 of the 72 bytes moved are written
    records = row(level="DRAM", of_roof=0.95, bytes=40e6, arrays_bytes={"p": 64e6, "e": 8e6},
                  traffic={"method": "cachegrind", "holding_ratio": 1.8, "model_bytes": 40e6})
    assert "write_allocate" not in ids(diagnose(c, records, WA_CTX))  # 1 + 0.5 * (8/72) / (1/2): 1.11x, too little
    # a cache simulation that kept half the data (traffic counted at half the model) does not make it write-only
    kept = row(level="DRAM", of_roof=0.95, bytes=16e6, arrays_bytes={"x": 8e6, "e": 8e6},
               traffic={"method": "cachegrind", "holding_ratio": 0.5, "model_bytes": 16e6})
    assert diagnose(c, kept, WA_CTX)[0]["factor"] == pytest.approx(1.5)
    # a kernel that only writes: twice the copy's share, at most 2x
    only = row(level="DRAM", of_roof=0.95, bytes=8e6, arrays_bytes={"e": 8e6})
    assert diagnose(c, only, WA_CTX)[0]["factor"] == pytest.approx(2.0)


def test_an_array_of_records_read_for_some_fields_is_strided_access():
    from rooflab.diagnosis.evidence import partial_records, record_layouts

    src = """
typedef struct { double x, y, z; float w; int id; char tag[3]; } body;   // 8*3 + 4 + 4 + 3 -> 40 with padding
struct cell { double v; double *next; };
typedef struct { double a; struct cell c; } nested;  /* a field of a record type: not laid out */
void energy(long n, const body *b, double *e) {
    for (long i = 0; i < n; i++)
        e[i] = b[i].x * b[i].w;
}
void all_fields(long n, struct cell *c, double *e) {
    for (long i = 0; i < n; i++)
        e[i] = c[i].v + *c[i].next;
}
"""
    lay = record_layouts(src)
    assert lay["body"]["bytes"] == 40 and lay["body"]["fields"]["w"] == (24, 4)
    assert lay["body"]["fields"]["tag"] == (32, 3)
    assert lay["struct cell"] == {"fields": {"v": (0, 8), "next": (8, 8)}, "bytes": 16}
    assert "nested" not in lay
    energy = src[src.index("void energy"):src.index("void all_fields")]
    assert partial_records(src, energy) == [{"array": "b", "record": "body", "var": "i", "used": ["w", "x"],
                                              "used_bytes": 12, "record_bytes": 40}]
    assert partial_records(src, src[src.index("void all_fields"):]) == []  # every byte of each record used
    empty = "typedef struct { double a[0]; double b; } r;\nvoid g(long n, r *p, double *e) {\n" \
            "    for (long i = 0; i < n; i++)\n        e[i] = p[i].a[0];\n}\n"
    assert partial_records(empty, empty[empty.index("void g"):]) == []  # a field of no bytes: nothing to divide
    # the finding: beyond L1, with the traffic counted above the model
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    c = code(loop, pragmas={"omp": False, "partial_records": partial_records(src, energy)})
    counted = row(level="DRAM", of_roof=0.5, traffic={"method": "cachegrind", "holding_ratio": 2.6,
                                                     "holding_level": "DRAM", "model_bytes": 20e6})
    fs = diagnose(c, counted, CTX)
    assert ids(fs)[0] == "strided" and fs[0]["factor"] == pytest.approx(2.6)
    assert "is a body of 40 bytes, of which it uses w, x (12 bytes)" in text(fs[0]["evidence"][0])
    # the traffic at the model (the records stay in a cache between passes): no finding from the layout alone
    at_model = row(level="DRAM", of_roof=0.5, traffic={"method": "cachegrind", "holding_ratio": 1.05,
                                                      "holding_level": "DRAM", "model_bytes": 20e6})
    assert "strided" not in ids(diagnose(c, at_model, CTX))
    assert "strided" not in ids(diagnose(c, row(level="L1", of_roof=0.5), CTX))


def test_a_loop_that_reads_what_it_writes_is_judged_at_dram_by_the_streaming_store_roof():
    from rooflab.diagnosis.evidence import roofs_for
    from rooflab.userkernel.spec import load_spec

    def ceil(level, kernel, gbs):
        return {"level": level, "kernel": kernel, "threads": 1, "bytes_per_s": gbs * 1e9, "status": "ok"}

    doc = {"run_id": 1, "ceilings": {"compute": [], "bandwidth": [
        ceil("L2", "copy", 200), ceil("DRAM", "copy", 25), ceil("DRAM", "triad", 24), ceil("DRAM", "copy_nt", 40),
        ceil("DRAM", "triad_nt", 38)]}}
    import tempfile
    from pathlib import Path

    d = Path(tempfile.mkdtemp())
    (d / "k.c").write_text("void f(double *a, const double *b, long n) { for (long i = 0; i < n; i++) a[i] += b[i]; }")
    (d / "k.toml").write_text('[[kernel]]\nsource = "k.c"\nfunction = "f"\nflops = "n"\nbytes = "24*n"\n'
                              'sizes = {n = [100]}\nargs = {a = {shape = ["n"], output = true}, b = {shape = ["n"]}, '
                              'n = "n"}\n')
    spec = load_spec(d / "k.toml")[0]
    dram = lambda roofs: next(m for m in roofs["memory"] if m["level"] == "DRAM")  # noqa: E731
    one, _ = roofs_for([doc], spec, 1, ("copy", "triad"), {"pragmas": {"write_only": []}})
    assert dram(one)["kernel"] == "copy_nt" and dram(one)["value"] == 40e9
    assert next(m for m in one["memory"] if m["level"] == "L2")["kernel"] == "copy"  # in a cache: as before
    one, _ = roofs_for([doc], spec, 1, ("copy", "triad"), {"pragmas": {"write_only": ["a"]}})
    assert dram(one)["kernel"] == "copy"


def test_page_strides_on_small_pages_beyond_the_tlbs_reach_are_tested_with_huge_pages():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    ctx = {**CTX, "small_pages": {"text": "huge_pages = false in the spec", "args": {}}, "tlb_entries": 3584,
           "page_rows": [("B", 8000)]}
    big = row(level="DRAM", of_roof=0.35, working_set_bytes=64 << 20)
    fs = diagnose(code(loop), big, ctx)
    f = next(x for x in fs if x["id"] == "tlb")
    assert f["experiments"] == ["huge_pages"] and "16384 pages" in text(f["evidence"][0])
    assert "3584" in text(f["evidence"][1]) and "8000 bytes" in text(f["evidence"][2])
    # on huge pages, within the TLB's reach, rows under a page, or at the roof: none
    assert "tlb" not in ids(diagnose(code(loop), big, {**ctx, "small_pages": None}))
    assert "tlb" not in ids(diagnose(code(loop), row(level="DRAM", of_roof=0.35, working_set_bytes=8 << 20), ctx))
    assert "tlb" not in ids(diagnose(code(loop), big, {**ctx, "page_rows": []}))
    assert "tlb" not in ids(diagnose(code(loop), {**big, "of_roof": 0.7}, ctx))
    # where the OS does not tell the TLB's size, a usual one is assumed and said
    f = next(x for x in diagnose(code(loop), big, {**ctx, "tlb_entries": None}) if x["id"] == "tlb")
    assert "not told by the OS" in text(f["evidence"][1])


def test_the_tlb_size_is_read_where_the_os_gives_it(tmp_path):
    from rooflab.machine.env import tlb_entries

    (tmp_path / "amd").write_text("processor\t: 0\nTLB size\t: 3584 4K pages\nflags\t: fpu\n")
    (tmp_path / "intel").write_text("processor\t: 0\nflags\t: fpu\n")
    assert tlb_entries(str(tmp_path / "amd")) == 3584 and tlb_entries(str(tmp_path / "intel")) is None


def test_arrays_asked_on_small_pages_are_advised_off_huge_pages():
    import numpy as np

    from rooflab.timing.memory import HUGE_FROM, aligned_array

    a = aligned_array(HUGE_FROM // 8, np.float64, 1.0, skew=1088, huge=False)
    b = aligned_array(HUGE_FROM // 8, np.float64, 1.0, skew=1088)
    assert a.ctypes.data % 4096 == 1088 and b.ctypes.data % 4096 == 1088 and a.sum() == b.sum() == HUGE_FROM // 8
    # the advice each mapping carries (Linux with transparent huge pages: VmFlags nh, none; hg, asked for)
    from rooflab.timing.memory import thp_mode

    if thp_mode() is None:
        return
    try:
        with open("/proc/self/smaps") as f:
            smaps = f.read()
    except OSError:
        return

    def flags(addr: int) -> set:
        inside = False
        for line in smaps.splitlines():
            head = line.split()[0] if line else ""
            if "-" in head and ":" not in head:
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= addr < hi
            elif inside and line.startswith("VmFlags:"):
                return set(line.split()[1:])
        return set()

    assert "nh" in flags(a.ctypes.data) and "hg" not in flags(a.ctypes.data)
    assert "hg" in flags(b.ctypes.data)


def test_a_kernel_that_computes_nothing_is_judged_by_its_bandwidth():
    from rooflab.model.roofline import place

    roofs = {"compute": [{"value": 1e11, "name": "fp64 FMA"}], "memory": [{"level": "DRAM", "value": 2e10}]}
    p = place(0.0, 1e9, 0.1, 1e9, roofs, {"L1": 48 << 10, "L2": 1 << 20, "L3": 32 << 20})
    assert p["bound"] == "memory" and p["of_roof"] == pytest.approx(0.5) and p["roof_bytes_per_s"] == 2e10
    assert p["level"] == "DRAM" and not p["intensity"]


def test_innermost_loops_that_step_by_a_row_are_read_from_the_source():
    from rooflab.diagnosis.evidence import column_walks

    ijk = """{ for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            float s = 0.0f;
            for (long k = 0; k < K; k++) s += A[i * K + k] * B[k * N + j];
            C[i * N + j] = s;
        } }"""
    assert column_walks(ijk) == [{"array": "B", "index": "[k * N + j]", "var": "k", "stride": "N", "sum": True}]
    ikj = ijk.replace("for (long j = 0; j < N; j++) {", "for (long k = 0; k < K; k++) {").replace(
        "for (long k = 0; k < K; k++) s", "for (long j = 0; j < N; j++) s")
    assert column_walks(ikj) == []  # j innermost: B[k * N + j] and A[i * K + k] walk rows or stay put
    syrk = "{ for (i = 0; i < n; i++) for (k = 0; k < m; k++) for (j = 0; j <= i; j++) C[i][j] += A[i][k] * A[j][k]; }"
    assert column_walks(syrk) == [{"array": "A", "index": "[j][k]", "var": "j", "stride": "", "sum": False}]
    assert column_walks("{ for (i = 0; i < n; i++) y[2 * i] = x[i]; }") == []  # every other element: one line
    assert column_walks("{ for (i = 0; i < n; i++) y[i] = x[i * 16]; }")[0]["stride"] == "16"
    # an index with the loop variable inside a product: T[i][j][k] flattened, summed over j
    middle = "{ for (i = 0; i < a; i++) for (k = 0; k < c; k++) { s = 0; for (j = 0; j < b; j++) " \
             "s += T[(i * b + j) * c + k]; S[i * c + k] = s; } }"
    assert column_walks(middle) == [{"array": "T", "index": "[(i * b + j) * c + k]", "var": "j", "stride": "c",
                                     "sum": True}]


def test_an_index_hidden_in_a_macro_is_read_with_the_macro_expanded():
    from rooflab.diagnosis.evidence import column_walks, expand_macros

    src = ("#include <math.h>\n#define IDX(i, j) ((i) * n + (j))\n#define LONG_NAME \\\n  2.0\n"
           "void f(long n, double *A, const double *B)\n{\n#pragma omp simd\n"
           "    for (long k = 0; k < n; k++) A[IDX(0, k)] += B[IDX(k, 3)] * LONG_NAME; /* IDX(a, b) */\n}\n")
    body = src[src.index("void"):]
    out = expand_macros(src, body)
    assert "#pragma omp simd" in out and "B[((k) * n + (3))]" in out and "2.0" in out
    assert column_walks(out) == [{"array": "B", "index": "[((k) * n + (3))]", "var": "k", "stride": "n",
                                  "sum": False}]
    assert column_walks(body) == []  # unexpanded, the macro hides the walk
    assert expand_macros("void f(void) { }", "{ x[i] = 1; }") == "{ x[i] = 1; }"  # no macro: as it is
    # a macro the preprocessor rejects leaves the body as it was
    assert expand_macros("#define BAD(x\n", body) == body


def test_a_walking_loop_carries_a_sum_where_it_accumulates_into_one_place():
    from rooflab.diagnosis.evidence import carries_sum

    assert carries_sum(" s += x[k * n + j]; ", "k")  # a scalar
    assert carries_sum(" A[i][j] -= A[i][k] * A[k][j]; ", "k")  # LU's element, the same for every k
    assert not carries_sum(" y[k] += a * x[k]; ", "k")  # a different element each time: no sum carried
    assert not carries_sum(" Bt[j * n + i] = B[i * n + j]; ", "j")  # a copy
    assert not carries_sum(" if (a[k] == b) c = 1; ", "k")


def test_a_flat_index_is_read_as_a_polynomial_in_the_loop_variables():
    from rooflab.diagnosis.evidence import flat_stride

    assert flat_stride("(i * b + j) * c + k", "j") == "c" and flat_stride("(i * b + j) * c + k", "k") == "1"
    assert flat_stride("(i - 1) * n + j", "i") == "n" and flat_stride("n * (i + 1) - 2", "i") == "n"
    assert flat_stride("2 * i + 1", "i") == "2" and flat_stride("i * ld * 3", "i") == "3*ld"
    assert flat_stride("i * n + j", "k") is None  # not used
    assert flat_stride("idx[i]", "i") is None and flat_stride("i * i", "i") is None  # neither read as linear


def test_a_column_walk_that_waits_for_memory_is_strided_where_no_traffic_was_counted():
    loop = {**LOOP_SCALAR_SUM, "vector_bits": 0}
    walks = {"omp": False, "column_walks": [{"array": "B", "index": "[k * N + j]", "var": "k", "stride": "N",
                                             "sum": True}]}
    pred = {"cycles_per_iteration": 6.0, "block_rthroughput": 1.8, "bound": "dependencies", "dependency_share": 0.86,
            "tool": "llvm-mca", "model": "znver4"}
    c = code(loop, pragmas=walks, prediction=pred)
    fs = diagnose(c, row(level="L3", of_roof=0.01, cycles_per_iteration=22.5, bound="compute"), CTX)
    f = next(x for x in fs if x["id"] == "strided")
    # the walking loop carries the product's in-order sum: the interchange removes the wait and the chain
    assert f["factor"] == pytest.approx(6.0 / 1.8 * 22.5 / 6.0) and "`B[k * N + j]`" in text(f["evidence"][0])
    assert "makes the sums independent" in text(f["evidence"][1])
    # without a sum in it, the walk is strided when the loop waits for memory, and not when it runs at its pace
    plain = {**loop, "accumulators": 0, "longest_chain": 0, "chain_op": ""}
    c = code(plain, pragmas=walks, prediction=pred)
    f = next(x for x in diagnose(c, row(level="L3", of_roof=0.01, cycles_per_iteration=22.5, bound="compute"), CTX)
             if x["id"] == "strided")
    assert f["factor"] == pytest.approx(22.5 / 6.0) and "waiting for memory" in text(f["evidence"][1])
    fast = diagnose(c, row(level="L3", of_roof=0.01, cycles_per_iteration=7.0, bound="compute"), CTX)
    assert "strided" not in ids(fast)
    # counted: L1 bringing in no more than the model says the walk's lines stay in L1, and it costs nothing
    counted = row(level="L3", of_roof=0.01, cycles_per_iteration=22.5, traffic={"holding_ratio": 1.0,
                                                                                   "l1_ratio": 1.2})
    assert "strided" not in ids(diagnose(c, counted, CTX))
    # L1 bringing in 3x (the column's lines fetched again from L2 at each step) while the loop waits: strided
    refetched = row(level="L3", of_roof=0.36, cycles_per_iteration=10.3,
                    traffic={"method": "cachegrind", "holding_ratio": 0.67, "l1_ratio": 3.0})
    fs = diagnose(code(loop, pragmas=walks, prediction={**pred, "cycles_per_iteration": 3.1}), refetched, CTX)
    assert fs[0]["id"] == "strided" and "L1 brought in 3.0x" in text(fs[0]["evidence"][-1])
    # a walk carrying an in-order sum whose lines the next element reuses from L1 (traffic at the model): the
    # interchange still makes the sums independent, so the walk is the finding, and the sum's goes right after it
    c = code(loop, pragmas=walks, prediction={**pred, "cycles_per_iteration": 4.0, "block_rthroughput": 1.0})
    fs = diagnose(c, row(level="L3", of_roof=0.49, cycles_per_iteration=4.2,
                         traffic={"method": "cachegrind", "holding_ratio": 1.0, "l1_ratio": 1.0}), CTX)
    assert ids(fs)[:2] == ["strided", "reduction_chain"]


def test_a_matrix_product_whose_traffic_could_not_be_counted_is_judged_by_the_blas_alongside_it():
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    live = {"kind": "blas_gemm", "ratio": 0.36, "ci95": [0.35, 0.37], "rounds": 10, "n": 960, "threads": 1,
            "reference_flops_per_s": 9e10}
    from rooflab.i18n import msg

    skipped = {"skipped": msg("not counted: cachegrind did not finish within {t:.0f} s at {size}", t=12.0,
                              size="n=530")}
    r = row(level="L3", bound="compute", of_roof=0.3, reference=live, traffic=skipped)
    fs = diagnose(code(loop), r, {**CTX, "gemm_like": True})
    f = next(x for x in fs if x["id"] == "reuse")
    assert f["experiments"] == ["blocked"] and f["factor"] == pytest.approx(1 / 0.36)
    assert "did not finish within 12 s" in text(f["evidence"][0])
    # not a matrix product, or as fast as the BLAS: nothing to say without the traffic
    assert "reuse" not in ids(diagnose(code(loop), r, {**CTX, "gemm_like": False}))
    fast = {**r, "reference": {**live, "ratio": 0.7, "ci95": [0.69, 0.71]}}
    assert "reuse" not in ids(diagnose(code(loop), fast, {**CTX, "gemm_like": True}))


def test_a_count_that_runs_past_its_limit_is_not_counted_and_says_so(tmp_path, monkeypatch):
    from rooflab.counters.perf import ToolTimeout
    from rooflab.diagnosis import evidence
    from rooflab.userkernel.spec import load_spec

    (tmp_path / "k.c").write_text("void f(double *x, long n) { for (long i = 0; i < n; i++) x[i] *= 2.0; }")
    (tmp_path / "k.toml").write_text('[[kernel]]\nsource = "k.c"\nfunction = "f"\nflops = "n"\nbytes = "16*n"\n'
                                     'sizes = {n = [1000000]}\nargs = {x = {shape = ["n"], output = true}, n = "n"}\n')
    spec = load_spec(tmp_path / "k.toml")[0]
    seen = {}

    def slow(*a, **kw):
        seen.update(kw)
        raise ToolTimeout("cachegrind did not finish")

    monkeypatch.setattr(evidence, "count_kernel", slow)
    row_ = {"time_s": 1e-3, "working_set_bytes": 8e6, "level": "L3", "caches": {"L2": 1 << 20}}
    out = evidence.traffic(spec, {"n": 1000000}, {"cache_details": []}, None, row_)
    assert seen["timeout_s"] == evidence.TRAFFIC_TIMEOUT_S
    assert "did not finish within 12 s at n=1000000" in text(out["skipped"])


def test_a_column_walk_in_the_innermost_loop_comes_before_blocking():
    loop = {**LOOP_SCALAR_SUM, "vector_bits": 0}
    live = {"kind": "blas_gemm", "ratio": 0.01, "ci95": [0.01, 0.011], "rounds": 10, "n": 512, "threads": 1,
            "reference_flops_per_s": 9e10}
    walks = {"omp": False, "column_walks": [{"array": "B", "index": "[k * N + j]", "var": "k", "stride": "N",
                                             "sum": True}]}
    r = row(level="L3", bound="compute", of_roof=0.01, reference=live, cycles_per_iteration=22.5,
            traffic={"holding_ratio": 3.0, "l1_ratio": 12.0, "method": "cachegrind", "model_bytes": 3e6,
                     "holding_level": "L3", "flops": 2.7e8})
    ctx = {**CTX, "gemm_like": True}
    assert "reuse" in ids(diagnose(code(loop), r, ctx))  # the i-k-j order: blocking is what is missing
    fs = diagnose(code(loop, pragmas=walks), r, ctx)  # the i-j-k order: the loop order first
    assert "reuse" not in ids(fs) and "strided" in ids(fs)


def test_a_libm_function_no_instruction_computes_is_a_vector_math_call_tested_apart_from_any_sum(tmp_path):
    from rooflab.diagnosis.experiments import variant
    from rooflab.userkernel.spec import load_spec

    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "calls": ["exp"]}
    fs = diagnose(code(loop), row(of_roof=0.07), CTX)
    f = next(x for x in fs if x["id"] == "calls")
    assert f["experiments"] == ["vector_math"] and f["test"] == "vector_math" and f["factor"] == 4.0
    assert "8 elements per call" in text(f["advice"])
    # the build: -ffast-math's vector math calls without its reordering of sums
    (tmp_path / "e.c").write_text("#include <math.h>\nvoid e(long n, double *x) { for (long i = 0; i < n; i++) "
                                  "x[i] = exp(x[i]); }\n")
    (tmp_path / "e.toml").write_text('source = "e.c"\nfunction = "e"\nflops = "n"\nbytes = "16*n"\n'
                                     'sizes = {n = [10]}\n[args]\nn = "n"\nx = {shape = ["n"], output = true}\n')
    spec = load_spec(tmp_path / "e.toml")[0]
    v = variant("vector_math", spec, {"n": 10}, {})
    assert v[0].flags == [*spec.flags, "-ffast-math", "-fno-associative-math"] and v[1] == {"n": 10}
    # sqrt is an instruction once errno is off: -fno-math-errno tests it
    g = next(x for x in diagnose(code({**loop, "calls": ["sqrt"]}), row(of_roof=0.07), CTX) if x["id"] == "calls")
    assert g["experiments"] == ["no_math_errno"] and "test" not in g
    # confirmed by that build, it ranks by its gain
    (h, *_) = weigh(fs, [{**experiment("vector_math", "faster", 5.5), "a_time_s": 1e-3}], 1e-3)
    assert h["id"] == "calls" and h["confirmed"]["speedup"] == 5.5


def test_a_softmax_row_splits_fast_maths_gain_between_its_exp_calls_and_its_sum():
    # exp per element and a running sum in one loop: the vector math build measures the calls, -ffast-math beyond it
    # the sum's partial sums
    loop = {**LOOP_SCALAR_SUM, "calls": ["expf"], "element_bits": 32}
    fs = diagnose(code(loop), row(of_roof=0.05), CTX)
    assert {"calls", "reduction_chain"} <= set(ids(fs))
    out = weigh(fs, [{**experiment("vector_math", "faster", 6.0), "a_time_s": 1.0},
                     {**experiment("fast_math", "faster", 7.2), "a_time_s": 1.0}], 1.0)
    calls, red = (next(f for f in out if f["id"] == i) for i in ("calls", "reduction_chain"))
    assert ids(out)[0] == "calls" and calls["confirmed"]["speedup"] == 6.0
    assert red["confirmed"]["speedup"] == pytest.approx(1.2)


# i = next[i] beside s += v[i]: the next index is loaded from the current one
CHASE = """
    1120:	vaddsd (%rsi,%rax,8),%xmm0,%xmm0
    1125:	mov    (%rdi,%rax,8),%rax
    1129:	dec    %rdx
    112c:	jne    1120 <chase+0x20>
"""


def test_a_load_whose_address_uses_its_own_destination_is_a_pointer_chain():
    d = detail(CHASE)
    assert d["pointer_chains"] == 1 and d["accumulators"] == 1
    assert detail(REDUCTION)["pointer_chains"] == 0 and detail(GATHER)["pointer_chains"] == 0
    listed = "    1120:\tvaddsd (%rax),%xmm0,%xmm0\n    1124:\tmov    0x8(%rax),%rax\n    1128:\ttest   %rax,%rax\n" \
             "    112b:\tjne    1120 <l+0x20>\n"
    assert detail(listed)["pointer_chains"] == 1  # p = p->next
    # a register reused for the last index of an unrolled gather, set afresh from the counter every iteration: no
    # chain (y[i] = 2 * x[idx[i]] at -O3 on a Xeon)
    reused = ("    1048:\tlea    (%r9,%rcx,1),%rdx\n    104c:\tmovslq 0x30(%rdx),%r14\n"
              "    1050:\tvmovsd (%rax,%r14,8),%xmm1\n    1054:\tmovslq 0x1c(%rdx),%rdx\n"
              "    1058:\tvmovhpd (%rax,%rdx,8),%xmm1,%xmm1\n    105e:\tvmovupd %xmm1,(%rdi,%rcx,2)\n"
              "    1064:\tadd    $0x40,%rcx\n    1068:\tcmp    %rcx,%r8\n    106b:\tjne    1048 <g+0x48>\n")
    assert detail(reused)["pointer_chains"] == 0
    # i = next[i] + 1: the update reads the register, the chain goes on
    bumped = ("    1120:\tvaddsd (%rsi,%rax,8),%xmm0,%xmm0\n    1125:\tmov    (%rdi,%rax,8),%rax\n"
              "    1129:\tadd    $0x1,%rax\n    112d:\tdec    %rdx\n    1130:\tjne    1120 <c+0x20>\n")
    assert detail(bumped)["pointer_chains"] == 1


def test_a_chain_of_dependent_loads_sets_the_pace_before_the_sum_beside_it():
    loop = {**LOOP_SCALAR_SUM, "pointer_chains": 1}
    fs = diagnose(code(loop), row(of_roof=0.05, cycles_per_iteration=9.0), CTX)
    assert fs[0]["id"] == "pointer_chase" and "reduction_chain" not in ids(fs)
    assert "measured 9.0 cycles" in text(fs[0]["evidence"][1])
    assert "reduction_chain" in ids(diagnose(code(LOOP_SCALAR_SUM), row(of_roof=0.05), CTX))


# s += val[j] * x[col[j]]: the column index is loaded, then x is read at it
SPMV = """
    1120:	movslq (%rsi,%rax,4),%rcx
    1124:	vmovsd (%r8,%rcx,8),%xmm1
    112a:	vfmadd231sd (%rdx,%rax,8),%xmm1,%xmm0
    1130:	inc    %rax
    1133:	cmp    %rax,%r9
    1136:	jne    1120 <spmv+0x20>
"""


def test_an_element_read_at_an_index_loaded_in_the_same_iteration_is_an_indexed_load():
    assert detail(SPMV)["indexed_loads"] == 1 and detail(SPMV)["pointer_chains"] == 0
    # through arithmetic on the loaded index (a 32-bit index zero-extended and scaled)
    shifted = SPMV.replace("movslq (%rsi,%rax,4),%rcx", "mov    (%rsi,%rax,4),%ecx").replace(
        "vmovsd (%r8,%rcx,8),%xmm1", "shl    $0x3,%rcx\n    1127:\tvmovsd (%r8,%rcx,1),%xmm1")
    assert detail(shifted)["indexed_loads"] == 1
    # none in a plain sum, a pointer chase, or a loop that reloads a pointer from the stack or an invariant address
    assert detail(REDUCTION)["indexed_loads"] == 0 and detail(CHASE)["indexed_loads"] == 0
    reload = SPMV.replace("movslq (%rsi,%rax,4),%rcx", "mov    0x10(%rsp),%rcx").replace(
        "vmovsd (%r8,%rcx,8),%xmm1", "vmovsd (%rcx,%rax,8),%xmm1")
    assert detail(reload)["indexed_loads"] == 0
    assert detail(reload.replace("0x10(%rsp)", "0x8(%rdi)"))["indexed_loads"] == 0


def test_loads_through_an_index_are_indirect_access_sized_by_the_time_they_wait():
    loop = {**LOOP_SCALAR_SUM, "indexed_loads": 1}
    pred = {"tool": "llvm-mca 19", "model": "znver4", "cycles_per_iteration": 3.1, "block_rthroughput": 1.2,
            "bound": "dependencies", "dependency_share": 0.85}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.24, cycles_per_iteration=7.6), CTX)
    f = next(x for x in fs if x["id"] == "indirect")
    assert f["factor"] == pytest.approx(7.6 / 3.1)
    assert "made from a value it loaded" in text(f["evidence"][0]) and "2.5x" in text(f["evidence"][1])
    # no indexed load, no finding
    assert "indirect" not in ids(diagnose(code(LOOP_SCALAR_SUM, prediction=pred), row(of_roof=0.24,
                                                                                        cycles_per_iteration=7.6), CTX))


# zc[i] = za[i] * zb[i] in C99 complex: a NaN result takes a branch to __muldc3 and comes back
CMUL = """
    1110:	vmovsd 0x8(%rsi,%rbx,1),%xmm1
    1116:	vmovsd (%rdx,%rbx,1),%xmm2
    111b:	vmulsd %xmm1,%xmm2,%xmm0
    111f:	vfmadd231sd %xmm5,%xmm3,%xmm0
    1124:	vucomisd %xmm4,%xmm0
    1128:	jp     1161 <cmul+0x61>
    112a:	vmovsd %xmm4,(%rcx,%rbx,1)
    112f:	add    $0x10,%rbx
    1133:	cmp    %rdi,%rbx
    1136:	jne    1110 <cmul+0x10>
    1138:	add    $0x20,%rsp
    113c:	ret
    1161:	vmovsd %xmm5,%xmm5,%xmm0
    1165:	mov    %rcx,0x18(%rsp)
    1178:	call   1030 <__muldc3@plt>
    117d:	mov    0x18(%rsp),%rcx
    119b:	add    $0x10,%rbx
    119f:	cmp    %rbx,%rdi
    11a2:	jne    1110 <cmul+0x10>
    11a8:	jmp    1138 <cmul+0x38>
"""


def test_a_call_on_a_path_the_loop_branches_to_and_comes_back_from_is_a_side_call():
    insns = asm.parse_objdump(CMUL)
    lp = asm.hot_loop(insns)
    assert (lp.start, lp.end) == (0x1110, 0x1136)
    d = asm.detail_loop(insns, lp, "x86_64").to_dict()
    assert d["calls"] == [] and d["side_calls"] == ["__muldc3"]
    # a path that leaves the loop for good (it returns) holds no side call
    leaving = CMUL.replace("    11a2:\tjne    1110 <cmul+0x10>\n    11a8:\tjmp    1138 <cmul+0x38>\n",
                           "    11a2:\tret\n")
    assert leaving != CMUL
    ins2 = asm.parse_objdump(leaving)
    assert asm.side_calls(ins2, asm.hot_loop(ins2)) == []


# if (d[i] > 0) ... else { s = sqrt(...); }: the arm computing the root laid out past the closing branch, which
# branches again to the library's sqrt for the inputs that set errno; both jump back to the rest of the arm
ARM_AFTER_LATCH = """
    1650:	vmovsd (%r14,%rbx,1),%xmm0
    1656:	vmovsd %xmm0,(%r12,%rbx,1)
    165c:	add    $0x8,%rbx
    1660:	cmp    %rbx,%r13
    1663:	je     1700 <k+0x100>
    1665:	vmovsd (%r15,%rbx,1),%xmm2
    166b:	vcomisd %xmm12,%xmm2
    1670:	ja     1650 <k+0x50>
    1672:	vmulsd %xmm2,%xmm2,%xmm10
    1676:	vcomisd %xmm10,%xmm16
    167c:	jb     16a0 <k+0xa0>
    167e:	vmovsd (%r10,%rbx,1),%xmm6
    1684:	jmp    1650 <k+0x50>
    16a0:	vucomisd %xmm10,%xmm12
    16a5:	ja     16c0 <k+0xc0>
    16a7:	vsqrtsd %xmm10,%xmm10,%xmm0
    16ab:	jmp    167e <k+0x7e>
    16c0:	call   1030 <sqrt@plt>
    16c5:	jmp    167e <k+0x7e>
    1700:	ret
"""


def test_a_call_on_an_arm_laid_out_past_the_closing_branch_is_a_side_call():
    insns = asm.parse_objdump(ARM_AFTER_LATCH)
    lp = next(x for x in asm.find_loops(insns) if x.start == 0x1650)
    assert lp.end == 0x1670
    # past the closing branch (ja, taken for one arm), through a branch to the inline root and another to the call
    assert asm.side_calls(insns, lp) == ["sqrt"]
    assert asm.detail_loop(insns, lp, "x86_64").to_dict()["side_calls"] == ["sqrt"]
    # a closing branch whose fall-through leaves for good (the arm returns): no side call
    ret = ARM_AFTER_LATCH.replace("    1684:\tjmp    1650 <k+0x50>\n", "    1684:\tret\n") \
        .replace("16ab:\tjmp    167e <k+0x7e>", "16ab:\tret").replace("16c5:\tjmp    167e <k+0x7e>", "16c5:\tret")
    assert ret.count("ret") == 4
    ins2 = asm.parse_objdump(ret)
    assert asm.side_calls(ins2, next(x for x in asm.find_loops(ins2) if x.start == 0x1650)) == []
    # an outer loop's conditional branch back to the inner loop is not an arm of it: past the inner loop's
    # closing branch, only a jump counts as coming back
    outer = """
    2000:	vaddsd (%rdi,%rax,8),%xmm0,%xmm0
    2005:	add    $0x1,%rax
    2009:	cmp    %rax,%rsi
    200c:	jne    2000 <o+0x0>
    200e:	call   1040 <report@plt>
    2013:	add    $0x1,%rcx
    2017:	cmp    %rcx,%rdx
    201a:	jne    2000 <o+0x0>
    201c:	ret
"""
    ins3 = asm.parse_objdump(outer)
    inner = next(x for x in asm.find_loops(ins3) if x.end == 0x200c)
    assert asm.side_calls(ins3, inner) == []


def test_complex_arithmetic_with_its_nan_recovery_is_a_calls_finding_tested_by_limited_range():
    loop = {**LOOP_SCALAR_SUM, "accumulators": 0, "longest_chain": 0, "side_calls": ["__muldc3"]}
    fs = diagnose(code(loop), row(of_roof=0.44), CTX)
    f = next(x for x in fs if x["id"] == "calls")
    assert f["test"] == "cx_limited_range" and f["experiments"] == ["cx_limited_range"]
    assert "__muldc3" in text(f["evidence"][0]) and "multiplication" in text(f["hypothesis"])
    assert "-fcx-limited-range" in text(f["advice"])
    # sqrt on a side path without gcc's remark: still the errno finding
    g = next(x for x in diagnose(code({**loop, "side_calls": ["sqrt"]}), row(of_roof=0.2), CTX) if x["id"] == "calls")
    assert g["experiments"] == ["no_math_errno"] and "sqrt" in text(g["evidence"][0])


def test_the_loop_without_its_divisions_is_the_same_loop_with_multiplications():
    from rooflab.toolchain.mca import without_division

    loop = "L:\n vmovups (%rcx,%rax,1),%zmm2\n vdivps %zmm1,%zmm2,%zmm0\n vsqrtpd %zmm1,%zmm3\n" \
           " vsqrtsd %xmm1,%xmm2,%xmm3\n divsd %xmm1,%xmm0\n jne L\n"
    assert without_division(loop) == loop.replace("vdivps", "vmulps").replace(" divsd", " mulsd")
    # square roots stay (nothing replaces one by a multiplication); a loop without division has no such variant
    assert without_division("L:\n vaddps %zmm1,%zmm2,%zmm0\n vsqrtpd %zmm1,%zmm3\n jne L\n") is None


def test_a_divider_that_sets_the_pace_of_a_memory_bound_loop_is_found_from_the_prediction():
    loop = {**LOOP_SCALAR_SUM, "accumulators": 0, "longest_chain": 0, "div_sqrt": 1, "vector_fp": 3,
            "scalar_fp": 0, "vector_bits": 512}
    pred = {"tool": "llvm-mca 19", "model": "znver4", "cycles_per_iteration": 6.1, "block_rthroughput": 6.0,
            "bound": "ports", "cycles_without_div": 1.6}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.57, bound="memory", cycles_per_iteration=7.3), CTX)
    f = next(x for x in fs if x["id"] == "div_sqrt")
    assert f["factor"] == pytest.approx(6.1 / 1.6) and f["experiments"] == ["reciprocal"]
    assert "1.6 with the divisions made multiplications" in text(f["evidence"][1])
    # the loop runs far slower than its in-core pace (memory), or the divider costs little: no finding
    for p, cpi in ((pred, 30.0), ({**pred, "cycles_without_div": 5.0}, 7.3)):
        got = diagnose(code(loop, prediction=p), row(of_roof=0.57, bound="memory", cycles_per_iteration=cpi), CTX)
        assert "div_sqrt" not in ids(got)
    # a loop in L2 that waits a little for its loads besides (1.5x to 2x its in-core pace) is still paced by it
    got = diagnose(code(loop, prediction=pred), row(of_roof=0.11, bound="memory", cycles_per_iteration=9.9), CTX)
    assert "div_sqrt" in ids(got)
    # compute-bound, as before, without a prediction
    assert "div_sqrt" in ids(diagnose(code(loop), row(of_roof=0.3, bound="compute"), CTX))


def test_a_product_whose_loop_runs_at_its_chain_s_pace_is_told_the_chain_before_blocking():
    # Cholesky's inner dot product: operands re-fetched from L3 (35x the model), yet the loop runs at the pace of
    # its in-order sum, which llvm-mca's dependency-bound prediction explains
    t = {"method": "cachegrind", "l1_ratio": 100.0, "l1_bytes": 2.9e8, "model_bytes": 2.9e6, "holding_level": "L3",
         "holding_ratio": 34.8, "holding_bytes": 1e8, "flops": 7.2e7}
    live = {"kind": "blas_gemm", "ratio": 0.05, "ci95": [0.04, 0.05], "rounds": 10, "n": 512, "threads": 1,
            "reference_flops_per_s": 3.4e10}
    pred = {"tool": "llvm-mca 19", "model": "znver4", "cycles_per_iteration": 3.1, "block_rthroughput": 1.5,
            "bound": "dependencies", "dependency_share": 0.83}
    r = row(bound="compute", level="L3", of_roof=0.04, traffic=t, reference=live, cycles_per_iteration=2.9,
            flops=7.2e7, **timed(5e-3))
    fs = diagnose(code(LOOP_SCALAR_SUM, prediction=pred), r, {**CTX, "gemm_like": True, "precision": "fp64"})
    assert fs[0]["id"] == "reduction_chain"
    reuse = next(x for x in fs if x["id"] == "reuse")
    assert reuse["factor"] == 1.0 and "pace of its dependency chain" in text(reuse["evidence"][-1])
    # the same loop waiting on memory (measured far above its in-core pace): blocking keeps its full gain
    slow = row(bound="compute", level="L3", of_roof=0.04, traffic=t, reference=live, cycles_per_iteration=12.0,
               flops=7.2e7, **timed(5e-3))
    fs = diagnose(code(LOOP_SCALAR_SUM, prediction=pred), slow, {**CTX, "gemm_like": True, "precision": "fp64"})
    assert next(x for x in fs if x["id"] == "reuse")["factor"] == pytest.approx(20.0)


# while (k < maxit && x*x + y*y <= 4): the escape test leaves the loop, the count closes it
ESCAPE = """
    1140:	vmulsd %xmm0,%xmm0,%xmm2
    1144:	vfmadd231sd %xmm1,%xmm1,%xmm2
    1149:	vcomisd %xmm3,%xmm2
    114d:	ja     1170 <mandel+0x70>
    114f:	vfmsub231sd %xmm1,%xmm1,%xmm0
    1154:	inc    %eax
    1156:	cmp    %eax,%edx
    1158:	jne    1140 <mandel+0x40>
    115a:	ret
    1170:	mov    %eax,(%rdi)
    1172:	ret
"""


def test_a_branch_that_leaves_the_loop_is_an_exit_not_control_flow_within_an_iteration():
    d = detail(ESCAPE)
    assert d["exits"] == 1 and d["branches"] == 0
    fs = diagnose(code({**LOOP_SCALAR_SUM, **{k: d[k] for k in ("branches", "exits")}}, causes=["control_flow"]),
                  row(of_roof=0.05), CTX)
    assert "control_flow" not in ids(fs)
    # the same branch to an arm laid out after the loop that comes back: control flow within the iteration
    back = ESCAPE.replace("    1172:\tret\n", "    1172:\tjmp    1154 <mandel+0x54>\n")
    assert (detail(back)["branches"], detail(back)["exits"]) == (1, 0)
    # a branch to a call's cold path is the call's finding, not control flow
    fs = diagnose(code({**LOOP_SCALAR_SUM, "branches": 1, "side_calls": ["__muldc3"]}), row(of_roof=0.4), CTX)
    assert "control_flow" not in ids(fs) and "calls" in ids(fs)


# a 32 x 32 tile's copy, for (j = jj; j < jj + 32 && j < n; j++): its second bound leaves the loop on counters
TILE_COPY = """
    330:	cmp    %rdx,%rdi
    333:	jle    34b <t+0x8b>
    335:	vmovsd (%r9,%rdx,8),%xmm0
    33b:	add    $0x1,%rdx
    33f:	vmovsd %xmm0,(%rax)
    343:	add    %r14,%rax
    346:	cmp    %r8,%rdx
    349:	jle    330 <t+0x70>
    34b:	add    $0x1,%r10
    34f:	ret
"""
# for (i = 0; i < n; i++) if (s[i] == 0) break;  a search, whose exit tests a byte it loaded
SEARCH = """
    10:	movzbl (%rdi,%rax,1),%edx
    14:	test   %dl,%dl
    16:	je     30 <f+0x30>
    18:	add    $0x1,%rax
    1c:	cmp    %rax,%rsi
    1f:	jne    10 <f+0x10>
    21:	ret
    30:	mov    %eax,(%rcx)
    32:	ret
"""


# while (i < n && s[i] != 0) i++;  the byte tested by the closing branch, the count by an exit
SEARCH_AT_THE_BOTTOM = """
    10:	add    $0x1,%rax
    14:	cmp    %rax,%rdi
    17:	je     1f <f+0x1f>
    19:	cmpb   $0x0,(%rsi,%rax,1)
    1d:	jne    10 <f+0x10>
    1f:	ret
"""


def test_an_exit_on_the_loop_s_counters_is_a_bound_not_a_search():
    assert detail(SEARCH_AT_THE_BOTTOM)["exits"] == 1
    # a bound reloaded from one place every iteration (it may alias a store) is a bound still
    assert detail(SEARCH_AT_THE_BOTTOM.replace("cmpb   $0x0,(%rsi,%rax,1)", "cmp    0x8(%rsi),%rax"))["exits"] == 0
    d = detail(TILE_COPY)
    assert d["exits"] == 0 and d["branches"] == 0  # neither a search nor control flow within the iteration
    assert detail(SEARCH)["exits"] == 1
    # the tested byte reached through a move of the loaded register is data as well; a counter copied is not
    assert detail(SEARCH.replace("test   %dl,%dl", "mov    %edx,%r8d\n    15:\ttest   %r8d,%r8d"))["exits"] == 1
    assert detail(SEARCH.replace("movzbl (%rdi,%rax,1),%edx", "mov    %rax,%rdx"))["exits"] == 0
    fs = diagnose(code({**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "",
                        **{k: detail(TILE_COPY)[k] for k in ("branches", "exits")}}), row(of_roof=0.45), CTX)
    assert "control_flow" not in ids(fs)



# for (j...) { ...; c[k] = 1.0 / (1.0 + den); if (c[k] < 0) c[k] = 0; else if (c[k] > 1) c[k] = 1; }  rotated:
# the count tested in the middle, the closing branch the clamp's compare, whose other arm (laid out after the loop:
# zero) jumps back to the store
CLAMP_AT_THE_BOTTOM = """
    10:\tvminss %xmm0,%xmm8,%xmm0
    14:\tvmovss %xmm0,(%r14,%rdx,1)
    1a:\tinc    %rsi
    1d:\tadd    $0x4,%rdx
    21:\tcmp    %rsi,(%rsp)
    25:\tje     50 <f+0x50>
    2b:\tvmovss (%r8,%rdx,1),%xmm13
    31:\tvdivss %xmm13,%xmm2,%xmm0
    35:\tvcomiss %xmm0,%xmm10
    39:\tjbe    10 <f+0x10>
    3f:\tvxorps %xmm0,%xmm0,%xmm0
    43:\tjmp    14 <f+0x14>
    50:\tret
"""


def test_a_closing_branch_whose_other_arm_comes_back_ends_nothing():
    d = detail(CLAMP_AT_THE_BOTTOM)
    assert d["exits"] == 0  # the compare of a value it computed, but the loop goes on either way
    assert d["branches"] == 1  # an if within the iteration, its other arm laid out after the loop
    # the same closing branch with nothing after it to come back: the loop stops on that value (a search)
    assert detail(CLAMP_AT_THE_BOTTOM.replace("    43:\tjmp    14 <f+0x14>\n", "    43:\tret\n"))["exits"] == 1
    # a branch in a scalar loop the compiler keeps scalar for an address it cannot follow is not why it is scalar
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "branches": 1}
    ref = [{"line": 5, "kind": "missed", "text": "not vectorized: data ref analysis failed: cS_45 = *_44;"}]
    assert "control_flow" not in ids(diagnose(code(loop, remarks=ref, causes=["aliasing"]), row(of_roof=0.05), CTX))
    said = ref + [{"line": 5, "kind": "missed", "text": "not vectorized: control flow in loop."}]
    assert "control_flow" in ids(diagnose(code(loop, remarks=said, causes=["control_flow"]), row(of_roof=0.05), CTX))
    assert "control_flow" in ids(diagnose(code(loop), row(of_roof=0.05), CTX))  # the compiler says nothing else


# w = (x == 0) ? c : c - 1; e = (x == nx - 1) ? c : c + 1; out[c] = in[w] + in[e]: the borders' neighbours chosen
# by conditional moves, the loads at the addresses they chose
BORDER_SELECTS = """
    10:\tlea    -0x1(%rdx),%r14d
    14:\ttest   %r8d,%r8d
    17:\tcmove  %edx,%r14d
    1b:\tmovslq %r14d,%r14
    1e:\tlea    0x1(%rdx),%r12d
    22:\tcmp    %edx,%ecx
    24:\tcmove  %edx,%r12d
    28:\tmovslq %r12d,%r12
    2b:\tvmovss (%r13,%r14,4),%xmm0
    31:\tvaddss (%r13,%r12,4),%xmm0,%xmm0
    37:\tmovslq %edx,%r12
    3a:\tvmovss %xmm0,(%rbx,%r12,4)
    40:\tinc    %edx
    42:\tinc    %r8d
    45:\tcmp    %edx,%esi
    47:\tjne    10 <f+0x10>
    49:\tret
"""


def test_addresses_a_conditional_move_chose_keep_the_loop_scalar_and_are_control_flow():
    d = detail(BORDER_SELECTS)
    assert d["select_addresses"] == 2 and d["branches"] == 0  # the store's index was written afresh: not chosen
    assert detail(BORDER_SELECTS.replace("cmove", "mov   "))["select_addresses"] == 0
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "select_addresses": 2}
    remark = [{"line": 5, "kind": "missed", "text": "not vectorized: data ref analysis failed: _27 = *_26;"}]
    fs = diagnose(code(loop, remarks=remark, causes=["aliasing"]), row(of_roof=0.06), CTX)
    assert fs[0]["id"] == "control_flow" and "narrow_vectors" not in ids(fs)
    assert "a condition chose" in text(fs[0]["evidence"][0]) and "data ref analysis failed" in text(fs[0]["evidence"][1])
    assert "border" in text(fs[0]["advice"])
    # the same selects in a vectorized loop, or beside a call that keeps it scalar anyway: not this finding
    vec = {**loop, "vector_bits": 512, "vector_fp": 2, "scalar_fp": 0}
    assert "control_flow" not in ids(diagnose(code(vec), row(of_roof=0.06), CTX))

def test_a_scalar_loop_bound_by_a_carried_recurrence_is_told_the_chain_not_narrow_vectors():
    # z = z^2 + c per pixel: an FMA chain carried across iterations, which llvm-mca finds dependency-bound
    loop = {**LOOP_SCALAR_SUM, "chain_op": "fma", "fma": 2, "exits": 1}
    pred = {"tool": "llvm-mca 19", "model": "znver4", "cycles_per_iteration": 10.1, "block_rthroughput": 3.0,
            "bound": "dependencies", "dependency_share": 0.96}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.05, cycles_per_iteration=9.4), CTX)
    assert fs[0]["id"] == "dependency_chain" and "narrow_vectors" not in ids(fs)


def test_flag_experiments_build_the_change_their_finding_advises(tmp_path):
    from rooflab.diagnosis.experiments import variant
    from rooflab.userkernel.spec import load_spec

    (tmp_path / "k.c").write_text("void avg(long n, const float *x, float *y) {}\n"
                                  "void avgd(long n, const double *x, double *y) {}\n")
    (tmp_path / "k.toml").write_text(
        'source = "k.c"\nflops = "n"\nbytes = "8*n"\nsizes = {n = [64]}\n'
        '[[kernel]]\nfunction = "avg"\nargs = {n = "n", x = {shape = ["n"], dtype = "float32"}, '
        'y = {shape = ["n"], dtype = "float32", output = true}}\n'
        '[[kernel]]\nfunction = "avgd"\nargs = {n = "n", x = {shape = ["n"]}, y = {shape = ["n"], output = true}}\n')
    f32, f64 = load_spec(tmp_path / "k.toml")
    size = {"n": 64}
    # a float kernel's reciprocal is a float's: its double constants made float too
    assert variant("reciprocal", f32, size, {})[0].flags[-3:] == ["-funsafe-math-optimizations",
                                                                  "-fno-associative-math",
                                                                  "-fsingle-precision-constant"]
    # the reciprocal of a divisor the loop only reads goes out of the loop; sums stay in order
    assert variant("reciprocal", f64, size, {})[0].flags[-2:] == ["-funsafe-math-optimizations",
                                                                  "-fno-associative-math"]
    assert variant("cx_limited_range", f64, size, {})[0].flags[-1:] == ["-fcx-limited-range"]


def test_a_team_that_spends_its_time_in_the_runtime_is_openmp_overhead_at_any_call_length():
    ctx = {**CTX, "openmp": True, "threads": 2}
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    busy = code(loop, hot_loop={"by": "samples", "runtime_share": 0.45})
    fs = diagnose(busy, row(time_s=2e-4, of_roof=0.08, cpus_busy=2.0), ctx)
    f = next(x for x in fs if x["id"] == "omp_overhead")
    assert f["factor"] == pytest.approx(1 / 0.55) and "45%" in text(f["evidence"][0])
    # a team at work in its regions, or a kernel without OpenMP: nothing to say
    calm = code(loop, hot_loop={"by": "samples", "runtime_share": 0.03})
    assert "omp_overhead" not in ids(diagnose(calm, row(time_s=2e-4, of_roof=0.08, cpus_busy=2.0), ctx))
    assert "omp_overhead" not in ids(diagnose(busy, row(time_s=2e-4, of_roof=0.08), CTX))


def test_a_loop_handed_out_an_iteration_at_a_time_is_tested_by_the_same_loop_in_large_chunks():
    from rooflab.diagnosis.rules.omp_overhead import small_chunks

    assert small_chunks("#pragma omp parallel for schedule(dynamic, 1)") == "schedule(dynamic, 1)"
    assert small_chunks("#pragma omp parallel for schedule(dynamic)") == "schedule(dynamic)"
    assert small_chunks("#pragma omp for schedule(nonmonotonic:dynamic,16)") == "schedule(nonmonotonic:dynamic,16)"
    assert small_chunks("#pragma omp parallel for schedule(dynamic, 4096)") is None
    assert small_chunks("#pragma omp parallel for schedule(dynamic, chunk)") is None  # a size it cannot read
    assert small_chunks("#pragma omp parallel for schedule(static, 1)") is None
    ctx = {**CTX, "openmp": True, "threads": 2}
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    pragmas = {"omp": True, "omp_text": "#pragma omp parallel for schedule(dynamic, 1)"}
    busy = code(loop, hot_loop={"by": "samples", "runtime_share": 0.58}, pragmas=pragmas)
    f = next(x for x in diagnose(busy, row(time_s=1.5e-2, of_roof=0.01, cpus_busy=2.0), ctx)
             if x["id"] == "omp_overhead")
    assert f["experiments"] == ["dynamic", "serial"] and f["test"] == "dynamic"
    assert "schedule(dynamic, 1)" in text(f["evidence"][1]) and "schedule(static)" in text(f["advice"])
    # the same schedule with the team at work in its own code: nothing to say
    calm = code(loop, hot_loop={"by": "samples", "runtime_share": 0.05}, pragmas=pragmas)
    assert "omp_overhead" not in ids(diagnose(calm, row(time_s=1.5e-2, of_roof=0.01, cpus_busy=2.0), ctx))


def test_a_parallel_region_inside_a_loop_is_entered_at_each_of_its_iterations():
    from rooflab.diagnosis.evidence import regions_in_loops, regions_per_call

    body = """{
    for (long t = 0; t < steps; t++) {
        for (int s = 1; s <= 3; s++) {
#pragma omp parallel for
            for (long i = 1; i < n - 1; i++) v[i] = u[i];
        }
    }
#pragma omp parallel for
    for (long i = 0; i < n; i++) u[i] = 0;
}"""
    nests = regions_in_loops(body)
    assert [[lp["var"] for lp in nest] for nest in nests] == [["t", "s"], []]
    assert regions_per_call(nests, {"steps": 200, "n": 10}) == 200 * 3 + 1
    assert regions_per_call(nests, {"n": 10}) is None  # a bound it cannot evaluate
    assert regions_per_call(regions_in_loops("{ while (go) {\n#pragma omp parallel\n { } } }"), {}) is None


def test_many_short_regions_in_one_call_are_openmp_overhead():
    ctx = {**CTX, "openmp": True, "threads": 2, "regions_per_call": 200}
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    fs = diagnose(code(loop), row(time_s=2.16e-4, of_roof=0.08, cpus_busy=2.0), ctx)
    f = next(x for x in fs if x["id"] == "omp_overhead")
    assert "200 times" in text(f["evidence"][0]) and "1.08 µs per region" in text(f["evidence"][0])
    # one region per call of that length is no overhead
    assert "omp_overhead" not in ids(diagnose(code(loop), row(time_s=2.16e-4, of_roof=0.08, cpus_busy=2.0),
                                              {**ctx, "regions_per_call": 1}))


def test_a_blas_reference_slowed_itself_does_not_put_a_kernel_at_its_roof():
    from rooflab.diagnosis.engine import _against_stored

    stored = {"compute": [{"klass": "blas_gemm", "value": 1.1e11}]}
    live = {"kind": "blas_gemm", "ratio": 0.9, "ci95": [0.88, 0.92], "rounds": 10, "n": 512, "threads": 2,
            "flops_per_s": 4.9e10, "reference_flops_per_s": 5.4e10}
    slowed = _against_stored(live, stored)
    assert slowed["slow"]["share"] == pytest.approx(5.4e10 / 1.1e11)
    assert "slow" not in _against_stored({**live, "reference_flops_per_s": 1.0e11}, stored)
    assert _against_stored(None, stored) is None and "slow" not in _against_stored(live, None)
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    omp = {"omp": True, "omp_text": "#pragma omp parallel for", "uneven_loop": {"var": "i", "bound": "j <= i"}}
    r = row(of_roof=0.45, bound="compute", cpus_busy=1.95, reference=slowed, time_s=1e-2,
            time_ci95=[0.99e-2, 1.01e-2])
    fs = diagnose(code(loop, pragmas=omp), r, ctx)
    assert fs[0]["id"] == "imbalance" and "at_roof" not in ids(fs)
    # the same ratio from a GEMM at its pace: at its roof
    fs = diagnose(code(loop, pragmas=omp), {**r, "reference": live}, ctx)
    assert ids(fs)[0] == "at_roof"


def test_threads_measured_idle_are_never_at_their_roof():
    ctx = {**CTX, "openmp": True, "threads": 2, "cpus": 2}
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    live = {"kind": "blas_gemm", "ratio": 0.83, "ci95": [0.8, 0.86], "rounds": 10, "n": 512, "threads": 2,
            "flops_per_s": 6e10, "reference_flops_per_s": 7.4e10}
    r = row(of_roof=0.54, bound="compute", cpus_busy=1.3, reference=live, time_s=5e-3, time_ci95=[4.9e-3, 5.1e-3])
    fs = diagnose(code(loop, pragmas={"omp": True, "omp_text": "#pragma omp parallel for"}), r, ctx)
    assert fs[0]["id"] == "imbalance" and "at_roof" not in ids(fs)
    # both CPUs busy: the same GEMM ratio puts it at its roof; others taking the CPU time say nothing of its threads
    for busy, others in ((1.95, None), (1.3, 0.9)):
        fs = diagnose(code(loop), {**r, "cpus_busy": busy, "others_cores": others}, ctx)
        assert ids(fs)[0] == "at_roof"


# gcc's in-order reduction of vectorized products: the sum moves from register to register, one vaddsd per lane
FOLD_LEFT = """
    1240:	vmovupd (%r9,%r8,1),%zmm5
    1247:	vmulpd (%r14,%r8,1),%zmm5,%zmm6
    124e:	vaddsd %xmm0,%xmm6,%xmm11
    1252:	vunpckhpd %xmm6,%xmm6,%xmm12
    1256:	vextractf64x2 $0x1,%ymm6,%xmm14
    1264:	vaddsd %xmm11,%xmm12,%xmm13
    1283:	vaddsd %xmm14,%xmm13,%xmm0
    1290:	sub    $0xffffffffffffff80,%r8
    1302:	cmp    %rdx,%r8
    1305:	jne    1240 <matvec+0xd0>
"""


def test_a_sum_carried_through_renamed_registers_is_one_accumulator_as_long_as_its_adds():
    d = detail(FOLD_LEFT)
    assert (d["accumulators"], d["longest_chain"], d["chain_op"]) == (1, 3, "add")
    # the same path through an FMA that multiplies the carried value: a recurrence, not a sum
    rec = FOLD_LEFT.replace("vaddsd %xmm11,%xmm12,%xmm13", "vfmadd213sd %xmm12,%xmm11,%xmm13")
    assert detail(rec)["chain_op"] == "add+fma"
    # nothing carried: a loop whose adds start from fresh loads each iteration
    assert detail(GATHER)["accumulators"] == 0


def test_a_column_walk_that_carries_an_in_order_sum_is_strided_first():
    # row sums of a column-major matrix: t += A[j * m + i] over j, at 1.9x its in-core prediction
    walks = {"omp": False, "column_walks": [{"array": "A", "index": "[j * m + i]", "var": "j", "stride": "m",
                                             "sum": True}]}
    pred = {"cycles_per_iteration": 3.0, "block_rthroughput": 0.8, "bound": "dependencies", "dependency_share": 0.31,
            "tool": "llvm-mca", "model": "znver4"}
    r = row(level="L3", of_roof=0.05, cycles_per_iteration=5.7)
    fs = diagnose(code(LOOP_SCALAR_SUM, pragmas=walks, prediction=pred), r, CTX)
    assert ids(fs)[:2] == ["strided", "reduction_chain"]
    assert fs[0]["factor"] == pytest.approx(3.0 / 0.8 * 5.7 / 3.0)
    assert "makes the sums independent" in text(fs[0]["evidence"][-1])
    # with the compiler's stride remark as well (covariance's dot products down two columns): the walk's factor
    # still counts, not only the remark's
    remark = [{"line": 13, "kind": "missed", "text": "not vectorized: complicated access pattern."}]
    fs = diagnose(code(LOOP_SCALAR_SUM, pragmas=walks, prediction=pred, causes=["stride"], remarks=remark), r, CTX)
    assert ids(fs)[:2] == ["strided", "reduction_chain"]
    assert fs[0]["factor"] == pytest.approx(3.0 / 0.8 * 5.7 / 3.0)
    said = " ".join(text(e) for e in fs[0]["evidence"])
    assert "complicated access pattern" in said and "makes the sums independent" in said
    # a walk in another loop of the function, one that sums nothing (a transpose into a scratch buffer before the
    # products): the hot loop's sum is the finding, and no walk goes before it
    apart = {"omp": False, "column_walks": [{**walks["column_walks"][0], "sum": False}]}
    counted = row(level="L3", of_roof=0.05, cycles_per_iteration=5.7,
                  traffic={"method": "cachegrind", "holding_ratio": 1.0, "l1_ratio": 1.0})
    fs = diagnose(code(LOOP_SCALAR_SUM, pragmas=apart, prediction=pred), counted, CTX)
    assert ids(fs)[0] == "reduction_chain" and "strided" not in ids(fs) and not fs[0].get("after")
    # the same walk without a sum, at its in-core pace: nothing to call strided
    plain = {**LOOP_SCALAR_SUM, "accumulators": 0, "longest_chain": 0, "chain_op": ""}
    assert "strided" not in ids(diagnose(code(plain, pragmas=walks, prediction=pred), r, CTX))


def test_a_chain_in_a_loop_that_also_waits_for_memory_can_save_only_its_own_cycles():
    from rooflab.diagnosis.rules.facts import Facts

    pred = {"cycles_per_iteration": 3.1, "block_rthroughput": 1.0, "bound": "dependencies", "dependency_share": 0.8,
            "tool": "llvm-mca", "model": "znver4"}
    c = code(LOOP_SCALAR_SUM, prediction=pred)
    # as predicted: the chain's 3.1 cycles against the ports' 1.0
    assert Facts(c, row(cycles_per_iteration=3.0), CTX).chain_gain() == pytest.approx(3.1)
    # measured 6.5 (an indexed load waits on memory): without the chain's 2.1 extra cycles, 4.4 would remain
    assert Facts(c, row(cycles_per_iteration=6.5), CTX).chain_gain() == pytest.approx(6.5 / 4.4)
    # the strided rule's own product keeps the analyzer's ratio
    assert Facts(c, row(cycles_per_iteration=6.5), CTX).chain_factor() == pytest.approx(3.1)


def test_paired_rounds_shrink_for_long_calls_but_not_below_five():
    from rooflab.diagnosis.engine import paired_rounds

    assert paired_rounds(1e-3, True) == 10 and paired_rounds(1e-3, False) == 20
    assert paired_rounds(0.8, True) == 5 and paired_rounds(0.5, False) == 20 and paired_rounds(1.0, False) == 15
    assert paired_rounds(30.0, False) == 5


def test_experiments_keep_to_the_kernels_budget_except_the_leading_one():
    from rooflab.diagnosis.engine import KERNEL_BUDGET_S, MIN_ROUNDS, within_budget

    assert KERNEL_BUDGET_S[True] == 30.0
    # quick calls: the rounds asked for, whatever has been spent
    assert within_budget(25.0, 1e-3, 10, False, True) == 10
    # a 0.5 s call after 10 s of 30: 20 s left, 1 s a round, less a warm-up and the check: 18 rounds fit
    assert within_budget(10.0, 0.5, 10, False, True) == 10
    # after 20 s: 10 rounds less two fit, so 8
    assert within_budget(20.0, 0.5, 10, False, True) == 8
    # after 25 s: not even MIN_ROUNDS fit; a later experiment is left out, the leading one runs with MIN_ROUNDS
    assert within_budget(25.0, 0.5, 10, False, True) is None
    assert within_budget(25.0, 0.5, 10, True, True) == MIN_ROUNDS
    # the budget spent already: the same
    assert within_budget(40.0, 0.5, 10, False, True) is None and within_budget(40.0, 0.5, 10, True, True) == 5
    # without --quick the budget is larger: the same call fits
    assert within_budget(25.0, 0.5, 20, False, False) == 20
    # one left out says so, in both languages, and is no refutation
    from rooflab.i18n import msg, text
    from rooflab.interpret.explain import experiment_sentence
    left = {"id": "padded", "what": msg("experiment {id}", id="padded"), "error_kind": "budget",
            "error": msg("its paired rounds (about {t}) would take this kernel past its budget of {b}", t="10.7 s",
                         b="30 s")}
    assert text(experiment_sentence(left), "en") == ("experiment padded: not measured — its paired rounds (about "
                                                     "10.7 s) would take this kernel past its budget of 30 s")
    assert "30 s" in text(experiment_sentence(left), "zh") and "budget" not in text(experiment_sentence(left), "zh")
    fs = [{"id": "conflict_misses", "saving_s": 0.5, "experiments": ["padded"]}]
    assert not weigh(fs, [left], 1.0)[0].get("refuted")


def test_a_measured_gain_goes_before_a_bound_unless_the_bound_is_two_thirds_larger():
    def fs(alias_saving):
        return [{"id": "aliasing", "saving_s": alias_saving, "experiments": ["restrict"]},
                {"id": "false_sharing", "saving_s": 0.1, "experiments": ["unshared"]}]

    unshared = {**experiment("unshared", "faster", 2.5), "a_time_s": 1.0}
    noisy = {**experiment("restrict", "no difference", 1.0), "speedup_ci95": [0.23, 1.74], "disturbed_cores": 0.29}
    # padding measured 2.5x (saving 0.6 s of 1 s); the alias test was disturbed, so aliasing keeps its bound
    assert ids(weigh(fs(0.7), [unshared, noisy])) == ["false_sharing", "aliasing"]
    assert ids(weigh(fs(0.95), [unshared, noisy])) == ["false_sharing", "aliasing"]
    # padding measured 1.5x (0.33 s): a bound of 0.5 s is not two thirds larger, one of 0.6 s is
    unshared = {**experiment("unshared", "faster", 1.5), "a_time_s": 1.0}
    assert ids(weigh(fs(0.5), [unshared, noisy])) == ["false_sharing", "aliasing"]
    assert ids(weigh(fs(0.6), [unshared, noisy])) == ["aliasing", "false_sharing"]


def test_a_surrogate_experiment_confirms_the_effect_but_not_the_kernels_gain():
    # streaming stores measured 1.45x on rooflab's triad; the kernel's own model gives 0.1 s of its 1 s
    fs = [{"id": "write_allocate", "saving_s": 0.1, "experiments": ["streaming_stores"]},
          {"id": "strided", "saving_s": 0.44, "experiments": []}]
    out = weigh(fs, [{**experiment("streaming_stores", "faster", 1.45), "surrogate": True}], time_s=1.0)
    assert ids(out) == ["strided", "write_allocate"]
    wa = out[1]
    assert wa["confirmed"] == {"experiment": "streaming_stores", "speedup": 1.45, "surrogate": True}
    assert wa["saving_s"] == pytest.approx(0.1)  # not 1 - 1/1.45 of the kernel's time
    # a confirmation by the fix itself ranks by what it measured, ahead of a bound not two thirds larger
    fs = [{"id": "imbalance", "saving_s": 0.2, "experiments": ["dynamic"]},
          {"id": "dependency_chain", "saving_s": 0.65, "experiments": []}]
    out = weigh(fs, [{**experiment("dynamic", "faster", 1.81), "a_time_s": 1.0}], time_s=1.0)
    assert ids(out) == ["imbalance", "dependency_chain"] and out[0]["saving_s"] == pytest.approx(1 - 1 / 1.81)


def test_a_build_that_includes_another_tests_only_what_it_adds():
    # all-pairs forces: sqrt kept scalar by errno, and two running sums; -ffast-math does both
    def fs():
        return [{"id": "reduction_chain", "saving_s": 0.8, "experiments": ["fast_math"]},
                {"id": "calls", "saving_s": 0.7, "experiments": ["no_math_errno"]}]

    fast, errno = experiment("fast_math", "faster", 4.39), experiment("no_math_errno", "faster", 3.19)
    out = weigh(fs(), [fast, errno], time_s=1.0)
    assert ids(out) == ["calls", "reduction_chain"]
    red = out[1]
    assert red["confirmed"]["speedup"] == pytest.approx(4.39 / 3.19)
    assert red["confirmed"]["bound"] and red["saving_s"] == pytest.approx(0.8)  # its model's bound, ranked as one
    # nothing beyond -fno-math-errno: the sums were not what held it back
    same = {**experiment("fast_math", "faster", 3.2), "speedup_ci95": [3.17, 3.23]}
    out = weigh(fs(), [same, errno], time_s=1.0)
    red = next(f for f in out if f["id"] == "reduction_chain")
    assert red.get("refuted") and ids(out)[0] == "calls"
    # alone, -ffast-math keeps its whole gain
    (red,) = weigh(fs()[:1], [fast], time_s=1.0)
    assert red["confirmed"]["speedup"] == pytest.approx(4.39)


def test_findings_confirmed_by_nested_builds_rank_together_by_what_the_whole_build_measured():
    # an n-body loop on two CPUs: -fno-math-errno 1.48x, -ffast-math 2.10x in all; two CPUs would give 2x at best
    def fs():
        return [{"id": "single_thread", "saving_s": 0.5, "experiments": []},
                {"id": "calls", "saving_s": 0.875, "experiments": ["no_math_errno"]},
                {"id": "reduction_chain", "saving_s": 0.2, "experiments": ["fast_math"]}]

    errno = experiment("no_math_errno", "faster", 1.48)
    out = weigh(fs(), [errno, {**experiment("fast_math", "faster", 2.10), "a_time_s": 1.0}], time_s=1.0)
    assert ids(out) == ["calls", "reduction_chain", "single_thread"]
    joint = 1 - 1 / 2.10
    assert out[0]["confirmed"]["joint_saving_s"] == pytest.approx(joint) == out[1]["confirmed"]["joint_saving_s"]
    assert out[0]["saving_s"] == pytest.approx(1 - 1 / 1.48)  # each keeps its own share
    # both builds gaining little (1.08x, 1.12x in all): each share small, the bound of two CPUs goes first; a gain
    # measured of 1.3x in all (23% saved) goes before it (a measured gain against a bound of perfect scaling)
    out = weigh(fs(), [experiment("no_math_errno", "faster", 1.08), experiment("fast_math", "faster", 1.12)],
                time_s=1.0)
    assert ids(out)[0] == "single_thread"
    out = weigh(fs(), [experiment("no_math_errno", "faster", 1.2), experiment("fast_math", "faster", 1.3)],
                time_s=1.0)
    assert ids(out)[0] == "calls"
    # the sums' share larger than the call's (errno 1.31x, 2.14x in all): the narrower build's finding still first
    out = weigh(fs(), [experiment("no_math_errno", "faster", 1.31),
                       {**experiment("fast_math", "faster", 2.14), "a_time_s": 1.0}], time_s=1.0)
    assert ids(out) == ["calls", "reduction_chain", "single_thread"]
    assert out[1]["saving_s"] > out[0]["saving_s"] and out[1]["confirmed"]["beyond"] == "no_math_errno"


def test_fast_math_that_changed_the_loop_measures_what_partial_sums_give():
    """A GEMV reading a column-major matrix by rows: a 2-add chain and a column walk, both bounded by the distance
    to the roof (1.65 ms of 2.32 ms each). -ffast-math split the chain (its hot loop changed) and gained 1.18x: that
    is what the sum was costing, and the column walk goes first."""
    def fs():
        return [{"id": "reduction_chain", "saving_s": 1.65e-3, "experiments": ["fast_math"]},
                {"id": "strided", "saving_s": 1.65e-3, "experiments": []}]

    changed = {**experiment("fast_math", "faster", 1.18), "speedup_ci95": [1.04, 1.23], "loop_unchanged": False}
    out = weigh(fs(), [changed], time_s=2.32e-3)
    assert ids(out) == ["strided", "reduction_chain"]
    assert out[1]["saving_s"] == pytest.approx(2.32e-3 * (1 - 1 / 1.18))
    # where the audit could not compare the loops, the gain only approaches the fix, and the bound stands
    out = weigh(fs(), [{**changed, "loop_unchanged": None}], time_s=2.32e-3)
    red = next(f for f in out if f["id"] == "reduction_chain")
    assert red["confirmed"]["bound"] and red["saving_s"] == pytest.approx(1.65e-3)


def test_of_two_equal_bounds_one_whose_test_left_the_loop_as_it_was_goes_after():
    """Column sums: the sum's chain and the column walk both bounded by the distance to the roof; -ffast-math could
    not vectorize the column walk, left the loop as it was and tested nothing: the column walk goes first."""
    fs = [{"id": "reduction_chain", "saving_s": 2e-3, "experiments": ["fast_math"]},
          {"id": "strided", "saving_s": 2e-3, "experiments": []}]
    same = {**experiment("fast_math", "no difference", 1.0), "speedup_ci95": [0.98, 1.01], "loop_unchanged": True}
    out = weigh(fs, [same], time_s=3e-3)
    assert ids(out) == ["strided", "reduction_chain"] and out[1]["inconclusive"]["loop_unchanged"]


def test_an_array_read_at_a_small_stride_for_some_elements_is_strided_access():
    from rooflab.diagnosis.evidence import partial_strides

    evens = "void f(long n, const double *x, double *y) { for (long i = 0; i < n; i++) y[i] = x[2 * i]; }"
    assert partial_strides(evens) == [{"array": "x", "var": "i", "stride": 2, "used": 1, "index": "[2 * i]"}]
    # a complex array read whole (both halves of each pair), or an array also read element by element: none
    assert partial_strides("{ for (long i = 0; i < n; i++) { r[i] = z[2*i]; m[i] = z[2*i + 1]; } }") == []
    assert partial_strides("{ for (long i = 0; i < n; i++) y[i] = x[2*i] + x[i]; }") == []
    assert partial_strides("{ for (long i = 0; i < n; i++) y[i] = x[i*4 - 1]; }")[0]["stride"] == 4
    # a loop that steps by 8 reads x[i] at a stride of 8 elements; unrolled by hand over every element, it does not
    assert partial_strides("{ for (long i = 0; i < n; i += 8) s += x[i]; }") == \
        [{"array": "x", "var": "i", "stride": 8, "used": 1, "index": "[i]"}]
    assert partial_strides("{ for (long i = 0; i < n; i = i + 2) s += x[i]; }")[0]["stride"] == 2
    assert partial_strides("{ for (long i = 0; i < n; i += 2) { s += x[i]; t += x[i + 1]; } }") == []
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    c = code(loop, pragmas={"omp": False, "partial_strides": partial_strides(evens)})
    counted = row(level="DRAM", of_roof=0.7, traffic={"method": "cachegrind", "holding_ratio": 1.5,
                                                     "holding_level": "DRAM", "model_bytes": 16e6})
    fs = diagnose(c, counted, CTX)
    assert ids(fs)[0] == "strided" and fs[0]["factor"] == pytest.approx(1.5)
    assert "`x[2 * i]` uses 1 of every 2 elements" in text(fs[0]["evidence"][0])
    at_model = row(level="DRAM", of_roof=0.7, traffic={"method": "cachegrind", "holding_ratio": 1.0,
                                                      "holding_level": "DRAM", "model_bytes": 16e6})
    assert "strided" not in ids(diagnose(c, at_model, CTX))
    # the unused bytes fetched, but all the lines L1 brought in take a small part of the time at DRAM's roof: they
    # pace nothing (LFK 4's stride-5 sum, 24 cycles an iteration of in-order adds); where they take most of it, the
    # finding stands
    fetched = {**counted["traffic"], "l1_bytes": 32e6, "flops": 2e6}
    assert "strided" not in ids(diagnose(c, {**counted, "traffic": fetched, "time_s": 0.1}, CTX))
    assert ids(diagnose(c, {**counted, "traffic": fetched}, CTX))[0] == "strided"


def test_traffic_beyond_the_model_is_not_strided_where_the_hot_loop_walks_every_array_at_one_pace():
    """Several loops streaming the same arrays out of L3 one after another (LCALS's energy update: six loops over
    nine arrays, 2.5x the bytes of one pass) move more than the model, each line used whole: not a stride."""
    traffic = {"method": "cachegrind", "holding_ratio": 2.5, "holding_level": "L3", "model_bytes": 16e6}
    r = row(level="L3", of_roof=0.18, traffic=traffic)
    even = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512,
            "vector_fp": 4, "scalar_fp": 0, "streams": [64, 64, 64, 64]}
    assert "strided" not in ids(diagnose(code(even), r, CTX))
    # one address moving five times as far as the other (a stride of 5), a single walked address, or rows of 25
    # doubles walked by scalar code (200 bytes an iteration, each read for a few elements): strided
    for loop in ({**even, "streams": [64, 320]}, {**even, "streams": [64]},
                 {**even, "vector_fp": 0, "scalar_fp": 9, "streams": [200, 200]}):
        assert ids(diagnose(code(loop), r, CTX))[0] == "strided"


# ------------------------------------------------------------------------------------------- 4 KiB aliasing

def test_arrays_placed_alike_are_tested_by_placing_them_otherwise_and_the_finding_stands_only_on_that_gain():
    """4 KiB aliasing: tested by the arrays parted in their pages, and by other offsets as its control (a walk whose
    time hangs on the cache sets its arrays share gains from one placement and loses from another)."""
    from rooflab.diagnosis.experiments import variant
    from rooflab.interpret.explain import TENTATIVE_GAIN
    from rooflab.userkernel.spec import ArrayArg

    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 512}
    ctx = {**CTX, "placement": "aligned", "array_args": [("u", False), ("v", True)]}
    (f,) = [x for x in diagnose(code(loop), row(of_roof=0.3), ctx) if x["id"] == "aliasing_4k"]
    assert f["tentative"] and f["experiments"] == ["placement", "placement_alt"] and f["saving_s"] == 0
    assert "same offset" in text(f["evidence"][0]) and "stores into v while it loads from u" in text(f["evidence"][1])
    # staggered arrays: the evidence and the advice say so
    (g,) = [x for x in diagnose(code(loop), row(of_roof=0.3), {**ctx, "placement": "staggered"})
            if x["id"] == "aliasing_4k"]
    assert "1088 bytes apart" in text(g["evidence"][0]) and "start of a page" in text(g["advice"])
    # one array (its rows keep their distances wherever it lies), at its roof, or a loop that moves no data: none
    assert "aliasing_4k" not in ids(diagnose(code(loop), row(of_roof=0.3), {**ctx, "array_args": [("v", True)]}))
    assert "aliasing_4k" not in ids(diagnose(code(loop), row(of_roof=0.85), ctx))
    assert "aliasing_4k" not in ids(diagnose(code({**loop, "bytes": 0}), row(of_roof=0.3), ctx))
    # where no other rule speaks, the rules' silence still does, beside the tentative finding
    found = diagnose(code(loop), row(of_roof=0.3, level="L1"), ctx)
    assert set(ids(found)) == {"aliasing_4k", "unexplained"}
    # its experiment measured the gain: it stands, first, and the silence goes
    both = [{**experiment("placement", "faster", 3.0), "a_time_s": 1e-3}, experiment("placement_alt", "faster", 2.5)]
    out = weigh(found, both, 1e-3)
    assert ids(out) == ["aliasing_4k"] and out[0]["saving_s"] == pytest.approx(1e-3 * (1 - 1 / 3.0))
    # under TENTATIVE_GAIN (what two sets of arrays alike can differ by), no difference, or not run: it goes
    t = {"id": "aliasing_4k", "saving_s": 0.0, "tentative": True, "experiments": ["placement", "placement_alt"]}
    other = {"id": "strided", "saving_s": 5e-4, "experiments": []}
    alt = experiment("placement_alt", "faster", 10.0)
    # its control gaining too is needed: a matrix sum walked by columns gained 3.95x from one and lost 0.34x
    for exps in ([experiment("placement", "faster", TENTATIVE_GAIN * 0.95), alt],
                 [experiment("placement", "no difference", 1.0), alt], [], [experiment("placement", "faster", 12.0)],
                 [experiment("placement", "faster", 12.0), experiment("placement_alt", "slower", 0.4)],
                 [experiment("placement", "faster", 12.0), experiment("placement_alt", "faster", 1.03)],
                 [experiment("placement", "faster", 12.0), experiment("placement_alt", "no difference", 1.01)]):
        assert ids(weigh([dict(t), dict(other)], exps, 1e-3)) == ["strided"]
    # a control that gains less still corroborates (a stencil over planes: 3.06x, and 1.18x at the other offsets)
    for control in (alt, experiment("placement_alt", "faster", 1.18)):
        assert ids(weigh([dict(t), dict(other)], [experiment("placement", "faster", 3.06), control], 1e-3)) == \
            ["aliasing_4k", "strided"]
    # the variant: the other placement, the same build and size
    spec = _spec_with({"x": ArrayArg(("n",), "float64"), "y": ArrayArg(("n",), "float64", output=True)})
    assert spec.placement == "aligned"
    vspec, size, what = variant("placement", spec, {"n": 8}, {})
    assert vspec.placement == "staggered" and size == {"n": 8} and vspec.flags == spec.flags
    assert variant("placement", vspec, {"n": 8}, {})[0].placement == "aligned"
    assert "1088 bytes" in text(what)
    # the control: other offsets apart, from either placement
    cspec, _, what = variant("placement_alt", spec, {"n": 8}, {})
    assert (cspec.placement, cspec.stagger) == ("staggered", 576) and "576 bytes" in text(what)
    assert variant("placement_alt", vspec, {"n": 8}, {})[0].stagger == 576


def test_a_time_that_swings_with_the_arrays_offsets_is_said_to():
    from rooflab.i18n import msg
    from rooflab.interpret.explain import kernel_observations, placement_swing

    swing = [experiment("placement", "faster", 3.95), experiment("placement_alt", "slower", 0.34)]
    assert placement_swing(swing) == (3.95, 0.34)
    # both gaining is aliasing (the finding's), one alone or a mild difference is no swing
    assert placement_swing([experiment("placement", "faster", 12.0), experiment("placement_alt", "faster", 11.0)]) \
        is None
    assert placement_swing([experiment("placement", "faster", 3.95)]) is None
    assert placement_swing([experiment("placement", "faster", 1.3), experiment("placement_alt", "slower", 0.5)]) is None
    top = {"id": "strided", "hypothesis": msg("a column walk"), "saving_s": 5e-4}
    kernels = [{"name": "k", "sizes": [{"label": "k n=8", "time_s": 1e-3, "findings": [top], "experiments": swing}]}]
    assert any("3.95x at one placement, 0.34x at another" in text(o) for o in kernel_observations(kernels))


@pytest.mark.parametrize("placement,stagger,offsets", [("aligned", 1088, [0, 0, 0]),
                                                       ("staggered", 1088, [0, 1088, 2176]),
                                                       ("staggered", 576, [0, 576, 1152])])
@pytest.mark.parametrize("n", [100, 1 << 16])  # arrays under and over HUGE_FROM
def test_a_kernels_arrays_start_where_its_placement_says_in_their_pages(placement, stagger, offsets, n):
    import dataclasses

    from rooflab.kernels.user import array_specs
    from rooflab.userkernel.spec import ArrayArg

    spec = _spec_with({"x": ArrayArg(("n",), "float64"), "z": ArrayArg(("n",), "float64"),
                       "y": ArrayArg(("n",), "float64", output=True)})
    specs = array_specs(dataclasses.replace(spec, placement=placement, stagger=stagger), {"n": n})
    assert [a.skew for a in specs.values()] == offsets
    for a, off in zip(specs.values(), offsets):
        arr, before, after = a.make_guarded()
        assert arr.ctypes.data % 4096 == off and arr.size == n and (before == before[0]).all()


def _fold_left_body(taps: int) -> str:
    """A 64-tap filter's hot loop as gcc builds it without -ffast-math: the products in vectors, then added one lane
    at a time in order, starting afresh each iteration from a zero kept in xmm1."""
    lines, a = [], 0x1000
    lines.append(f"    {a:x}:\tvmovups (%rsi,%rax,4),%zmm6")
    a += 8
    lines.append(f"    {a:x}:\tvmulps (%rdx),%zmm6,%zmm2")
    a += 8
    lines.append(f"    {a:x}:\tvaddss %xmm1,%xmm2,%xmm0")
    for k in range(taps - 1):
        a += 4
        lines.append(f"    {a:x}:\tvshufps $0x55,%xmm2,%xmm2,%xmm{3 + k % 3}")
        a += 4
        lines.append(f"    {a:x}:\tvaddss %xmm{3 + k % 3},%xmm0,%xmm0")
    a += 4
    lines.append(f"    {a:x}:\tvmovss %xmm0,(%rcx,%rax,4)")
    a += 4
    lines.append(f"    {a:x}:\tadd    $0x1,%rax")
    a += 4
    lines.append(f"    {a:x}:\tcmp    %rax,%rdi")
    a += 4
    lines.append(f"    {a:x}:\tjne    1000 <fir+0x10>")
    return "\n".join(lines) + "\n"


# a vectorized 5-point sum: each lane its own output, the adds vector ones
STENCIL_SUM = """
    1000:	vmovupd (%rsi,%rax,8),%zmm0
    1006:	vaddpd 0x8(%rsi,%rax,8),%zmm0,%zmm0
    100c:	vaddpd 0x10(%rsi,%rax,8),%zmm0,%zmm0
    1012:	vaddpd 0x18(%rsi,%rax,8),%zmm0,%zmm0
    1018:	vaddpd 0x20(%rsi,%rax,8),%zmm0,%zmm0
    101e:	vaddpd 0x28(%rsi,%rax,8),%zmm0,%zmm0
    1024:	vaddpd 0x30(%rsi,%rax,8),%zmm0,%zmm0
    102a:	vaddpd 0x38(%rsi,%rax,8),%zmm0,%zmm0
    1030:	vaddpd 0x40(%rsi,%rax,8),%zmm0,%zmm0
    1036:	vmovupd %zmm0,(%rdi,%rax,8)
    103c:	add    $0x8,%rax
    1040:	cmp    %rax,%rcx
    1043:	jne    1000 <st+0x10>
"""


def test_a_sum_unrolled_and_added_lane_by_lane_in_each_iteration_is_an_in_order_reduction():
    d = detail(_fold_left_body(64))
    # nothing is carried from one iteration to the next, but 64 scalar adds wait one for another within each
    assert d["longest_chain"] == 0 and d["inner_chain"] == 64 and d["vector_bits"] == 512
    assert detail(STENCIL_SUM)["inner_chain"] == 0  # vector adds: each lane its own output
    # LFK 10's differences, each step stored (ar = cx[i][4]; br = ar - px[i][4]; px[i][4] = ar; ...), gcc
    # packing eight of the steps into one vector store: a chain of outputs, not a sum to add in another order
    diffs = detail("""
  20:	vmovsd 0x20(%rdx),%xmm0
  33:	vsubsd -0xc8(%rsi),%xmm0,%xmm5
  3b:	vsubsd -0xc0(%rsi),%xmm5,%xmm2
  43:	vsubsd -0xb8(%rsi),%xmm2,%xmm6
  4b:	vsubsd -0xb0(%rsi),%xmm6,%xmm1
  53:	vunpcklpd %xmm5,%xmm0,%xmm0
  57:	vsubsd -0xa8(%rsi),%xmm1,%xmm7
  5f:	vsubsd -0xa0(%rsi),%xmm7,%xmm3
  67:	vunpcklpd %xmm6,%xmm2,%xmm2
  6b:	vinsertf128 $0x1,%xmm2,%ymm0,%ymm0
  71:	vsubsd -0x98(%rsi),%xmm3,%xmm8
  79:	vsubsd -0x90(%rsi),%xmm8,%xmm4
  81:	vunpcklpd %xmm7,%xmm1,%xmm1
  85:	vunpcklpd %xmm8,%xmm3,%xmm3
  8a:	vinsertf128 $0x1,%xmm3,%ymm1,%ymm1
  90:	vinsertf64x4 $0x1,%ymm1,%zmm0,%zmm0
  97:	vmovupd %zmm0,-0xc8(%rsi)
  a1:	vsubsd -0x88(%rsi),%xmm4,%xmm0
  a9:	vmovsd %xmm4,-0x88(%rsi)
  b1:	vmovsd %xmm0,-0x80(%rsi)
  b6:	cmp    %rax,%rdx
  b9:	jne    20 <dp+0x20>
""")
    assert diffs["inner_chain"] == 0 and diffs["vector_bits"] == 512
    loop = {k: d[k] for k in ("vector_bits", "scalar_fp", "vector_fp", "accumulators", "longest_chain", "chain_op",
                              "inner_chain", "element_bits")}
    pred = {"tool": "llvm-mca", "model": "sapphirerapids", "cycles_per_iteration": 106.3, "block_rthroughput": 60.0,
            "dependency_share": 0.82}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.02, cycles_per_iteration=92.6), CTX)
    f = next(x for x in fs if x["id"] == "reduction_chain")
    assert fs[0]["id"] == "reduction_chain" and f["experiments"] == ["fast_math"]
    assert "64 values one after another" in " ".join(text(e) for e in f["evidence"])
    assert "narrow_vectors" not in ids(fs)  # the chain, not the vectors, keeps the sum slow
    # a short one (4 adds: a horizontal sum after a vector loop) is no finding, nor a chain in scalar code
    short = detail(_fold_left_body(4))
    assert short["inner_chain"] == 4
    fs = diagnose(code({**loop, "inner_chain": 4}, prediction=pred), row(of_roof=0.02, cycles_per_iteration=92.6), CTX)
    assert "reduction_chain" not in ids(fs)
    fs = diagnose(code({**loop, "vector_bits": 0}, prediction=pred), row(of_roof=0.02, cycles_per_iteration=92.6), CTX)
    assert "reduction_chain" not in ids(fs)


def test_a_scalar_loop_walking_a_column_is_told_strided_not_narrow_vectors():
    # A[i * m + j] *= s over i: gcc vectorized only a version for m == 1, and the scalar loop runs, waiting on a line
    # an element; lanes would wait the same: the walk is the finding, not the width
    walk = [{"array": "A", "index": "[i * m + j]", "var": "i", "stride": "m", "sum": False}]
    loop = {**LOOP_SCALAR_SUM, "longest_chain": 0, "accumulators": 0, "chain_op": "", "vector_bits": 0,
            "scalar_fp": 1}
    pred = {"tool": "llvm-mca", "model": "sapphirerapids", "cycles_per_iteration": 1.6, "block_rthroughput": 1.5}
    slow = row(level="L3", of_roof=0.14, cycles_per_iteration=11.6)
    fs = diagnose(code(loop, pragmas={"column_walks": walk}, prediction=pred), slow, CTX)
    assert ids(fs)[0] == "strided" and "narrow_vectors" not in ids(fs)
    # without the walk the same scalar loop is narrow vectors
    assert "narrow_vectors" in ids(diagnose(code(loop, prediction=pred), slow, CTX))


# count[(keys[i] >> 8) & 255]++: the key's second byte read straight from %ah
RADIX = """
    8c0:	mov    (%rsi),%eax
    8c2:	add    $0x4,%rsi
    8c6:	movzbl %ah,%eax
    8c9:	mov    %eax,%eax
    8cb:	addl   $0x1,(%rdx,%rax,4)
    8cf:	cmp    %rcx,%rsi
    8d2:	jne    8c0 <radix_count+0x10>
"""
# y[i] = (idx[i] >= 0 && idx[i] < m) ? x[idx[i]] : 0.0: gcc copies the loop's closing test into each arm
CHECKED_GATHER = """
    c70:	mov    (%rdx,%rax,8),%r9
    c74:	test   %r9,%r9
    c77:	js     c7e <checked_gather+0x1e>
    c79:	cmp    %r9,%rsi
    c7c:	jg     c90 <checked_gather+0x30>
    c7e:	movq   $0x0,(%r8,%rax,8)
    c86:	add    $0x1,%rax
    c8a:	cmp    %rax,%rdi
    c8d:	jne    c70 <checked_gather+0x10>
    c8f:	ret
    c90:	vmovsd (%rcx,%r9,8),%xmm0
    c96:	vmovsd %xmm0,(%r8,%rax,8)
    c9c:	add    $0x1,%rax
    ca0:	cmp    %rax,%rdi
    ca3:	jne    c70 <checked_gather+0x10>
    ca5:	ret
"""


def test_an_update_through_a_keys_second_byte_is_an_indexed_update():
    assert asm._gp_family("%ah") == asm._gp_family("%al") == "%rax"
    d = detail(RADIX)
    assert d["indexed_updates"] == 1 and d["indexed_loads"] >= 1


def test_an_arm_of_the_body_that_closes_the_loop_again_is_part_of_the_loop_where_the_samples_fall_in_it():
    insns = asm.parse_objdump(CHECKED_GATHER)
    base = insns[0].addr
    # most samples on the arm that loads through the index: the loop reaches to its closing test
    hot = {0x00: 30, 0x0c: 10, 0x20: 60, 0x26: 40}
    (lp,) = asm.sampled_loops(insns, hot)
    assert (lp.start - base, lp.end - base) == (0, 0x33)
    assert asm.inner_share(insns, hot) == (140, 140)
    audit = asm.sampled_loop(insns, hot)
    d = asm.detail_loop(insns, audit, "x86_64").to_dict()
    assert d["indexed_loads"] >= 1 and d["branches"] == 2  # the bounds checks; the copied closing test is no branch
    # samples on the first arm alone: the loop as it closes first (complex multiplication's NaN path stays a side path)
    cold = {0x00: 30, 0x0c: 10, 0x16: 20}
    (lp,) = asm.sampled_loops(insns, cold)
    assert (lp.start - base, lp.end - base) == (0, 0x1d)


# ------------------------------------------------------------------------------------- PolyBench/C's kernels

# gcc's scalar fallback of floyd-warshall's j loop (its vector version runs only where path[i][k] lies outside the
# row written, which it never does): integer work on one lane of xmm registers, moved by vmovd
FLOYD_SCALAR = """
    6740:	vmovd  0x0(%r13,%rax,1),%xmm1
    6747:	vmovd  (%r12),%xmm0
    674d:	vpaddd %xmm1,%xmm0,%xmm0
    6751:	vmovd  (%r9,%rax,1),%xmm1
    6757:	vpminsd %xmm1,%xmm0,%xmm0
    675c:	vmovd  %xmm0,(%r9,%rax,1)
    6762:	add    $0x4,%rax
    6766:	cmp    %rax,%rsi
    6769:	jne    6740 <f+0x380>
"""


def test_integer_work_on_one_lane_of_an_xmm_register_is_scalar_and_counted_as_work():
    d = detail(FLOYD_SCALAR)
    assert d["vector_bits"] == 0 and d["int_ops"] == 2 and d["streams"] == [4, 4]
    # the same arithmetic on packed data out of memory is a 128-bit vector; a register zeroed is no work
    packed = FLOYD_SCALAR.replace("vmovd  0x0(%r13,%rax,1),%xmm1", "vmovdqu 0x0(%r13,%rax,1),%xmm1")
    assert detail(packed)["vector_bits"] == 128
    zeroed = FLOYD_SCALAR.replace("vpminsd %xmm1,%xmm0,%xmm0", "vpxor  %xmm2,%xmm2,%xmm2")
    assert detail(zeroed)["int_ops"] == 1


def test_an_integer_loop_left_scalar_by_a_dependence_gcc_cannot_resolve_has_narrow_vectors_not_a_stride():
    """floyd-warshall: gcc's "complicated access pattern" is path[i][k], read at one address that the loop writes
    at j = k; every address the hot loop walks moves by one element, and the loop does integer work."""
    loop = {"vector_bits": 0, "vector_fp": 0, "scalar_fp": 0, "flops": 0, "int_ops": 2, "bytes": 16,
            "element_bits": 64, "streams": [4, 4], "calls": [], "accumulators": 0, "longest_chain": 0}
    found = diagnose(code(loop, causes=["aliasing", "stride"]), row(of_roof=0.08, bound="compute", traffic=None),
                     CTX)
    assert "strided" not in ids(found) and "narrow_vectors" in ids(found)
    # a loop that computes nothing, FP or integer, leaves no lanes unused; a stride the loop walks stays strided
    assert "narrow_vectors" not in ids(diagnose(code({**loop, "int_ops": 0}, causes=["aliasing", "stride"]),
                                                row(of_roof=0.08, bound="compute", traffic=None), CTX))
    walked = diagnose(code({**loop, "streams": [4, 2000]}, causes=["aliasing", "stride"]),
                      row(of_roof=0.08, bound="compute", traffic=None), CTX)
    assert "strided" in ids(walked) and "narrow_vectors" not in ids(walked)


def test_columns_walked_under_a_vectorized_loop_whose_lines_come_back_each_row_are_strided():
    """syr2k: the j loop walks A[j][k] and B[j][k] down their columns, vectorized lane by lane; L1 brings in 148x
    the model (reuse leaves a column walk to this finding)."""
    loop = {"vector_bits": 512, "vector_fp": 5, "scalar_fp": 0, "fma": 1, "fp_add": 1, "fp_mul": 3, "flops": 48,
            "bytes": 320, "element_bits": 64, "streams": [64, 12800, 12800], "calls": [], "accumulators": 0,
            "longest_chain": 0}
    traffic = {"method": "cachegrind", "l1_ratio": 148.0, "holding_ratio": 0.58, "holding_level": "L3",
               "model_bytes": 1e6, "l1_bytes": 1.48e8, "flops": 3.5e7}
    walks = {"column_walks": [{"array": "A", "index": "[j][k]", "var": "j", "stride": "", "sum": False}]}
    r = row(level="L3", of_roof=0.17, bound="compute", traffic=traffic, flops=3.5e7, time_s=3.5e-3,
            time_ci95=[3.45e-3, 3.55e-3])
    found = diagnose(code(loop, causes=["aliasing", "stride"], pragmas=walks), r, CTX)
    assert ids(found)[0] == "strided"
    assert any("come in again at each step of an outer loop" in text(e) for e in found[0]["evidence"])
    # no column walked in the source: lines fetched again and again are reuse's, not a stride
    assert "strided" not in ids(diagnose(code(loop, causes=["aliasing", "stride"]), r, CTX))


def test_loops_reordered_into_an_in_order_sum_that_ran_slower_refute_nothing():
    from rooflab.interpret.outline import _standing

    """syrk: the reordered nest sums dot products in order (0.48x), where the original's column walk was
    vectorized: what it measured is the chain the fix would split, so it is inconclusive and bounds nothing."""
    fs = [{"id": "strided", "saving_s": 5e-3}, {"id": "single_thread", "saving_s": 1e-3}]
    slow = {**experiment("interchange", "slower", 0.48), "approaches": True, "a_time_s": 1e-2}
    out = weigh(fs, [slow], 1e-2)
    assert ids(out)[0] == "strided" and out[0]["inconclusive"]["in_order"] and not out[0].get("refuted")
    assert "sums into one element in order" in _standing(out[0], {"time_s": 1e-2})
    # the same reordering, slower, where the new innermost loop sums nothing: refuted
    out = weigh([dict(f) for f in fs], [{**slow, "approaches": False}], 1e-2)
    assert out[-1]["id"] == "strided" and out[-1]["refuted"]


def test_an_outer_loop_reading_one_input_per_step_still_repeats_over_the_same_data():
    from rooflab.diagnosis.evidence import loop_heads, repeat_loop
    fdtd = "{ for (t = 0; t < tmax; t++) { for (j = 0; j < ny; j++) ey[0][j] = fict[t]; " \
           "for (i = 1; i < nx; i++) for (j = 0; j < ny; j++) ey[i][j] = ey[i][j] - hz[i][j]; } }"
    assert repeat_loop(loop_heads(fdtd))["var"] == "t"
    # the variable indexing the data worked on, or an array the loop writes, is no repetition
    assert repeat_loop(loop_heads(fdtd.replace("fict[t]", "hz[t][j]"))) is None
    assert repeat_loop(loop_heads(fdtd.replace("ey[0][j] = fict[t];", "fict[t] = ey[0][j];"))) is None


def test_arrays_streamed_again_at_each_time_step_are_no_missing_reuse_and_no_stride():
    """jacobi-2d: 100 steps of two sweeps over 1 MB, 199x the model out of L2 (2x a step); heat-3d 366x (3.7x a
    step): the sweeps' own passes, each needing the last one's results."""
    loop = {"vector_bits": 512, "vector_fp": 5, "scalar_fp": 0, "fp_add": 4, "fp_mul": 1, "flops": 40, "bytes": 384,
            "element_bits": 64, "streams": [64, 64, 64, 64, 64, 320], "calls": [], "accumulators": 0,
            "longest_chain": 0}
    traffic = {"method": "cachegrind", "l1_ratio": 199.0, "holding_ratio": 199.0, "holding_level": "L2",
               "model_bytes": 1e6, "l1_bytes": 2e8, "flops": 6e7}
    r = row(level="L2", of_roof=0.27, bound="compute", traffic=traffic, flops=6e7, time_s=3.9e-3, intensity=61.5,
            time_ci95=[3.85e-3, 3.95e-3],
            flops_per_s=1.57e10, roof_flops_per_s=5.8e10, working_set_bytes=1e6, bytes=1e6,
            reference={"kind": "blas_gemm", "ratio": 0.32, "threads": 1, "n": 512, "ci95": [0.3, 0.33], "rounds": 10,
                       "flops_per_s": 1.6e10, "reference_flops_per_s": 4.9e10})
    stepped = {**CTX, "repeats": 100, "repeat_var": "t"}
    found = ids(diagnose(code(loop, causes=["aliasing"]), r, stepped))
    assert "reuse" not in found and "strided" not in found
    # the same traffic without the time steps: operands fetched again, which blocking keeps
    assert ids(diagnose(code(loop, causes=["aliasing"]), r, CTX))[0] == "reuse"
    # far more than a few passes a step: beyond the sweeps, reuse speaks again
    more = {**traffic, "holding_ratio": 5000.0, "l1_ratio": 5000.0}
    assert "reuse" in ids(diagnose(code(loop, causes=["aliasing"]), {**r, "traffic": more}, stepped))


# syrk's j loop (C[i][j] += alpha * A[i][k] * A[j][k]): gcc builds each vector of A's column from 8 loads a row apart
SYRK_LANES = """
    29f0:	vmovsd 0x2580(%rdx),%xmm3
    29f8:	vmovsd (%rdx),%xmm10
    29fc:	add    $0x40,%r13
    2a00:	add    $0x3200,%rdx
    2a07:	vmovhpd -0x640(%rdx),%xmm3,%xmm2
    2a0f:	vmovsd -0x1900(%rdx),%xmm3
    2a17:	vmovhpd -0x2bc0(%rdx),%xmm10,%xmm8
    2a1f:	vmovhpd -0x12c0(%rdx),%xmm3,%xmm3
    2a27:	vinsertf128 $0x1,%xmm2,%ymm3,%ymm2
    2a2d:	vmovsd -0x2580(%rdx),%xmm3
    2a35:	vmovhpd -0x1f40(%rdx),%xmm3,%xmm3
    2a3d:	vinsertf128 $0x1,%xmm3,%ymm8,%ymm3
    2a43:	vinsertf64x4 $0x1,%ymm2,%zmm3,%zmm3
    2a4a:	vfmadd213pd -0x40(%r13),%zmm12,%zmm3
    2a51:	vmovupd %zmm3,-0x40(%r13)
    2a58:	cmp    %r13,%rdi
    2a5b:	jne    29f0 <f+0x1e0>
"""


def test_a_vector_built_lane_by_lane_from_a_column_is_strided_whatever_the_traffic():
    d = detail(SYRK_LANES)
    assert d["vector_bits"] == 512 and d["lane_loads"] == 8 and d["streams"] == [64, 12800]
    walks = {"column_walks": [{"array": "A", "index": "[j][k]", "var": "j", "stride": "", "sum": False}]}
    # its lines stay in L1 between rows (traffic at the model), its time what its instructions predict: still strided
    traffic = {"method": "cachegrind", "l1_ratio": 1.0, "holding_ratio": 1.0, "holding_level": "L2", "model_bytes": 6e5}
    r = row(level="L2", of_roof=0.2, bound="compute", traffic=traffic, time_ci95=[0.99e-3, 1.0e-3])
    found = diagnose(code(d, causes=["aliasing", "stride"], pragmas=walks), r, CTX)
    assert ids(found)[0] == "strided" and "from 8 loads of one element" in text(found[0]["evidence"][0])
    # no column walked in the source (a gather of a few scalars beside the vectors), or near its roof: no
    assert "strided" not in ids(diagnose(code(d, causes=["aliasing"]), r, CTX))
    assert "strided" not in ids(diagnose(code(d, causes=["aliasing", "stride"], pragmas=walks),
                                         {**r, "of_roof": 0.6}, CTX))


def test_a_few_iterations_counted_between_numbers_carry_no_running_maximum():
    """A 3-wide window's maximum (LLVM's dilation: ``value = MAX(in[i][j + k], value)`` over k = -1..1, value reset
    at each j) is unrolled into the loop around it: no in-order reduction; a maximum over n elements still is."""
    from rooflab.diagnosis.evidence import constant_trips

    window = ("{ for (j = 0; j < w; j++) { int value = 0; for (int k = -1; k <= 1; k++) "
              "{ if ((j + k) > 0 && (j + k) < w) { value = (in[i][j + k] > value) ? in[i][j + k] : value; } } "
              "out[i][j] = value; } }")
    assert select_reductions(window) == []
    assert select_reductions(window.replace("k <= 1", "k <= 20")) == [{"var": "value", "op": "max"}]
    assert select_reductions(window.replace("k <= 1", "k <= r")) == [{"var": "value", "op": "max"}]
    assert constant_trips("int k = -1; k <= 1; k++") == 3 and constant_trips("k = 0; k < 8; ++k") == 8
    assert constant_trips("k = 0; k < n; k++") is None and constant_trips("k = 9; k < 2; k++") == 0


def test_a_loop_that_calls_a_looping_function_of_the_source_is_not_innermost():
    """LINPACK's dgefa calls daxpy for each column j: ``a[lda*j+l]``, read once per column, is no column walk of an
    innermost loop, since the innermost loop is daxpy's."""
    from rooflab.diagnosis.evidence import column_walks, looping_functions

    src = ("static void daxpy(int n, float da, float *dx, float *dy) /* for ( */\n{ int i;\n"
           "  for (i = 0; i < n; i++) dy[i] += da * dx[i]; }\n"
           "static float twice(float v) { return 2 * v; }\nvoid helper(int n);\n"
           "void dgefa(float *a, int lda, int n)\n{ int j, k, l = 0; for (k = 0; k < n - 1; k++)\n"
           "  for (j = k + 1; j < n; j++) { float t = a[lda*j+l]; daxpy(n-(k+1), t, &a[lda*k+k+1], "
           "&a[lda*j+k+1]); } }\n")
    assert looping_functions(src) == {"daxpy", "dgefa"}
    body = src[src.index("{ int j"):]
    assert column_walks(body)[0]["index"] == "[lda*j+l]"  # read alone, the j loop looks innermost
    assert column_walks(body, looping_functions(src) - {"dgefa"}) == []
    assert column_walks(body, frozenset({"twice"})) == column_walks(body)  # a call to a function without a loop


def test_contiguous_integer_vector_streams_are_no_stride_whatever_l1_brought_in():
    """An integer loop vectorized over full-width contiguous loads (a box blur's 8 x 8 window, 11 streams of 64 bytes
    an iteration) uses every line it brings in whole: L1 bringing in 9.8x the model is lines fetched again (rows a
    power of two apart evicting each other), not a stride, whatever the compiler said of another loop."""
    from rooflab.diagnosis.rules import strided

    loop = {"arch": "x86_64", "instructions": 130, "vector_bits": 512, "bytes": 4408.0, "streams": [64] * 11,
            "int_ops": 69}
    assert strided.one_pace(loop)
    assert not strided.one_pace({**loop, "int_ops": 0})  # scalar work: 64 bytes a step is 8 elements
    assert not strided.one_pace({**loop, "streams": [64, 4096]})
    traffic = {"method": "cachegrind", "l1_ratio": 9.8, "holding_level": "L3", "holding_ratio": 1.0,
               "l1_bytes": 8.2e7, "model_bytes": 8.4e6}
    c = code(loop, causes=["stride"])
    r = row(of_roof=0.42, level="L3", traffic=traffic)
    assert not any(f["id"] == "strided" for f in diagnose(c, r, CTX))
    c = code({**loop, "int_ops": 0, "vector_bits": 0, "streams": [8, 8192]}, causes=["stride"])
    assert any(f["id"] == "strided" for f in diagnose(c, r, CTX))


def test_a_scalar_branchy_loop_far_slower_than_its_instructions_mispredicts():
    """LLVM's ordered dither compares each pixel with a threshold table and stores 255 or 0 behind a branch, on
    random pixels: 16 cycles an iteration against 1.7 predicted, nothing else to wait for. The branch is the
    finding, whatever gcc said of the table's loads ("not suitable for gather"); a load through an index, traffic
    beyond the model or a loop near its prediction leave it to the other rules."""
    from rooflab.diagnosis.rules import control_flow
    from rooflab.diagnosis.rules.facts import Facts

    loop = {"arch": "x86_64", "instructions": 12, "vector_bits": 0, "bytes": 8.0, "branches": 1, "streams": [4]}
    pred = {"cycles_per_iteration": 1.7, "block_rthroughput": 1.7, "bound": "resources", "tool": "llvm-mca 19.1.7"}
    traffic = {"method": "cachegrind", "l1_ratio": 1.7, "holding_level": "L3", "holding_ratio": 1.6,
               "l1_bytes": 5.2e6, "holding_bytes": 5.1e6, "model_bytes": 3.1e6}
    r = row(of_roof=0.03, level="L3", cycles_per_iteration=16.2, traffic=traffic)
    fs = diagnose(code(loop, causes=["stride"], prediction=pred), r, CTX)
    assert fs[0]["id"] == "control_flow"
    assert any("mispredicts" in text(e) and "16.2" in text(e) for e in fs[0]["evidence"])
    assert control_flow.mispredicts(Facts(code(loop, prediction=pred), r, CTX)) == pytest.approx(16.2 / 1.7)
    for other in ({"indexed_loads": 1}, {"int_div": 1}, {"calls": ["exp"]}, {"vector_bits": 256},
                  {"memory_chains": 1}):
        fs = diagnose(code({**loop, **other}, causes=["stride"], prediction=pred), r, CTX)
        assert not any("mispredicts" in text(e) for f in fs for e in f["evidence"])
    # threads counting into one element each of an array wait for its line (false sharing), not for the branch
    slots = {"omp": True, "thread_slots": [{"array": "count", "index": "tid"}]}
    fs = diagnose(code(loop, causes=["stride"], prediction=pred, pragmas=slots), r, CTX)
    assert not any("mispredicts" in text(e) for f in fs for e in f["evidence"])
    near = row(of_roof=0.3, level="L3", cycles_per_iteration=3.0, traffic=traffic)
    assert not any("mispredicts" in text(e) for f in diagnose(code(loop, prediction=pred), near, CTX)
                   for e in f["evidence"])
    refetched = row(of_roof=0.03, level="L3", cycles_per_iteration=16.2, traffic={**traffic, "holding_ratio": 3.0})
    assert not any("mispredicts" in text(e) for f in diagnose(code(loop, prediction=pred), refetched, CTX)
                   for e in f["evidence"])


def test_the_hot_loops_source_lines_are_shown_as_runs_in_its_code_line():
    assert line_ranges([12, 7, 8, 9, 8]) == "7-9, 12" and line_ranges([3]) == "3" and line_ranges([]) == ""
    code = {"loop": {"vector_bits": 256, "vector_fp": 2}, "isa_vector_bits": 512, "loop_lines": [5, 4]}
    assert "source lines 4-5" in code_line(code)
    assert "source lines" not in code_line({**code, "loop_lines": []})


NESTS = """{
    double s = 0.0;   /* for (k = 0; k < n; k++) in a comment */
    for (long i = 0; i < n; i++)
        for (long j = 0; j < n; j++)
            t[j * n + i] = a[i * n + j];   // a column walk, run once
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < n; j++)
            s += t[i * n + j];
    }
    while (s > 1.0) s /= 2.0;
    return s;
}"""


def test_outer_loops_are_the_loops_no_other_loop_holds():
    loops = outer_loops(NESTS)
    assert [NESTS[a:b].split("(")[0].strip() for a, b in loops] == ["for", "for", "while"]
    assert NESTS[loops[1][0]:loops[1][1]].rstrip().endswith("}")


def test_the_loops_the_hot_loop_is_not_in_are_blanked_their_lines_kept():
    hot = without_cold_loops(NESTS, 10, [17, 18])  # the body's first line is line 10 of its file: 17-18 the sum
    assert hot.count("\n") == NESTS.count("\n") and "s += t[i * n + j]" in hot
    assert "t[j * n + i]" not in hot and "while" not in hot and "double s = 0.0" in hot and "return s" in hot
    assert column_walks(NESTS) and not column_walks(hot)  # the transposing copy no longer speaks for the sum
    assert without_cold_loops(NESTS, 10, []) == NESTS  # no lines known: the whole body
    assert without_cold_loops(NESTS, 10, [40, 41]) == NESTS  # lines no loop of the body holds (a callee's)


def test_a_binary_search_is_a_chain_of_its_loads_not_control_flow_to_if_convert():
    """XSBench's search of a nuclide's grid (in L3): 16.3 cycles a step where llvm-mca gives 3.1 for the
    instructions; the branch that picks the half is a step of the chain: made a conditional move, the lookups ran
    0.68x (rooflab compare, 95% CI 0.66-0.71), so control flow is not the finding."""
    loop = {"vector_bits": 0, "scalar_fp": 0, "vector_fp": 0, "accumulators": 0, "longest_chain": 0, "flops": 0,
            "bytes": 8, "element_bits": 64, "calls": [], "branches": 1, "halving_search": True}
    pred = {"tool": "llvm-mca", "model": "znver4", "cycles_per_iteration": 3.1, "block_rthroughput": 3.0}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.02, level="L3", cycles_per_iteration=16.3), CTX)
    assert ids(fs)[0] == "dependency_chain" and "control_flow" not in ids(fs)
    top = fs[0]
    assert "binary search" in text(top["evidence"][0]) and "Eytzinger" in text(top["advice"])
    assert top["factor"] == pytest.approx(16.3 / 3.1)
    # the same loop without the halving is a branch the rules read as control flow
    plain = diagnose(code({**loop, "halving_search": False}, prediction=pred),
                     row(of_roof=0.02, level="L3", cycles_per_iteration=16.3), CTX)
    assert "dependency_chain" not in ids(plain)


def test_a_call_that_takes_the_loops_time_is_the_finding_not_the_loads_waiting():
    """Parboil's motion search prints a line for every block and position: 19,144 cycles an iteration where
    llvm-mca gives 55.7 for the loop's own instructions. The prediction does not see the callee, so that time is the
    call's: calls first, sized by it, and no load is said to wait for it."""
    loop = {"vector_bits": 0, "scalar_fp": 0, "vector_fp": 0, "accumulators": 0, "longest_chain": 0, "flops": 0,
            "bytes": 8, "element_bits": 16, "calls": ["printf"], "indexed_loads": 4}
    pred = {"tool": "llvm-mca", "model": "znver4", "cycles_per_iteration": 55.7, "block_rthroughput": 40.0}
    fs = diagnose(code(loop, prediction=pred), row(of_roof=0.001, level="L2", cycles_per_iteration=19144.5), CTX)
    assert ids(fs)[0] == "calls", ids(fs)
    assert fs[0]["factor"] == pytest.approx(19144.5 / 55.7)
    assert "the call takes the rest" in " ".join(text(e) for e in fs[0]["evidence"])
    indirect = [f for f in fs if f["id"] == "indirect"]
    assert all("waits for its loads" not in text(e) for f in indirect for e in f["evidence"])
