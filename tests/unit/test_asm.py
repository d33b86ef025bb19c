from rooflab.toolchain import asm

# gcc -O3 -march=native: 4 chains of 256-bit FMA, accumulators in registers
X86_FMA4 = """
    1100:	test   %rdi,%rdi
    1103:	jle    1150 <f+0x50>
    1105:	vmovaps 0xef3(%rip),%ymm0        # 2000 <_fini+0xe9c>
    1115:	xor    %eax,%eax
    1120:	inc    %rax
    1123:	vfmadd132ps %ymm4,%ymm5,%ymm0
    1128:	vfmadd132ps %ymm4,%ymm5,%ymm1
    112d:	vfmadd132ps %ymm4,%ymm5,%ymm2
    1132:	vfmadd132ps %ymm4,%ymm5,%ymm3
    1137:	cmp    %rax,%rdi
    113a:	jne    1120 <f+0x20>
    113c:	vaddps %ymm0,%ymm1,%ymm1
    1140:	ret
"""

# -O3 without -march: SSE multiply + add, no FMA, 128-bit
X86_SSE_NOFMA = """
    1120:	mulps  %xmm2,%xmm0
    1123:	addps  %xmm3,%xmm0
    1126:	mulps  %xmm2,%xmm1
    1129:	addps  %xmm3,%xmm1
    112c:	sub    $0x1,%rax
    1130:	jne    1120 <f+0x20>
"""

# accumulators spilled to the stack inside the loop (frame pointer set up)
X86_SPILL = """
    1000:	push   %rbp
    1001:	mov    %rsp,%rbp
    1004:	and    $0xffffffffffffffe0,%rsp
    1010:	vmovaps -0x50(%rbp),%ymm14
    1015:	vfmadd132ps %ymm15,%ymm13,%ymm14
    101a:	vmovaps %ymm14,-0x50(%rbp)
    101f:	vfmadd132ps %ymm15,%ymm13,%ymm0
    1024:	vmovaps %ymm0,0x20(%rsp)
    102a:	dec    %rdi
    102d:	jne    1010 <f+0x10>
"""

# triad a[i] = b[i] + s*c[i], 512-bit, with an outer repetition loop
X86_TRIAD_NESTED = """
    2000:	xor    %r8d,%r8d
    2003:	xor    %eax,%eax
    2010:	vmovupd (%rdx,%rax,1),%zmm1
    2017:	vfmadd213pd (%rsi,%rax,1),%zmm0,%zmm1
    201e:	vmovupd %zmm1,(%rdi,%rax,1)
    2025:	add    $0x40,%rax
    2029:	cmp    %rax,%rcx
    202c:	jne    2010 <triad+0x10>
    202e:	inc    %r8
    2031:	cmp    %r8,%r9
    2034:	jne    2003 <triad+0x3>
    2036:	lea    0x8(%rsp),%rax
    203b:	ret
"""

# merged passes: one load feeds two adds (a compiler fused two repetitions of a read-sum)
X86_MERGED_READ = """
    3000:	vmovupd (%rdi,%rax,1),%ymm4
    3005:	vaddpd %ymm4,%ymm0,%ymm0
    3009:	vaddpd %ymm4,%ymm1,%ymm1
    300d:	add    $0x20,%rax
    3011:	cmp    %rax,%rsi
    3014:	jne    3000 <read+0x0>
"""

A64_FMLA = """
    7d0:	fmla	v0.4s, v8.4s, v9.4s
    7d4:	fmla	v1.4s, v8.4s, v9.4s
    7d8:	ldr	q2, [x1], #16
    7dc:	str	q3, [x2], #16
    7e0:	ldp	q4, q5, [sp, #32]
    7e4:	subs	x0, x0, #0x1
    7e8:	b.ne	7d0 <f+0x10>  // b.any
    7ec:	ret
"""


def audit(text):
    insns = asm.parse_objdump(text)
    return asm.hot_loop(insns)


def test_x86_fma_chains_counted_with_width():
    a = audit(X86_FMA4)
    assert a.arch == "x86_64"
    assert a.fma == 4 and a.fma_bits == 256 and a.vector_bits == 256
    assert a.spills == 0 and a.loads == 0 and a.stores == 0
    assert a.instructions == 7


def test_x86_sse_without_fma_is_seen():
    a = audit(X86_SSE_NOFMA)
    assert a.fma == 0 and a.fp_mul == 2 and a.fp_add == 2 and a.vector_bits == 128


def test_x86_spills_detected():
    a = audit(X86_SPILL)
    assert a.fma == 2 and a.spills == 3 and a.loads == 1 and a.stores == 2


# NPB MG's residual, outlined by OpenMP: a pointer reloaded from the frame each iteration (never stored there) and a
# private array of the stack read with an index register: neither a value parked and taken back
X86_FRAME_READS = """
    1000:	mov    0x30(%rsp),%rax
    1005:	vmovupd (%rax,%rdx,1),%zmm0
    100c:	vaddpd 0x90(%rsp,%rdx,1),%zmm0,%zmm0
    1014:	vmovupd %zmm0,(%rcx,%rdx,1)
    101b:	add    $0x40,%rdx
    101f:	cmp    %rdx,%rsi
    1022:	jne    1000 <f>
"""


def test_frame_reads_without_a_store_to_the_slot_are_no_spills():
    a = audit(X86_FRAME_READS)
    assert a.spills == 0 and a.loads == 3 and a.stores == 1


def test_innermost_loop_chosen_and_memory_ops_counted():
    insns = asm.parse_objdump(X86_TRIAD_NESTED)
    loops = asm.find_loops(insns)
    assert len(loops) == 2
    inner = asm.innermost(loops)
    assert len(inner) == 1 and inner[0].start == 0x2010
    a = asm.hot_loop(insns)
    assert a.fma == 1 and a.loads == 2 and a.stores == 1 and a.vector_bits == 512 and a.spills == 0


def test_merged_passes_show_two_adds_per_load():
    a = audit(X86_MERGED_READ)
    assert a.loads == 1 and a.fp_add == 2  # the bandwidth audit refuses this: 2 adds per loaded vector


def test_aarch64_neon():
    a = audit(A64_FMLA)
    assert a.arch == "aarch64"
    assert a.fma == 2 and a.fma_bits == 128
    assert a.loads == 3 and a.stores == 1 and a.spills == 2
    assert {0, 1, 8, 9}.issubset(a.vector_registers)


def test_no_loop_gives_none():
    assert asm.hot_loop(asm.parse_objdump("    10:	ret\n")) is None


# gcc -O3 -march=native: the streaming-store copy loop (AVX-512) and a non-temporal-load read
X86_NT_COPY = """
    1b10:	vmovupd 0x40(%rsi,%rax,8),%zmm0
    1b18:	vmovupd (%rsi,%rax,8),%zmm1
    1b1f:	add    $0x10,%rax
    1b23:	sub    $0xffffffffffffff80,%rdx
    1b27:	vmovntpd %zmm1,-0x80(%rdx)
    1b2e:	vmovntpd %zmm0,-0x40(%rdx)
    1b35:	cmp    %rdi,%rax
    1b38:	jne    1b10 <rl_copy_nt_pass+0x90>
"""
X86_NT_READ = """
    1c00:	vmovntdqa (%rdi,%rax,8),%zmm1
    1c06:	vmovntdqa 0x40(%rdi,%rax,8),%zmm2
    1c0d:	vaddpd %zmm1,%zmm3,%zmm3
    1c13:	vaddpd %zmm2,%zmm4,%zmm4
    1c19:	add    $0x10,%rax
    1c1d:	cmp    %rax,%rsi
    1c20:	jg     1c00 <rl_read_nt_pass+0x40>
"""
# aarch64: a NEON copy with plain q loads and stores, and its STNP twin
A64_COPY = """
     f00:	ldr	q0, [x1, x3]
     f04:	str	q0, [x0, x3]
     f08:	add	x3, x3, #0x10
     f0c:	cmp	x3, x2
     f10:	b.ne	f00 <rl_copy_pass+0x20>
"""
A64_NT_COPY = """
     f40:	ldp	q0, q1, [x1]
     f44:	stnp	q0, q1, [x0]
     f48:	add	x1, x1, #0x20
     f4c:	add	x0, x0, #0x20
     f50:	cmp	x0, x2
     f54:	b.ne	f40 <rl_copy_nt_pass+0x40>
"""


def test_non_temporal_loads_and_stores_are_counted():
    c = asm.hot_loop(asm.parse_objdump(X86_NT_COPY))
    assert (c.loads, c.stores, c.nt_loads, c.nt_stores, c.vector_bits) == (2, 2, 0, 2, 512)
    r = asm.hot_loop(asm.parse_objdump(X86_NT_READ))
    assert (r.loads, r.nt_loads, r.fp_add, r.stores) == (2, 2, 2, 0)
    n = asm.hot_loop(asm.parse_objdump(A64_NT_COPY), "aarch64")
    assert (n.loads, n.stores, n.nt_stores, n.vector_bits) == (2, 2, 2, 128)


def test_an_arm_copy_loop_is_vector_work_without_arithmetic():
    a = asm.hot_loop(asm.parse_objdump(A64_COPY), "aarch64")
    assert (a.loads, a.stores, a.vector_bits, a.nt_stores) == (1, 1, 128, 0)


def test_prefixes_printed_as_words_are_read_through_to_the_instruction():
    (pad,) = asm.parse_objdump("  2e:\tdata16 cs nopw 0x0(%rax,%rax,1)")
    assert pad.mnemonic == "nopw" and not pad.locked
    (add,) = asm.parse_objdump("  40:\tlock addl $0x1,(%rdi)")
    assert add.mnemonic == "addl" and add.locked


NM_DATA = """
0000000000003e68 d _DYNAMIC
0000000001e88860 0000000001e84800 B a
0000000000004060 0000000001e84800 B b
0000000000004040 0000000000000001 b completed.0
0000000000005084 0000000000000004 b callcount.0
0000000000002000 0000000000000040 R table
00000000000012b0 0000000000000016 T rooflab_alloc
0000000000001170 00000000000000c3 T transpose_add
"""


def test_a_librarys_own_arrays_are_its_data_objects_without_the_runtimes():
    # two 2000 x 2000 double arrays, a static counter and a constant table; not the start-up files' byte
    assert asm.parse_nm_data(NM_DATA) == 2 * 0x1e84800 + 4 + 0x40
    assert asm.parse_nm_data("") == 0


# XSBench's search of one nuclide's energy grid (grid_search_nuclide inlined, gcc -O3): the middle of the interval
# from a halving shift, the energy loaded there, a branch on it that leaves the loop's body, and the closing branch
X86_BINARY_SEARCH = """\
    1860:	sar    %rax
    1863:	lea    (%rax,%r12,1),%r9
    1867:	lea    (%r9,%rbx,1),%r8
    186b:	lea    (%r8,%r8,2),%r8
    186f:	shl    $0x4,%r8
    1873:	vmovsd (%rdx,%r8,1),%xmm0
    1879:	vcomisd %xmm1,%xmm0
    187d:	ja     1910 <calculate_macro_xs+0x280>
    1883:	mov    %rdi,%rax
    1886:	mov    %r9,%r12
    1889:	sub    %r9,%rax
    188c:	cmp    $0x1,%rax
    1890:	jg     1860 <calculate_macro_xs+0x1d0>
"""

# its caller's loop over the material's nuclides, rotated by gcc: the next nuclide's id is loaded at the end of an
# iteration (from a pointer moved by 4) for the next one's lookups, and a lane moved into a register (vmovq) starts
# the index afresh
X86_ROTATED_LOOKUPS = """\
    1790:	mov    0x10(%rbp),%rdi
    1794:	vmovq  %xmm10,%rax
    1799:	add    %r12,%rax
    179c:	movslq (%rdi,%rax,4),%r9
    17a0:	lea    (%r9,%rbx,1),%rax
    17a4:	lea    (%rax,%rax,2),%r8
    17a8:	shl    $0x4,%r8
    17ba:	lea    -0x30(%rdx,%r8,1),%rbx
    17bf:	lea    (%rdx,%r8,1),%rax
    17c3:	cmp    %rsi,%r9
    17c6:	cmove  %rbx,%rax
    17ca:	vmovsd 0x30(%rax),%xmm2
    17d4:	add    $0x4,%rcx
    17d8:	add    $0x8,%r13
    17e5:	vsubsd (%rax),%xmm2,%xmm2
    181b:	cmp    %r15,%rcx
    181e:	je     18ff <calculate_macro_xs+0x26f>
    1824:	vmovsd 0x0(%r13),%xmm5
    182a:	mov    %r14,%rbx
    182d:	movslq (%rcx),%r12
    1830:	imul   %r12,%rbx
    1839:	cmp    $0x1,%r11d
    183d:	jne    1790 <calculate_macro_xs+0x100>
"""


def test_a_binary_search_is_told_by_the_load_at_the_halved_middle_and_the_branch_on_it():
    search = asm.parse_objdump(X86_BINARY_SEARCH)
    assert asm._x86_halving_search(search)
    # the same halving without a branch of its own (only the closing one) searches nothing
    assert not asm._x86_halving_search([i for i in search if i.addr != 0x187d])
    # nor does a halving whose result no load uses (a count halved beside a stream)
    halved_count = asm.parse_objdump("""\
    10:	shr    %rcx
    13:	vmovsd (%rdx,%rax,8),%xmm0
    18:	vcomisd %xmm1,%xmm0
    1c:	ja     40 <f+0x40>
    1e:	add    $0x1,%rax
    22:	cmp    %rax,%rsi
    25:	jne    10 <f+0x10>
""")
    assert not asm._x86_halving_search(halved_count)
    assert asm.detail_loop(search, asm.hot_loop(search), "x86_64").halving_search


def test_lookups_at_indices_loaded_afresh_each_iteration_are_no_chain_in_a_rotated_loop():
    body = asm.parse_objdump(X86_ROTATED_LOOKUPS)
    # the indices come from a pointer moved by a constant (mats) and a lane moved out of a vector register; each
    # iteration's loads wait for nothing the last one loaded
    assert asm._x86_lookup_chains(body) == 0
    assert asm._x86_gp_flow(body[1]) == ("%rax", set(), set())  # vmovq %xmm10,%rax reads no general register


def test_an_index_halved_for_a_lookup_is_no_search():
    # out[j] = in[j / 2] with a test in the body: the halved index is loaded from, but nothing it gives is carried
    upsample = asm.parse_objdump("""\
    10:	mov    %rax,%rdx
    13:	shr    $0x3f,%rdx
    17:	add    %rax,%rdx
    1a:	sar    %rdx
    1d:	vmovsd (%rsi,%rdx,8),%xmm0
    22:	vcomisd %xmm1,%xmm0
    26:	ja     40 <f+0x40>
    28:	vmovsd %xmm0,(%rdi,%rax,8)
    2d:	add    $0x1,%rax
    31:	cmp    %rax,%rcx
    34:	jne    10 <f+0x10>
""")
    assert not asm._x86_halving_search(upsample)


def test_a_compiled_symbol_is_read_in_the_source_function_it_comes_from():
    assert asm.source_function("xs_event._omp_fn.0") == "xs_event"
    assert asm.source_function("calculate_macro_xs.localalias") == "calculate_macro_xs"
    assert asm.source_function("dgefa.constprop.0") == "dgefa" and asm.source_function("daxpy") == "daxpy"


# gcc's OpenMP body of CloverLeaf's time-step control, cut down: the inner loop's exit test sits mid-body (je to the
# outer loop's latch) and a jmp closes it; a division on an out-of-line path jumps back into it; the barrier, the
# reduction's compare-and-swap and the return lie inside the outer loop's address range but are not in it; the
# errno path of sqrt (called for negative inputs) rejoins the loop with a conditional backward branch to a merge
# point, which is no loop
X86_MID_EXIT = """
    1000:	mov    $0x0,%r8
    1003:	cmp    %r8,%r9
    1006:	jge    1060 <f+0x60>
    1008:	mov    $0x0,%r14
    100b:	vmovsd (%rax,%r14,8),%xmm0
    1010:	vucomisd %xmm0,%xmm8
    1014:	ja     10a0 <f+0xa0>
    1016:	vsqrtsd %xmm0,%xmm0,%xmm0
    101a:	vmovsd %xmm0,%xmm0,%xmm1
    101e:	vcomisd %xmm5,%xmm1
    1022:	ja     1080 <f+0x80>
    1024:	vcmplesd %xmm1,%xmm5,%xmm9
    1029:	vblendvpd %xmm9,%xmm5,%xmm1,%xmm5
    102f:	vmovsd %xmm5,(%rdx,%r14,8)
    1035:	cmp    %r14,%r15
    1038:	je     1090 <f+0x90>
    103a:	inc    %r14
    103d:	jmp    100b <f+0xb>
    1042:	nop
    1060:	call   2000 <GOMP_barrier@plt>
    1065:	lock cmpxchg %rsi,(%rcx)
    106a:	ret
    1080:	vdivsd %xmm1,%xmm7,%xmm5
    1084:	jmp    1024 <f+0x24>
    1090:	inc    %r8
    1093:	cmp    %r8,%r9
    1096:	jg     1008 <f+0x8>
    1098:	jmp    1060 <f+0x60>
    10a0:	call   2010 <sqrt@plt>
    10a5:	vcomisd %xmm3,%xmm0
    10a9:	jb     101a <f+0x1a>
    10ab:	jmp    101a <f+0x1a>
"""


def test_natural_loops_a_jmp_closes_one_a_jump_back_to_a_merge_point_does_not():
    insns = asm.parse_objdump(X86_MID_EXIT)
    loops = asm.find_loops(insns)
    # the outer loop (jg at 1096), the inner one closed by its jmp (103d); not the division's jump back (1084), nor
    # the errno path's branches to the merge point after the sqrt (10a9, 10ab)
    assert [(lp.start, lp.end) for lp in loops] == [(0x1008, 0x1096), (0x100b, 0x103d)]
    inner = asm.hot_loop(insns)
    assert (inner.start, inner.end) == (0x100b, 0x103d)
    # the if-converted MIN (vcmplesd, vblendvpd on xmm) is scalar work: no vector of elements
    assert inner.vector_bits == 0
    assert "GOMP_barrier" not in asm.detail_loop(insns, asm.find_loops(insns)[1]).calls


def test_a_conditional_branch_back_in_code_the_entry_does_not_reach_is_still_a_loop():
    # a loop in a switch's case, reached only through a jump table (its targets unknown to the disassembly)
    insns = asm.parse_objdump("""
    1000:	jmp    *%rax
    1002:	vaddsd (%rdi,%rcx,8),%xmm0,%xmm0
    1007:	inc    %rcx
    100a:	cmp    %rcx,%rdx
    100d:	jne    1002 <f+0x2>
    100f:	ret
""")
    assert [(lp.start, lp.end) for lp in asm.find_loops(insns)] == [(0x1002, 0x100d)]


# PolyBench's deriche, gcc -O3: a rotated loop entered by a jump past its first block (jmp 6ed4), closed by a
# branch back to that block (jne 6ed0), whose target does not dominate it; and TSVC's s1119: an unrolled vector body
# that the outer loop's versioning test (ja 322a) sends back to, the scalar copy's jmp rejoining the latch
X86_ROTATED = """
    6eb0:	vxorps %xmm9,%xmm9,%xmm9
    6eb5:	xor    %edx,%edx
    6ebf:	jmp    6ed4 <f+0x24>
    6ed0:	vmovaps %xmm0,%xmm4
    6ed4:	vmulss %xmm1,%xmm10,%xmm1
    6ed8:	vfmadd231ss (%rdi,%rdx,1),%xmm8,%xmm1
    6ef0:	vmovss %xmm0,(%rcx,%rdx,1)
    6efa:	add    $0x4,%rdx
    6efe:	cmp    %r9,%rdx
    6f01:	jne    6ed0 <f+0x20>
    6f03:	ret
"""
X86_VERSIONED = """
    3210:	lea    0x400(%rdi),%rdx
    3225:	jmp    338b <s1119+0x17b>
    322a:	vmovups -0x400(%rdx),%zmm1
    3238:	vaddps (%rsi),%zmm1,%zmm0
    3363:	vmovups %zmm0,0x380(%rdx)
    3378:	add    $0x400,%rdx
    3386:	cmp    %rdx,%rdi
    3389:	je     33cd <s1119+0x1bd>
    338b:	lea    0x4(%rsi),%rcx
    3395:	cmp    $0x38,%rax
    3399:	ja     322a <s1119+0x1a>
    33a6:	xor    %eax,%eax
    33b0:	vmovss (%rcx,%rax,1),%xmm0
    33b5:	vaddss (%rsi,%rax,1),%xmm0,%xmm0
    33ba:	vmovss %xmm0,(%rdx,%rax,1)
    33bf:	add    $0x4,%rax
    33c3:	cmp    $0x400,%rax
    33c9:	jne    33b0 <s1119+0x1a0>
    33cb:	jmp    3378 <s1119+0x168>
    33cd:	vzeroupper
    33d4:	ret
"""


def test_a_rotated_loop_and_a_versioned_vector_body_are_loops():
    assert [(lp.start, lp.end) for lp in asm.find_loops(asm.parse_objdump(X86_ROTATED))] == [(0x6ed0, 0x6f01)]
    insns = asm.parse_objdump(X86_VERSIONED)
    inner = asm.innermost(asm.find_loops(insns))
    assert [(lp.start, lp.end) for lp in inner] == [(0x322a, 0x3399), (0x33b0, 0x33c9)]
    assert asm.hot_loop(insns).vector_bits == 512
