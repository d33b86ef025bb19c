"""Read the compiled code: does the hot loop do what the FLOP and byte model counts?

Compilers fold repeated passes, spill accumulators to the stack, or drop FMA when ``-march`` is missing. This module
disassembles a function of a built library (objdump), finds its loops from backward branches, picks the hottest
innermost loop and counts, per iteration: FMA instructions, other FP adds and multiplies, the widest vector register
used, loads, stores and stack accesses (spills). Parsing is pure and works on text, so it is tested on hand-written
snippets for x86-64 (AT&T syntax) and AArch64.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from rooflab.errors import RooflabError


@dataclass(frozen=True)
class Insn:
    addr: int
    mnemonic: str
    operands: str
    target: int | None = None  # branch target address, for jumps
    locked: bool = False  # an atomic read-modify-write of memory (x86's lock prefix; xchg with memory locks too)


@dataclass
class LoopAudit:
    """Counts for one loop body (one iteration)."""

    arch: str
    start: int
    end: int
    instructions: int
    fma: int = 0
    fp_add: int = 0
    fp_mul: int = 0
    vector_bits: int = 0  # widest vector register touched by an FP/vector instruction (0: scalar only)
    fma_bits: int = 0  # widest register used by the FMA instructions
    loads: int = 0
    stores: int = 0
    spills: int = 0  # loads/stores of frame slots (off the stack or frame pointer) the loop also stores to
    nt_loads: int = 0  # non-temporal loads (movntdqa; AArch64 ldnp, two registers each)
    nt_stores: int = 0  # streaming stores that bypass the caches (movntpd/ps/dq/i; AArch64 stnp)
    vector_registers: set = field(default_factory=set)

    def to_dict(self) -> dict:
        return {"arch": self.arch, "instructions": self.instructions, "fma": self.fma, "fp_add": self.fp_add,
                "fp_mul": self.fp_mul, "vector_bits": self.vector_bits, "fma_bits": self.fma_bits,
                "loads": self.loads, "stores": self.stores, "spills": self.spills, "nt_loads": self.nt_loads,
                "nt_stores": self.nt_stores, "vector_registers": len(self.vector_registers)}


# ----------------------------------------------------------------------------------------------------- parsing

_LINE = re.compile(r"^\s*([0-9a-f]+):\s+(?:(?:[0-9a-f]{2} )+\s*)?([a-z][\w.]*)\s*(.*)$")
_TARGET = re.compile(r"^(?:\S+,\s*)*(?:#?0x)?([0-9a-f]+)\s*<")


_A64_ATOMIC = re.compile(r"(?:ld|st)(?:add|clr|eor|set|[su]max|[su]min)[al]*[bh]?$|swp[al]*[bh]?$|casp?[al]*[bh]?$")


def parse_objdump(text: str) -> list[Insn]:
    """Instructions of an ``objdump -d`` listing (x86-64 AT&T or AArch64); labels and blank lines skipped."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m or line.rstrip().endswith(">:"):
            continue
        addr = int(m.group(1), 16)
        mnem = m.group(2)
        ops = m.group(3).split("//")[0].split(" #")[0].strip() if not mnem.startswith("j") else m.group(3).strip()
        target = None
        if _is_branch(mnem):
            t = _TARGET.search(m.group(3).strip())
            if t:
                target = int(t.group(1), 16)
        locked = False
        while mnem in ("data16", "cs", "ds", "rex", "rep", "lock", "notrack", "bnd"):
            # prefixes printed as separate words (padding's "data16 cs nopw"); the instruction follows them
            locked = locked or mnem == "lock"
            parts = ops.split(None, 1)
            if not parts:
                break
            mnem, ops = parts[0], (parts[1] if len(parts) > 1 else "")
        # (AArch64's atomics are instructions of their own: ldadd, stadd, swp, cas and their kin)
        locked = locked or (mnem.startswith("xchg") and "(" in ops) or bool(_A64_ATOMIC.match(mnem))
        out.append(Insn(addr, mnem, ops, target, locked))
    return out


def _is_branch(m: str) -> bool:
    if m.startswith("j"):  # x86 jmp, jne, jb, ...
        return True
    return m in ("b", "cbz", "cbnz", "tbz", "tbnz") or m.startswith("b.")


def guess_arch(insns: list[Insn]) -> str:
    text = " ".join(i.operands for i in insns[:200])
    return "x86_64" if "%" in text else "aarch64"


@dataclass(frozen=True)
class Loop:
    start: int
    end: int  # address of the backward branch

    def contains(self, other: "Loop") -> bool:
        return self.start <= other.start and other.end <= self.end and self != other


def _is_conditional(m: str) -> bool:
    return m not in ("jmp", "jmpq", "b") and _is_branch(m)


def find_loops(insns: list[Insn]) -> list[Loop]:
    """Loops from backward branches, conditional or not, each a cycle: its target dominates it (every path from the
    function's entry to the branch passes the target: a loop whose exit test sits mid-body and a ``jmp`` closes, as
    gcc writes a scalar loop with a division on an out-of-line path), or its target reaches it without leaving the
    addresses between them (a rotated loop entered by a jump past its first block; a vector body that a versioning
    test inside the outer loop sends back to). A branch back to a merge point (an out-of-line call to ``sqrt`` for
    errno rejoining the loop's body) or into shared tail code closes none. Before, every conditional backward branch
    was a loop and no ``jmp`` was: CloverLeaf's time-step loop, closed by a ``jmp``, was found only as its outer loop,
    whose range spans the barrier and return after it."""
    if not insns:
        return []
    lo = insns[0].addr
    back = [i for i in insns if i.target is not None and _is_branch(i.mnemonic) and lo <= i.target <= i.addr]
    if not back:
        return []
    closing = _closing_branches(insns, back)
    return sorted({Loop(i.target, i.addr) for i in back if i.addr in closing}, key=lambda lp: (lp.start, lp.end))


_ENDS_BLOCK = ("ret", "retq", "ud2", "hlt")


def _falls_through(i: Insn) -> bool:
    m = i.mnemonic
    if m.startswith(_ENDS_BLOCK) or m in ("ret", "br", "eret"):
        return False
    return not (_is_branch(m) and not _is_conditional(m))


def _closing_branches(insns: list[Insn], jumps: list[Insn]) -> set[int]:
    """The addresses of the backward ``jumps`` that close a cycle (see find_loops): the function's basic blocks, their
    dominators from its first instruction (an indirect jump's targets are unknown: the blocks only a jump table
    reaches have none, and are judged by the addresses alone)."""
    addrs = {i.addr for i in insns}
    leaders = {insns[0].addr}
    for k, i in enumerate(insns):
        if _is_branch(i.mnemonic) or not _falls_through(i):
            if i.target is not None and i.target in addrs:
                leaders.add(i.target)
            if k + 1 < len(insns):
                leaders.add(insns[k + 1].addr)
    starts = sorted(leaders)
    index = {a: n for n, a in enumerate(starts)}
    block_of, succ, n = {}, [[] for _ in starts], -1
    for k, i in enumerate(insns):
        if i.addr in index:
            n = index[i.addr]
        block_of[i.addr] = n
        if k + 1 < len(insns) and insns[k + 1].addr not in index:
            continue
        if i.target is not None and i.target in index and _is_branch(i.mnemonic):
            succ[n].append(index[i.target])
        if _falls_through(i) and k + 1 < len(insns):
            succ[n].append(n + 1)
    dom = _dominators(succ)
    out = set()
    for j in jumps:
        src, dst = block_of[j.addr], index.get(j.target)
        if dst is None:
            continue
        if (src in dom and dom[src] >> dst & 1) or _reaches_within(succ, dst, src):
            out.add(j.addr)
    return out


def _reaches_within(succ: list[list[int]], a: int, b: int) -> bool:
    """Whether block ``a`` reaches block ``b`` through blocks numbered a to b only (blocks are numbered in address
    order: the path never leaves the addresses between them)."""
    seen, stack = {a}, [a]
    while stack:
        x = stack.pop()
        if x == b:
            return True
        for y in succ[x]:
            if a <= y <= b and y not in seen:
                seen.add(y)
                stack.append(y)
    return False


def _dominators(succ: list[list[int]]) -> dict[int, int]:
    """Per block the entry (block 0) reaches, the blocks that dominate it, as a bit set: the iterative data-flow
    over the blocks in reverse postorder."""
    order, seen, stack = [], {0}, [(0, iter(succ[0]))]
    while stack:
        b, it = stack[-1]
        nxt = next((s for s in it if s not in seen), None)
        if nxt is None:
            order.append(b)
            stack.pop()
        else:
            seen.add(nxt)
            stack.append((nxt, iter(succ[nxt])))
    order.reverse()
    preds: dict[int, list[int]] = {b: [] for b in order}
    for b in order:
        for s in succ[b]:
            preds[s].append(b)
    everything = (1 << len(succ)) - 1
    dom = {b: everything for b in order}
    dom[0] = 1
    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            new = everything
            for p in preds[b]:
                new &= dom[p]
            new |= 1 << b
            if new != dom[b]:
                dom[b], changed = new, True
    return dom


def innermost(loops: list[Loop]) -> list[Loop]:
    return [a for a in loops if not any(a.contains(b) for b in loops)]


# x86 -------------------------------------------------------------------------------------------------------
_X86_VREG = re.compile(r"%([xyz])mm(\d+)")
_X86_WIDTH = {"x": 128, "y": 256, "z": 512}


def _x86_mem_operands(ops: str) -> tuple[list[tuple[int, str]], int]:
    """(operand index, text) of memory operands, in AT&T order (destination last)."""
    parts = re.split(r",(?![^()]*\))", ops) if ops else []
    return [(k, p) for k, p in enumerate(parts) if "(" in p], len(parts)


def _x86_fp_class(m: str) -> str | None:
    if re.match(r"v?f(n)?m(add|sub)(\d{3})?(ps|pd|ss|sd|ph|sh)", m) or re.match(r"vf(n)?m(add|sub)\w*", m):
        return "fma"
    if re.match(r"v?(add|sub)(ps|pd|ss|sd|ph|sh)$", m):
        return "add"
    if re.match(r"v?mul(ps|pd|ss|sd|ph|sh)$", m):
        return "mul"
    return None


# a bitwise operation on an xmm register's FP bits: how a scalar loop takes an absolute value or flips a sign
# (fabs(x[i]): vandpd with a mask), or picks one of two values (an if-converted MIN: vcmplesd, then vblendvpd), not
# a vector of elements; a loop vectorized 128 bits wide has packed arithmetic or packed moves besides
_X86_FP_LOGIC = re.compile(r"v(and|andn|or|xor|blendv|blend)p[sd]$")
# a copy from one xmm register to another: how a scalar loop keeps a value it overwrites (TSVC's s244 with
# restrict: vmovaps %xmm2,%xmm3 beside scalar FMAs), not a vector of elements
_X86_REG_COPY = re.compile(r"vmov(ap[sd]|up[sd]|dqa|dqu)(32|64)?$")
_X86_MINMAX = re.compile(r"v?(max|min)(ps|pd|ss|sd|ph|sh)$")
_X86_NOT_MEM = ("lea", "nop", "prefetch", "clflush")
_X86_NT_LOAD = re.compile(r"v?movntdqa$")
_X86_NT_STORE = re.compile(r"v?movnt(pd|ps|dq|i|iq)$")


def _x86_scalar_move(m: str) -> bool:
    """A move or conversion of one element (vmovsd, vmovq, vcvtsi2sd...): scalar work in a vector register. Not a
    packed integer instruction whose name ends the same way (vpmaxsd, vpminsd, vpabsd: signed doublewords)."""
    if m.startswith(("vp", "p")):
        return False
    return m.endswith(("ss", "sd", "sh")) or m in ("vmovq", "vmovd") or bool(re.match(r"vcvt\w*s[sd]2|vcvtsi2", m))


def _audit_x86(body: list[Insn], frame_pointer: bool) -> dict:
    c = dict(fma=0, fp_add=0, fp_mul=0, vector_bits=0, fma_bits=0, loads=0, stores=0, spills=0, nt_loads=0,
             nt_stores=0, regs=set())
    int_xmm = packed_xmm_memory = False
    slots: list[tuple[str, bool]] = []  # accesses to the frame's slots: (slot, a store)
    for i in body:
        m = i.mnemonic
        regs = _X86_VREG.findall(i.operands)
        cls = _x86_fp_class(m)
        width = max((_X86_WIDTH[w] for w, _ in regs), default=0)
        if cls:
            c[{"fma": "fma", "add": "fp_add", "mul": "fp_mul"}[cls]] += 1
            # a scalar op (ss/sd) on an xmm register is not a vector op
            if not m.endswith(("ss", "sd", "sh")):
                c["vector_bits"] = max(c["vector_bits"], width)
                if cls == "fma":
                    c["fma_bits"] = max(c["fma_bits"], width)
        elif regs and m.startswith("v") and not m.startswith("vzero") and not _x86_scalar_move(m) and \
                not (width == 128 and (_X86_FP_LOGIC.match(m) or (_X86_REG_COPY.match(m) and "(" not in i.operands))):
            if width == 128 and m.startswith("vp") and "(" not in i.operands:
                # packed integer arithmetic between xmm registers: a vector only where packed data comes from memory
                # (gcc's scalar fallback of an int loop: vmovd loads, vpaddd and vpminsd on one lane, vmovd stores)
                int_xmm = True
            else:
                c["vector_bits"] = max(c["vector_bits"], width)
                packed_xmm_memory = packed_xmm_memory or (width == 128 and "(" in i.operands)
        for w, n in regs:
            c["regs"].add(int(n))
        if m.startswith(_X86_NOT_MEM) or _is_branch(m):
            continue
        mems, nops = _x86_mem_operands(i.operands)
        for k, text in mems:
            stack = "%rsp" in text or (frame_pointer and "%rbp" in text)
            is_store = (k == nops - 1) and not m.startswith(("cmp", "test", "ucomi", "comi", "vucomi", "vcomi"))
            if is_store:
                c["stores"] += 1
                c["nt_stores"] += bool(_X86_NT_STORE.match(m))
            else:
                c["loads"] += 1
                c["nt_loads"] += bool(_X86_NT_LOAD.match(m))
            if stack and re.fullmatch(r"-?(0x[0-9a-f]+|\d+)?\(%r[sb]p\)", text.strip()):
                # a slot of the frame (no index register: not a local array): a spill where the loop also
                # stores to it, a value parked and taken back every iteration
                slots.append((text.strip(), is_store))
    stored = {t for t, is_store in slots if is_store}
    c["spills"] = sum(t in stored for t, _ in slots)  # (a value only reloaded is an invariant: one load, no trip)
    if int_xmm and packed_xmm_memory:
        c["vector_bits"] = max(c["vector_bits"], 128)
    return c


# AArch64 -----------------------------------------------------------------------------------------------------
_A64_VREG = re.compile(r"\b(?:v(\d+)\.(\d+)([bhsd])|q(\d+)|z(\d+)\.)")


def _a64_fp_class(m: str, ops: str) -> str | None:
    if m in ("fmla", "fmls", "fmadd", "fmsub", "fnmadd", "fnmsub", "bfmla", "fmlal", "fmlal2"):
        return "fma"
    if m in ("fadd", "fsub", "faddp"):
        return "add"
    if m in ("fmul", "fnmul"):
        return "mul"
    return None


def _audit_a64(body: list[Insn]) -> dict:
    c = dict(fma=0, fp_add=0, fp_mul=0, vector_bits=0, fma_bits=0, loads=0, stores=0, spills=0, nt_loads=0,
             nt_stores=0, regs=set())
    for i in body:
        m, ops = i.mnemonic, i.operands
        width = 0
        for v, lanes, sz, q, z in _A64_VREG.findall(ops):
            if v:
                bits = int(lanes) * {"b": 8, "h": 16, "s": 32, "d": 64}[sz]
                width = max(width, bits)
                c["regs"].add(int(v))
            elif q:
                width = max(width, 128)
                c["regs"].add(int(q))
            elif z:
                width = max(width, 128)  # SVE: scalable; at least 128 bits
                c["regs"].add(int(z))
        cls = _a64_fp_class(m, ops)
        if cls:
            c[{"fma": "fma", "add": "fp_add", "mul": "fp_mul"}[cls]] += 1
            c["vector_bits"] = max(c["vector_bits"], width)
            if cls == "fma":
                c["fma_bits"] = max(c["fma_bits"], width)
        if m.startswith(("ld", "st")) and "[" in ops and not m.startswith(("ldadd", "stadd")):
            # a vector load or store (q or v registers) is vector work even with no arithmetic (a copy loop)
            c["vector_bits"] = max(c["vector_bits"], width)
            n_regs = 2 if m[2:].startswith(("p", "np")) else 1
            if m.startswith("ld"):
                c["loads"] += n_regs
                c["nt_loads"] += n_regs if m == "ldnp" else 0
            else:
                c["stores"] += n_regs
                c["nt_stores"] += n_regs if m == "stnp" else 0
            if re.search(r"\[(sp|x29)\b", ops):
                c["spills"] += n_regs
    return c


def audit_loop(insns: list[Insn], loop: Loop, arch: str | None = None) -> LoopAudit:
    arch = arch or guess_arch(insns)
    body = [i for i in insns if loop.start <= i.addr <= loop.end]
    if arch == "x86_64":
        fp = any(i.mnemonic == "mov" and i.operands.replace(" ", "") == "%rsp,%rbp" for i in insns[:12])
        c = _audit_x86(body, fp)
    else:
        c = _audit_a64(body)
    regs = c.pop("regs")
    return LoopAudit(arch=arch, start=loop.start, end=loop.end, instructions=len(body), vector_registers=regs, **c)


def hot_loop(insns: list[Insn], arch: str | None = None) -> LoopAudit | None:
    """The innermost loop doing the most work per iteration: floating-point operations weighted by their vector
    width (so a vectorized main loop wins over its narrower remainder loop), then memory operations, then length."""
    arch = arch or guess_arch(insns)
    loops = innermost(find_loops(insns))
    if not loops:
        return None
    audits = [audit_loop(insns, lp, arch) for lp in loops]

    def work(a: LoopAudit) -> tuple:
        return ((a.fma + a.fp_add + a.fp_mul) * max(1, a.vector_bits // 32), a.loads + a.stores, a.instructions)

    return max(audits, key=work)


# ----------------------------------------------------------------------------------------------------- I/O


def objdump_path() -> str:
    for name in ("objdump", "llvm-objdump", "gobjdump"):
        p = shutil.which(name)
        if p:
            return p
    raise RooflabError("objdump was not found; install binutils (apt-get install binutils) to audit assembly")


# data the C runtime's start-up files define in every shared library, and rooflab's own (its timer's state)
_RUNTIME_DATA = re.compile(r"^(completed\.\d+|__dso_handle|__TMC_END__|_DYNAMIC|_GLOBAL_OFFSET_TABLE_|"
                           r"rooflab_\w*|rl_\w*)$")


def parse_nm_data(text: str) -> int:
    """The bytes of the data objects in ``nm -S --defined-only`` output: a kernel's global and static arrays
    (``double a[N][N];`` at file scope, ``static double buf[M]`` in a function), initialized or not."""
    total = 0
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "BbDdRrVv" and not _RUNTIME_DATA.match(parts[3]):
            try:
                total += int(parts[1], 16)
            except ValueError:
                continue
    return total


@functools.lru_cache(maxsize=64)
def data_bytes(library: str) -> int:
    """The bytes of the global and static data a library defines (its own arrays, not the arguments it is given):
    part of what a kernel touches. 0 where nm is missing or cannot read the library."""
    nm = shutil.which("nm") or shutil.which("llvm-nm")
    if not nm:
        return 0
    try:
        r = subprocess.run([nm, "-S", "--defined-only", str(library)], capture_output=True, text=True,
                           errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    return parse_nm_data(r.stdout) if r.returncode == 0 else 0


def disassemble(library: str | Path, symbol: str, objdump: str | None = None) -> list[Insn]:
    """Instructions of one function of a shared library (``objdump``: a cross objdump for another ISA)."""
    od = objdump or objdump_path()
    r = subprocess.run([od, "-d", "--no-show-raw-insn", f"--disassemble={symbol}", str(library)],
                       capture_output=True, text=True, errors="replace", timeout=120)
    text = r.stdout
    if r.returncode != 0 or f"<{symbol}>:" not in text:
        # older objdump: disassemble everything and cut out the function
        r = subprocess.run([od, "-d", "--no-show-raw-insn", str(library)], capture_output=True, text=True,
                           errors="replace", timeout=120)
        text = r.stdout
    insns = []
    inside = False
    lines = []
    for line in text.splitlines():
        if line.rstrip().endswith(">:"):
            inside = line.rstrip().endswith(f"<{symbol}>:")
            continue
        if inside:
            lines.append(line)
    insns = parse_objdump("\n".join(lines))
    if not insns:
        raise RooflabError(f"no code for symbol {symbol!r} in {library}")
    return insns


_FUNC_HEAD = re.compile(r"^[0-9a-f]+ <(.+)>:$")
_FILE_LINE = re.compile(r"^(\S.*):(\d+)(?: \(discriminator \d+\))?$")


def parse_line_listing(text: str, source_name: str) -> dict[str, list[tuple[str, int | None]]]:
    """Per function of an ``objdump -d -l`` listing, its instructions in order as (mnemonic, line): the line of
    ``source_name`` each comes from, None for one from another file (an inlined header)."""
    funcs: dict[str, list[tuple[str, int | None]]] = {}
    cur, line = None, None
    for raw in text.splitlines():
        s = raw.rstrip()
        head = _FUNC_HEAD.match(s)
        if head:
            cur, line = funcs.setdefault(head.group(1), []), None
            continue
        where = _FILE_LINE.match(s) if s and not s[0].isspace() else None
        if where:
            line = int(where.group(2)) if Path(where.group(1)).name == source_name else None
            continue
        if cur is not None and raw[:1].isspace():
            insn = parse_objdump(raw)
            if insn:
                cur.append((insn[0].mnemonic, line))
    return funcs


def line_table(obj: str | Path, library: str | Path, symbols: Sequence[str], source_name: str,
               objdump: str | None = None) -> dict[int, int]:
    """The source line of each instruction of ``symbols`` in ``library``, by address, read from ``obj``: the same
    source compiled with the same flags and ``-g``. A function whose instructions are not the library's one for one
    is left out (no line is better than a wrong one)."""
    od = objdump or objdump_path()
    try:
        r = subprocess.run([od, "-d", "-l", "--no-show-raw-insn", str(obj)], capture_output=True, text=True,
                           errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    listed = parse_line_listing(r.stdout, source_name)
    table: dict[int, int] = {}
    for name in symbols:
        ours = listed.get(name)
        if not ours:
            continue
        try:
            insns = disassemble(library, name, od)
        except RooflabError:
            continue
        # an object's listing runs on over the padding to the next function (nops), the library's stops at the size
        if len(ours) > len(insns) and all(m.startswith(("nop", "xchg")) for m, _ in ours[len(insns):]):
            ours = ours[:len(insns)]
        if [i.mnemonic for i in insns] != [m for m, _ in ours]:
            continue
        table.update({i.addr: ln for i, (_, ln) in zip(insns, ours) if ln is not None})
    return table


def loop_lines(table: dict[int, int], start: int, end: int) -> list[int]:
    """The source lines the instructions between two addresses come from, in order."""
    return sorted({ln for a, ln in table.items() if start <= a <= end})


def audit_function(library: str | Path, symbol: str, objdump: str | None = None) -> LoopAudit | None:
    insns = disassemble(library, symbol, objdump)
    return hot_loop(insns)


# --------------------------------------------------------------------------------------- a closer look at a loop


@dataclass
class LoopDetail:
    """What a hot loop does per iteration, beyond the counts of :class:`LoopAudit`: the evidence ``explain`` reads.

    ``chains``: each accumulator (a register an FP add or FMA both reads and writes) with the number of dependent
    updates it gets per iteration; one accumulator updated in order is a loop-carried dependency chain.
    ``flops``/``bytes``: per iteration, from the lanes of each instruction."""

    arch: str
    instructions: int
    vector_bits: int
    scalar_fp: int = 0  # FP arithmetic on one element (ss/sd; AArch64 s/d registers)
    vector_fp: int = 0
    fma: int = 0
    fp_add: int = 0
    fp_mul: int = 0
    div_sqrt: int = 0
    gathers: int = 0
    scatters: int = 0
    masked: int = 0  # memory or arithmetic under a mask (AVX-512 k registers, vmaskmov, SVE predicates)
    calls: list = field(default_factory=list)  # functions called inside the loop
    chains: dict = field(default_factory=dict)  # accumulator register -> dependent FP updates per iteration
    flops: float = 0.0
    bytes: float = 0.0
    element_bits: int = 0  # the FP element size the loop works on (64: double, 32: float)
    spills: int = 0
    chain_op: str = ""  # what extends the longest chain: "add" (a sum), "fma" (a recurrence), "add+fma"
    inner_chain: int = 0  # the most dependent scalar adds one after another within an iteration, carried or not
    stored_chain: bool = False  # the longest chain's register is stored every iteration: a scan (prefix sum)
    int_div: int = 0  # integer divisions (and modulos) per iteration
    conversions: int = 0  # conversions between float and double per iteration (a double constant in a float loop)
    branches: int = 0  # conditional branches within an iteration, besides the one that closes the loop (not exits)
    memory_chains: int = 0  # values loaded, updated and stored back at one loop-invariant address every iteration
    pointer_chains: int = 0  # loads whose address depends on the register they load into: pointer chasing
    indexed_loads: int = 0  # accesses whose address uses a value loaded in the same iteration: x[idx[i]]
    indexed_updates: int = 0  # those of them that write: an update through an index (a histogram's h[k]++)
    memory_recurrences: int = 0  # values stored and loaded again by the next iteration at a moving address
    lookup_chains: int = 0  # table lookups at an index computed from the last iteration's value: crc, automata
    halving_search: bool = False  # a binary search: a load at the halved interval's middle, a branch on it
    streams: list = field(default_factory=list)  # bytes each walked address moves per iteration
    feedback: int = 0  # accumulators whose addend is computed from themselves: recurrences, not sums
    int_scans: int = 0  # integer running values stored at every element (a prefix sum of counts, a running OR)
    scalar_rounds: int = 0  # floor / ceil / trunc instructions on one element (x86 vroundsd, vrndscalesd)
    side_calls: list = field(default_factory=list)  # calls on a path a branch of the loop takes and comes back from
    exits: int = 0  # conditional branches out of the loop that do not come back, on the data it loads (a search)
    atomics: int = 0  # atomic read-modify-writes of memory per iteration (lock add: #pragma omp atomic)
    moves_only: bool = False  # it loads and stores data and computes nothing on it (a copy, a gather by counters)
    int_ops: int = 0  # integer arithmetic in vector registers per iteration (vpaddd, vpminsd...), packed or on one lane
    lane_loads: int = 0  # loads of one element into a lane of a vector (vmovhpd, vpinsrd...) in a vector loop
    select_addresses: int = 0  # accesses at an address a conditional move chose (x == 0 ? c : c - 1 as an index)

    @property
    def longest_chain(self) -> int:
        return max(self.chains.values(), default=0)

    def to_dict(self) -> dict:
        return {"arch": self.arch, "instructions": self.instructions, "vector_bits": self.vector_bits,
                "scalar_fp": self.scalar_fp, "vector_fp": self.vector_fp, "fma": self.fma, "fp_add": self.fp_add,
                "fp_mul": self.fp_mul, "div_sqrt": self.div_sqrt, "gathers": self.gathers, "scatters": self.scatters,
                "masked": self.masked, "calls": list(self.calls), "accumulators": len(self.chains),
                "longest_chain": self.longest_chain, "flops": self.flops, "bytes": self.bytes,
                "element_bits": self.element_bits, "spills": self.spills, "chain_op": self.chain_op,
                "inner_chain": self.inner_chain,
                "stored_chain": self.stored_chain, "int_div": self.int_div, "conversions": self.conversions,
                "branches": self.branches, "memory_chains": self.memory_chains,
                "pointer_chains": self.pointer_chains, "indexed_loads": self.indexed_loads,
                "indexed_updates": self.indexed_updates, "memory_recurrences": self.memory_recurrences,
                "lookup_chains": self.lookup_chains, "streams": list(self.streams), "feedback": self.feedback,
                "int_scans": self.int_scans,
                "scalar_rounds": self.scalar_rounds,
                "side_calls": list(self.side_calls), "exits": self.exits, "atomics": self.atomics,
                "moves_only": self.moves_only, "int_ops": self.int_ops, "lane_loads": self.lane_loads,
                "select_addresses": self.select_addresses, "halving_search": self.halving_search}


_X86_ELEM = {"pd": 64, "sd": 64, "ps": 32, "ss": 32, "ph": 16, "sh": 16}


_GPR_SIZE = [(re.compile(r"%r(?:[abcd]x|[sd]i|[sb]p|\d+)\b"), 8),
             (re.compile(r"%(?:e(?:[abcd]x|[sd]i|[sb]p)|r\d+d)\b"), 4),
             (re.compile(r"%(?:[abcd]x|[sd]i|[sb]p|r\d+w)\b"), 2),
             (re.compile(r"%(?:[abcd]l|[sd]il|[sb]pl|r\d+b)\b"), 1)]
_SIZE_LETTER = {"b": 1, "w": 2, "l": 4, "q": 8}


def _x86_gpr_bytes(m: str, ops: str) -> int:
    """The bytes an integer instruction's memory operand moves: a widening load's source (movzbl: 1), else the
    size of the general register beside it (%eax: 4), else the mnemonic's suffix (addq: 8); 8 where none says."""
    widen = re.fullmatch(r"mov[sz]([bwl])[wlq]", m)
    if widen:
        return _SIZE_LETTER[widen.group(1)]
    outside = re.sub(r"\([^)]*\)", "", ops)  # the registers that form the address are no operand's size
    for pat, size in _GPR_SIZE:
        if pat.search(outside):
            return size
    return _SIZE_LETTER.get(m[-1], 8) if len(m) > 3 else 8


def _x86_operand_regs(ops: str) -> list[int]:
    """The vector register number of each operand, in AT&T order (the destination last); -1 for the others."""
    parts = re.split(r",(?![^()]*\))", ops) if ops else []
    return [int(m.group(2)) if (m := None if "(" in p else _X86_VREG.search(p)) else -1 for p in parts]


def _note_update(d: dict, cls: str, dst: int, srcs: set[int], accumulates: bool = False,
                 scalar: bool = False) -> None:
    """Follow accumulators: an add or FMA whose destination it also reads (an FMA always reads it) extends the
    chain of that register when the register's value comes from the previous iteration or from the chain itself;
    any other write makes the register a value of this iteration. ``accumulates``: an FMA whose destination is
    only its addend (x86 ``vfmadd231``: d = a*b + d; AArch64 ``fmla``): the chain is a sum (an add), not a
    recurrence that multiplies the carried value. A multiply into the carried value is a product's chain
    (``p *= x[i]``: vmulsd (%rsi),%xmm0,%xmm0)."""
    if dst < 0:
        return
    # the longest run of dependent scalar adds ending in each register within the iteration, carried or not: a sum
    # the compiler unrolled and keeps in order, element by element (a 64-tap filter's inner loop: its products
    # computed in vectors, then added one lane at a time, 64 vaddss one after another)
    depth = d.setdefault("depth", {})
    if scalar and (cls == "add" or (cls == "fma" and accumulates)):
        # (an FMA's addend is its destination; an add reads its destination only where it names it as a source)
        depth[dst] = max((depth.get(r, 0) for r in (srcs | {dst} if accumulates else srcs) if r >= 0), default=0) + 1
    else:
        depth[dst] = 0
    if cls in ("fma", "add", "max", "mul") and (cls == "fma" or dst in srcs) and \
            (dst in d["chains"] or dst not in d["written"]):
        d["chains"][dst] = d["chains"].get(dst, 0) + 1
        d["chain_ops"].setdefault(dst, set()).add("add" if cls == "fma" and accumulates else cls)
    else:
        d["chains"].pop(dst, None)
        d["chain_ops"].pop(dst, None)
        d["written"].add(dst)


def _detail_x86(body: list[Insn]) -> dict:
    d = dict(scalar_fp=0, vector_fp=0, fma=0, fp_add=0, fp_mul=0, div_sqrt=0, gathers=0, scatters=0, masked=0,
             calls=[], chains={}, flops=0.0, bytes=0.0, element_bits=0, written=set(), chain_ops={})
    stored_at: list[tuple[int, str]] = []  # (vector register, address operand) of each store
    partials = 0  # values on a chain of adds moved, packed or stored
    d.update(int_div=0, conversions=0, branches=0, scalar_rounds=0)
    last = body[-1].addr if body else None
    for i in body:
        m, ops = i.mnemonic, i.operands
        if re.fullmatch(r"i?div[bwlq]?", m):
            d["int_div"] += 1
        if re.fullmatch(r"v?(round|rndscale)s[sd]", m):
            d["scalar_rounds"] += 1  # floor, ceil, trunc of one element (vroundsd / vrndscalesd)
        if re.fullmatch(r"v?cvt(ss2sd|sd2ss|ps2pd|pd2ps)[xy]?", m):
            d["conversions"] += 1
        if _is_conditional(m) and i.addr != last and i.target != body[0].addr:  # (not another copy of the latch)
            d["branches"] += 1
        if m.startswith(("vmov", "mov")) and ops and "(" in re.split(r",(?![^()]*\))", ops)[-1]:
            src = _x86_operand_regs(ops)[:1]
            if src and src[0] >= 0:
                stored_at.append((src[0], re.split(r",(?![^()]*\))", ops)[-1].replace(" ", "")))
        if _X86_MOVES.match(m) and d.get("depth"):
            # a value on a chain of adds moved, packed or stored: the chain's steps are outputs (a sum's steps
            # feed only its next add)
            regs_read = _x86_operand_regs(ops)
            last_op = re.split(r",(?![^()]*\))", ops)[-1]
            read = regs_read if "(" in last_op else regs_read[:-1]
            partials += sum(1 for r in set(read) if r >= 0 and d["depth"].get(r, 0) >= 1)
        if m.startswith(("call",)):
            name = re.search(r"<([^>@+]+)", ops)
            d["calls"].append(name.group(1) if name else ops)
            continue
        if re.match(r"vp?gather", m):
            d["gathers"] += 1
        if re.match(r"vp?scatter", m):
            d["scatters"] += 1
        if "{%k" in ops or re.match(r"vp?maskmov", m):
            d["masked"] += 1
        regs = _X86_VREG.findall(ops)
        width = max((_X86_WIDTH[w] for w, _ in regs), default=0)
        suffix = next((s for s in _X86_ELEM if m.endswith(s)), None)
        elem = _X86_ELEM.get(suffix, 0)
        scalar = bool(suffix) and suffix.startswith("s")
        cls = _x86_fp_class(m)
        if re.match(r"v?(div|sqrt)(ps|pd|ss|sd)$", m):
            d["div_sqrt"] += 1
            cls = cls or "div"
        if cls is None and _X86_MINMAX.match(m):
            cls = "max"  # a running maximum or minimum: a chain as a sum's adds are
        if cls:
            lanes = 1 if scalar else max(1, width // elem) if elem else 1
            d["scalar_fp" if scalar else "vector_fp"] += 1
            if cls in ("fma", "add", "mul"):
                d[{"fma": "fma", "add": "fp_add", "mul": "fp_mul"}[cls]] += 1
            d["flops"] += lanes * (2 if cls == "fma" else 1)
            d["element_bits"] = max(d["element_bits"], elem)
            operands = _x86_operand_regs(ops)
            _note_update(d, cls, operands[-1] if operands else -1, set(operands[:-1]),
                         accumulates=bool(re.match(r"vf(n?m(add|sub))231", m)), scalar=scalar)
        elif regs and not m.startswith(_X86_NOT_MEM):
            _note_update(d, "", _x86_operand_regs(ops)[-1], set())
        if not m.startswith(_X86_NOT_MEM) and not _is_branch(m):
            d["bytes"] += len(_x86_mem_operands(ops)[0]) * _x86_access_bytes(m, ops)
    d.pop("written")
    d["inner_chain"] = max(d.pop("depth", {}).values(), default=0)
    if partials >= max(2, d["inner_chain"] // 2):
        # most steps of the chain stored (LFK 10's differences: ar = cx - px[4]; px[4] = ar; br = ar - px[5]; ...):
        # each partial value is an output, not a sum the compiler may add in another order
        d["inner_chain"] = 0
    ops = d.pop("chain_ops")
    # a value carried from one iteration to the next through a chain of adds that moves from register to register
    # (gcc's in-order "fold-left" reduction of a vectorized product: sixteen dependent vaddsd, each into another
    # register, the last one back into the carried one) is as long as all of them
    carried, length, kinds = _x86_carried_chain(body)
    running = set(d["chains"]) | ({carried} if carried is not None else set())  # every value the loop carries
    if carried is not None and length > max(d["chains"].values(), default=0):
        d["chains"] = {carried: length}
        ops = {carried: kinds}
    longest = max(d["chains"], key=d["chains"].get, default=None)
    d["chain_op"] = "+".join(sorted(ops.get(longest, ()))) if longest is not None else ""
    # a scan stores its running value at every element (an address that moves); a sum written back to one
    # loop-invariant address each iteration (the compiler must, where the output may alias an input) is a reduction
    written = _x86_written(body)
    moving = {r for r, addr in stored_at if not _invariant_address(addr, written)}
    d["stored_chain"] = longest is not None and longest in moving
    # (each carried value: a compensated sum's running total takes back what its own rounding lost, through the
    # compensation it carries beside it, t - s)
    d["feedback"] = sum(1 for acc in running if _x86_feeds_back(body, acc))
    d["memory_chains"] = _x86_memory_chains(body)
    d["pointer_chains"] = _x86_pointer_chains(body)
    d["indexed_loads"], d["indexed_updates"] = _x86_indexed_loads(body)
    d["memory_recurrences"] = _x86_memory_recurrences(body)
    d["lookup_chains"] = _x86_lookup_chains(body)
    d["halving_search"] = _x86_halving_search(body)
    d["int_scans"] = _x86_int_scans(body)
    d["streams"] = _x86_streams(body)
    d["moves_only"] = _x86_moves_only(body)
    d["int_ops"] = sum(1 for i in body if _X86_INT_OP.match(i.mnemonic) and not _x86_zeroing(i))
    d["lane_loads"] = sum(1 for i in body if _X86_LANE_LOAD.match(i.mnemonic) and "(" in i.operands
                          and _X86_VREG.search(i.operands.split(")")[-1]))
    d["select_addresses"] = _x86_select_addresses(body)
    return d


def _x86_halving_search(body: list[Insn]) -> bool:
    """A binary search (or bisection): the loop halves a general register (``sar %rax``, ``shr $0x1,%rdx``), loads
    at an address computed from the result (the middle of the interval), makes the middle a bound of the next
    step's interval (it flows into a register the loop carries), and branches on a comparison besides the branch
    that closes it: which half the next step searches hangs on the value just loaded, so each step waits for its load
    or for the branch's outcome, which no predictor learns (each way half the time). An index halved for a lookup
    (``in[j / 2]``) carries nothing to the next iteration."""
    if sum(1 for i in body if _is_conditional(i.mnemonic)) < 2:
        return False
    carried, _ = _x86_carried([f for f in (_x86_gp_flow(i) for i in body) if f], _x86_steps(body))
    derived: set[str] = set()
    loaded = bound = False
    for i in body:
        ops = _x86_operands(i.operands)
        m = i.mnemonic
        if re.match(r"(sar|shr)[lq]?$", m) and ops and ops[-1].startswith("%") and (
                len(ops) == 1 or ops[0] in ("$0x1", "$1")):
            derived.add(_gp_family(ops[-1]))
            continue
        flow = _x86_gp_flow(i)
        if not flow:
            continue
        dst, srcs, addr = flow
        loaded |= bool(addr & derived)  # a load at the middle
        bound |= bool(dst and dst in carried and srcs & derived)  # the middle, the next step's bound
        if dst:
            (derived.add if srcs & derived else derived.discard)(dst)
    return loaded and bound


_X86_GP_REG = re.compile(r"%[a-z0-9]+")
# integer moves and arithmetic through which an index keeps the value a conditional move chose
_X86_INDEX_FLOW = re.compile(r"(mov[sz]?[bwlq]*|lea[lq]?|add[lq]?|sub[lq]?|sh[lr][lq]?|sal[lq]?|imul[lq]?|inc|dec)$")


def _x86_select_addresses(body: list[Insn]) -> int:
    """Memory accesses whose address uses a value a conditional move chose (a neighbour's index picked at the
    borders, ``w = (x == 0) ? c : c - 1``, then ``t[w]``), followed through integer moves and arithmetic, around
    the body twice: an address the vectorizer cannot follow, chosen by a condition the compiler if-converted."""
    chosen: set[str] = set()
    count = 0
    for round_ in range(2):
        for i in body:
            ops = _x86_operands(i.operands)
            if round_ and not i.mnemonic.startswith("lea") and any(
                    "(" in o and {_gp_family(r) for r in _X86_GP_REG.findall(o[o.index("("):])} & chosen for o in ops):
                count += 1  # counted as the second round passes, with what the registers hold there
            if not ops or not ops[-1].startswith("%") or not _X86_GPR.fullmatch(ops[-1]):
                continue
            dst = _gp_family(ops[-1])
            if i.mnemonic.startswith("cmov"):
                chosen.add(dst)
            elif _X86_INDEX_FLOW.match(i.mnemonic):
                srcs = {_gp_family(r) for o in ops[:-1] for r in _X86_GP_REG.findall(o)}
                if i.mnemonic.startswith(("add", "sub", "sh", "sal", "imul", "inc", "dec")):
                    srcs.add(dst)  # the destination is a source too
                (chosen.add if srcs & chosen else chosen.discard)(dst)
            elif not i.mnemonic.startswith(("cmp", "test", "bt", "push", "v")) or i.mnemonic.startswith("vmov"):
                chosen.discard(dst)  # written with something else (xor, and, a move from a vector register)
    return count


# a load of one element into a vector register (the first lane, or another one beside what the register holds):
# how a vector is built from addresses that are not next to each other
_X86_LANE_LOAD = re.compile(r"v(movs[sd]|mov[hl]p[sd]|pinsr[bwdq]|insertps|movq|movd)$")


# integer arithmetic, logic and compares on vector registers (not moves, shuffles, inserts or broadcasts)
_X86_INT_OP = re.compile(r"v?p(add|sub|min|max|mul|abs|avg|sad|madd|and|or|xor|sll|srl|sra|sign|cmp)\w*$")


def _x86_zeroing(i: Insn) -> bool:
    """``vpxor %xmm1,%xmm1,%xmm1``: a register set to zero, no work on data."""
    ops = _x86_operands(i.operands)
    return i.mnemonic.startswith(("vpxor", "pxor", "vpsub", "psub")) and len(set(ops)) == 1


_X86_GPR = re.compile(r"%(r[a-z0-9]+|e[a-z]{2}|[a-z]{2}l?)\b")


def _gp_family(reg: str) -> str:
    """A general register's 64-bit name (%eax, %ax, %al and %ah are %rax; %r8d is %r8)."""
    r = reg.lstrip("%")
    if re.fullmatch(r"r\d+[dwb]?", r):
        return "%" + re.sub(r"[dwb]$", "", r)
    if len(r) == 3 and r[0] in "re":
        return "%r" + r[1:]
    if len(r) == 2 and r[1] in "xlh" and r[0] in "abcd":  # %ax, %al and %ah (a key's second byte: movzbl %ah)
        return f"%r{r[0]}x"
    if r in ("si", "di", "bp", "sp", "sil", "dil", "bpl", "spl"):
        return "%r" + r[:2]
    return "%" + r


def _x86_indexed_loads(body: list[Insn]) -> tuple[int, int]:
    """Memory accesses whose address uses a value the same iteration loaded from memory, directly or through
    arithmetic on it (``movslq (%rsi,%rax,4),%rdx`` then ``vmovsd (%rcx,%rdx,8),%xmm0``: x[col[j]]), or through
    floating-point arithmetic and a conversion to an integer (``vmulss``, ``vcvttss2si %xmm1,%eax``, then
    ``addl $0x1,(%rcx,%rax,4)``: a histogram's bin computed from a float). A load from a loop-invariant address (a
    pointer reloaded from the stack or a struct) does not count, nor does a chain of loads through one register
    (pointer chasing, counted apart). (accesses, those of them that write: updates through an index, h[k]++)."""
    written = {_gp_family(r) for r in _x86_written(body) if r.startswith("%")}
    tainted: set[str] = set()
    tainted_v: set[int] = set()  # vector registers holding a value loaded this iteration (or computed from one)
    n = updates = 0
    for i in body:
        m = i.mnemonic
        if _is_branch(m) or m.startswith(("call", "nop", "prefetch")):
            continue
        ops = _x86_operands(i.operands)
        if not ops:
            continue
        mems = [o for o in ops if "(" in o]
        addr_regs = {_gp_family(r) for o in mems for r in _X86_GPR.findall(o[o.index("("):])}
        dst = ops[-1]
        dst_reg = _gp_family(dst) if dst.startswith("%") and _X86_GPR.fullmatch(dst) else None
        # (a register loaded at an index loaded this iteration may be the one that held the index: movzbl
        # (%rdi,%rdx,1),%edx after movzbl (%rsi,%rax,1),%edx is a table lookup; a pointer chased through one
        # register is never tainted, its value being the last iteration's)
        if mems and not m.startswith("lea") and addr_regs & tainted:
            n += 1
            updates += "(" in dst and not m.startswith(("cmp", "test", "ucomi", "comi", "vucomi", "vcomi"))
        loads_moving = bool(mems) and not m.startswith("lea") and any(
            not _invariant_address(o.replace(" ", ""), written) and "%rsp" not in o for o in mems if o != dst)
        v_srcs = {int(v) for o in ops[:-1] if "(" not in o for _w, v in _X86_VREG.findall(o)}
        if dst_reg is None:
            vdst = _X86_VREG.fullmatch(dst.strip())
            if vdst:  # a vector register: loaded this iteration, or computed from one that was
                same = len(ops) == 3 and ops[0] == ops[1] and m.startswith(("vxor", "vpxor", "vsub"))
                if (loads_moving or v_srcs & tainted_v) and not same:
                    tainted_v.add(int(vdst.group(2)))
                else:
                    tainted_v.discard(int(vdst.group(2)))
            continue
        if m.startswith(("cvt", "vcvt", "vmov", "mov", "vpextr", "pextr")) and v_srcs & tainted_v:
            # a float made an integer (vcvttss2si), or a lane of loaded indices moved out (vmovq %xmm0,%rbx: a
            # gather written out element by element)
            tainted.add(dst_reg)
            continue
        srcs = {_gp_family(o) for o in ops[:-1] if o.startswith("%") and _X86_GPR.fullmatch(o)}
        if not m.startswith(("mov", "lea", "cvt", "set")):  # two-operand arithmetic reads its destination too
            srcs.add(dst_reg)
        if m.startswith(("xor", "sub")) and len(ops) == 2 and ops[0] == ops[1]:  # zeroed: no value of memory's
            srcs = set()
        loaded = bool(mems) and not m.startswith("lea") and dst_reg not in addr_regs and any(
            not _invariant_address(o.replace(" ", ""), written) and "%rsp" not in o for o in mems)
        if loaded or (srcs | addr_regs) & tainted:
            tainted.add(dst_reg)
        else:
            tainted.discard(dst_reg)
    return n, updates


def _x86_carried_chain(body: list[Insn]) -> tuple[int | None, int, set[str]]:
    """The vector register whose value the loop carries to its next iteration through the longest chain of
    dependent FP adds or FMAs, followed through register moves and renaming, that chain's length per iteration and
    what extends it ("add" for a sum, "fma" where the carried value is multiplied): (register, length, kinds), or
    (None, 0, set()). A register is carried when an instruction reads it before any writes it and a later one
    writes it."""
    regs = []  # (kind: an FP class, "move" or "other"; vector registers read; vector register written or -1)
    for i in body:
        m = i.mnemonic
        if _is_branch(m) or m.startswith(("call", "nop", "prefetch")):
            continue
        parts = re.split(r",(?![^()]*\))", i.operands or "")
        ops = _x86_operand_regs(i.operands)
        store = bool(parts) and "(" in parts[-1]
        kind = _x86_fp_class(m) or ("move" if re.match(r"v?mov(ap|up)[sd]$|v?movs[sd]$", m) else "other")
        if kind == "fma" and re.match(r"vf(n?m(add|sub))231", m):
            kind = "add"  # d = a*b + d: the carried value is only added to
        regs.append((kind, [r for r in (ops if store else ops[:-1]) if r >= 0], -1 if store or not ops else ops[-1]))
    written: set[int] = set()
    read_first: set[int] = set()
    for _, srcs, dst in regs:
        read_first |= {r for r in srcs if r not in written}
        if dst >= 0:
            written.add(dst)
    carried = read_first & written
    if not carried:
        return None, 0, set()
    # register -> (the carried register it derives from, dependent adds or FMAs since, what they were)
    depth: dict[int, tuple[int, int, frozenset]] = {r: (r, 0, frozenset()) for r in carried}
    for kind, srcs, dst in regs:
        if dst < 0:
            continue
        from_chain = [depth[r] for r in srcs if r in depth]
        if kind in ("add", "fma") and from_chain:
            origin, n, kinds = max(from_chain, key=lambda x: x[1])
            depth[dst] = (origin, n + 1, kinds | {kind})
        elif kind == "move" and from_chain and len(srcs) == 1:  # a register move carries the chain along
            depth[dst] = from_chain[0]
        else:
            depth.pop(dst, None)
    best = max(((r, n, set(kinds)) for r, (origin, n, kinds) in depth.items() if r in carried and origin == r),
               key=lambda x: x[1], default=(None, 0, set()))
    return best


_X86_GP_LOAD = re.compile(r"^(?:mov|movq|movl|movslq|movsxd)$")


def _x86_pointer_chains(body: list[Insn]) -> int:
    """Loads into a general register whose address uses that same register (``mov (%rdi,%rax,8),%rax``: the next
    index read from the current one; ``mov 8(%rax),%rax``: a list's next pointer): each such load waits for the
    previous one to arrive, one memory latency per step. Not where another instruction of the body sets the register
    afresh from others (``lea (%r9,%rcx,1),%rdx`` before ``movslq 0x1c(%rdx),%rdx``: the register reused for the last
    index of an unrolled gather, each iteration's address computed anew from the counter)."""
    n = 0
    for i in body:
        if not _X86_GP_LOAD.match(i.mnemonic):
            continue
        ops = _x86_operands(i.operands)
        if len(ops) != 2 or "(" not in ops[0] or not ops[1].startswith("%"):
            continue
        dst = ops[1]
        inside = ops[0][ops[0].index("("):]
        wide = {dst, dst.replace("%e", "%r")} if dst.startswith("%e") else {dst}
        if any(re.search(rf"{re.escape(r)}\b", inside) for r in wide) and \
                not any(_x86_sets_afresh(j, _x86_aliases(dst)) for j in body if j is not i):
            n += 1
    return n


_X86_MOVES = re.compile(r"v?(mov|shuf|unpck|perm|align|extract|insert|broadcast|blend|pshuf|punpck|palign)")


def _x86_feeds_back(body: list[Insn], acc: int) -> bool:
    """Whether the loop adds into the running value in vector register ``acc`` a term computed from that value in
    the same iteration through more than adds (a running mean: d = x - mean; mean += d / k): a recurrence, which
    partial sums cannot split, not a reduction. The running value is followed as it moves through adds, moves and
    shuffles (gcc's in-order fold-left of a vector into a scalar sum passes it from register to register); what is
    computed from it otherwise (subtracted from something, multiplied, divided) is a term derived from it."""
    running, derived = {acc}, set()
    for i in body:
        regs = _x86_operand_regs(i.operands)
        if not regs or regs[-1] < 0 or _is_branch(i.mnemonic):
            continue
        dst, m = regs[-1], i.mnemonic
        cls = _x86_fp_class(m)
        two = not m.startswith("v") and len(regs) == 2  # SSE: the destination is also the first source
        vsrcs = [r for r in regs[:-1] if r >= 0] + ([dst] if two else [])
        if cls == "fma":
            form = re.search(r"(132|213|231)", m)
            a, b = regs[0], regs[1] if len(regs) > 2 else dst
            mult, add = {"132": ((dst, a), b), "213": ((b, dst), a), "231": ((b, a), dst)}[form.group(1) if form else
                                                                                          "231"]
            from_it = any(r in running or r in derived for r in mult if r >= 0)
            if add in running and from_it:
                return True
            out_run, out_der = add in running, from_it or add in derived
        elif cls == "add":
            if "sub" in m:  # AT&T: the destination is the last source minus the first
                minuend, sub = (dst, regs[0]) if two else (regs[-2], regs[0])
                if sub in running and minuend in derived:
                    return True  # the running value subtracted from a term computed from it (s = a + s*b - s)
                terms_run = [minuend in running]
                terms_der = [minuend in derived, sub in derived, sub in running]
            else:
                terms_run = [r in running for r in vsrcs]
                terms_der = [r in derived for r in vsrcs]
            if any(terms_run) and any(terms_der):
                return True
            out_run, out_der = any(terms_run), any(terms_der)
        elif _X86_MOVES.match(m):
            out_run, out_der = any(r in running for r in vsrcs), any(r in derived for r in vsrcs)
        else:
            out_run, out_der = False, any(r in running or r in derived for r in vsrcs)
        (running.add if out_run else running.discard)(dst)
        (derived.add if out_der else derived.discard)(dst)
    return False


_NO_WRITE = ("cmp", "test", "bt", "ucomi", "comi", "vucomi", "vcomi", "push", "nop", "prefetch")


# instructions whose destination is written from their sources alone: moves (a vector lane moved out, vmovq
# %xmm10,%rax, as well), address arithmetic, conversions and bit counts; two-operand arithmetic reads it too
_WRITES_AFRESH = ("mov", "lea", "set", "pop", "vmov", "kmov", "cvt", "vcvt", "pextr", "vpextr", "popcnt", "lzcnt",
                  "tzcnt")


def _x86_gp_flow(i: Insn) -> tuple[str | None, set[str], set[str]] | None:
    """One instruction's flow through general registers: (the register it writes or None, the registers its value
    is computed from, the registers that form the address it loads from); None for a branch or a call."""
    m = i.mnemonic
    if _is_branch(m) or m.startswith("call"):
        return None
    ops = _x86_operands(i.operands)
    if not ops or ops == [""]:
        return None
    mems = [o for o in ops if "(" in o]
    addr = {_gp_family(r) for o in mems for r in _X86_GPR.findall(o[o.index("("):])}
    dst = ops[-1]
    writes = None
    if dst.startswith("%") and _X86_GPR.fullmatch(dst) and not m.startswith(_NO_WRITE):
        writes = _gp_family(dst)
    srcs = {_gp_family(o) for o in ops[:-1] if o.startswith("%") and _X86_GPR.fullmatch(o)}
    if writes and len(ops) <= 2 and not m.startswith(_WRITES_AFRESH):
        srcs.add(writes)  # two-operand arithmetic (and a one-operand inc or not) reads its destination too
    if m.startswith("lea"):
        srcs |= addr  # an address computed, not loaded
        addr = set()
    elif not writes:
        srcs |= {_gp_family(o) for o in ops if o.startswith("%") and _X86_GPR.fullmatch(o)}
    return writes, srcs, addr if mems else set()


def _x86_carried(flows: list[tuple], steps: dict[str, int]) -> tuple[set[str], set[str]]:
    """(the general registers a loop body reads before it writes them and writes too: values carried from one
    iteration to the next, the counter and pointers moved by a constant left out; every register it writes)."""
    written: set[str] = set()
    carried: set[str] = set()
    for dst, srcs, addr in flows:
        carried |= (srcs | addr) - written
        if dst:
            written.add(dst)
    return (carried & written) - set(steps), written


_INT_SCAN_OPS = ("add", "or", "xor", "and", "sub", "imul")


def _x86_int_scans(body: list[Insn]) -> int:
    """General registers an integer loop carries from one iteration to the next, updates with a value of this
    iteration (``or (%rsi,%rax,8),%rcx``: acc |= m[i]) and stores at an address that moves every iteration: an
    integer scan (a prefix sum of counts, a running OR). Each element waits for the one before it, and no compiler
    vectorizes it."""
    flows = [(i, f) for i in body if (f := _x86_gp_flow(i))]
    steps = _x86_steps(body)
    carried, written = _x86_carried([f for _i, f in flows], steps)
    moving = {_gp_family(r) for r in written if r in steps}
    n = 0
    for reg in carried:
        updates = [i for i, (dst, srcs, _a) in flows if dst == reg]
        if len(updates) != 1 or not updates[0].mnemonic.startswith(_INT_SCAN_OPS):
            continue  # set afresh, or by more than one step: not a running value
        stored = False
        for i in body:
            ops = _x86_operands(i.operands)
            if len(ops) == 2 and i.mnemonic.startswith("mov") and ops[0].startswith("%") and \
                    _X86_GPR.fullmatch(ops[0]) and _gp_family(ops[0]) == reg and "(" in ops[1]:
                inside = ops[1][ops[1].index("("):]
                stored = stored or any(_gp_family(r) in moving for r in _X86_GPR.findall(inside))
        n += stored
    return n


def _x86_reg_key(op: str) -> str | None:
    """A register operand's identity across its widths (%eax and %rax: rax; %xmm3, %ymm3 and %zmm3: v3); None for
    anything else."""
    if _X86_GPR.fullmatch(op):
        return _gp_family(op)
    m = re.fullmatch(r"%[xyz]mm(\d+)", op)
    return f"v{m.group(1)}" if m else None


def _x86_moves_only(body: list[Insn]) -> bool:
    """Whether a loop body loads and stores data and computes nothing on what it loads: each loaded value is stored
    as it is, or moved between registers first (a copy through an index the counters make: ``out[i] = in[i / 2]``);
    its arithmetic is on counters and addresses only. A compare, an operation or an address that uses a loaded
    value (a search, a sum, a table lookup) is work on the data."""
    data: set[str] = set()
    loads = stores = 0
    for i in body:
        m = i.mnemonic
        if _is_branch(m) or m.startswith(("nop", "prefetch", "call")):
            continue
        ops = _x86_operands(i.operands)
        if not ops or ops == [""]:
            continue
        keys = [_x86_reg_key(o) for o in ops]
        in_addr = {_gp_family(r) for o in ops if "(" in o for r in _X86_GPR.findall(o[o.index("("):])}
        if in_addr & data:
            return False  # an address made from a loaded value: a lookup, not a copy
        if m.startswith(("mov", "vmov")) and not re.match(r"v?movmsk", m):
            if "(" in ops[-1]:
                stores += 1
            elif any("(" in o for o in ops[:-1]):
                loads += 1
                data.add(keys[-1])
            elif keys[-1]:
                (data.add if any(k in data for k in keys[:-1]) else data.discard)(keys[-1])
            continue
        if m.startswith("lea"):
            data.discard(keys[-1])
            continue
        if any("(" in o for o in ops) or any(k in data for k in keys if k):
            return False  # arithmetic or a compare on memory, or on a loaded value
        if keys[-1] and not m.startswith(_NO_WRITE):
            data.discard(keys[-1])
    return loads > 0 and stores > 0


def _x86_lookup_chains(body: list[Insn]) -> int:
    """Loads whose address is computed from a value the previous iteration left in a general register, whose result
    flows back into such a register: table-driven state (``crc = table[(crc ^ b) & 0xff] ^ (crc >> 8)``, a
    finite automaton's ``state = next[state][c]``). Each step waits for the lookup before it: a load's latency plus
    the arithmetic, whatever the ports allow. Not the loop's counter or a pointer moved by a constant, and not a
    register loaded through itself (pointer chasing, counted apart)."""
    flows = [f for f in (_x86_gp_flow(i) for i in body) if f]
    carried, _ = _x86_carried(flows, _x86_steps(body))
    if not carried:
        return 0
    tainted, looked_up, n = set(carried), set(), 0
    for dst, srcs, addr in flows:
        chased = bool(dst and dst in addr)  # mov (%rdi,%rax,8),%rax: pointer chasing
        hit = bool(addr & tainted) and not chased
        n += hit
        if dst:
            inputs = srcs | addr
            (tainted.add if inputs & tainted else tainted.discard)(dst)
            (looked_up.add if hit or inputs & looked_up else looked_up.discard)(dst)
    return n if carried & looked_up else 0


def _x86_operands(operands: str | None) -> list[str]:
    return [o.strip() for o in re.split(r",(?![^()]*\))", operands or "")]


_X86_GP_NAMES = ("ax", "bx", "cx", "dx", "si", "di", "bp", "sp")


def _x86_aliases(reg: str) -> set[str]:
    """A general register's names at 64 and 32 bits (``%rdx``, ``%edx``; ``%r8``, ``%r8d``)."""
    r = reg.lstrip("%")
    m = re.fullmatch(r"r(\d+)[dwb]?", r)
    if m:
        return {f"%r{m.group(1)}", f"%r{m.group(1)}d"}
    base = r[1:] if r[:1] in ("r", "e") and r[1:] in _X86_GP_NAMES else r
    return {f"%r{base}", f"%e{base}"} if base in _X86_GP_NAMES else {reg}


def _x86_sets_afresh(insn: Insn, regs: set[str]) -> bool:
    """Whether ``insn`` writes one of ``regs`` from other values only (a ``lea`` or ``mov`` from other registers,
    a zeroing ``xor``): the chain through that register is broken there."""
    ops = _x86_operands(insn.operands)
    if not ops or ops[-1] not in regs or _is_branch(insn.mnemonic) or insn.mnemonic.startswith(("cmp", "test")):
        return False
    if insn.mnemonic.startswith(("xor", "sub")) and len(ops) == 2 and ops[0] == ops[1]:
        return True
    if not insn.mnemonic.startswith(("lea", "mov", "vmov", "vpextr", "pextr", "vcvt", "cvt", "kmov")):
        return False  # an arithmetic update reads its destination: the chain goes on through it
    # (a lane moved out of a vector register, vmovq %xmm2,%r9 before mov (%rax,%r9,8),%r9, is an index of its own:
    # a gather written out element by element)
    return not any(re.search(rf"{re.escape(r)}\b", o) for o in ops[:-1] for r in regs)


def _x86_written(body: list[Insn]) -> set[str]:
    """The general registers a loop body writes (the last operand of every instruction that is not a store)."""
    out = set()
    for i in body:
        ops = _x86_operands(i.operands)
        if ops and ops[-1].startswith("%") and not _is_branch(i.mnemonic):
            out.add(ops[-1])
    return out


def _invariant_address(addr: str, written: set[str]) -> bool:
    m = _X86_PLAIN_MEM.match(addr)
    return bool(m and m.group(2) not in written)


_X86_PLAIN_MEM = re.compile(r"^(-?(?:0x)?[0-9a-f]*)\((%\w+)\)$")


def _x86_memory_chains(body: list[Insn]) -> int:
    """Addresses that a loop body loads from, updates and stores back to on every iteration, with a base register
    the loop never changes: a running value kept in memory (a sum into an output element the compiler could not
    keep in a register, because another pointer may alias it). Each iteration then waits for the previous one's
    store to reach the next load."""
    written = _x86_written(body)
    loads, stores = set(), set()
    for i in body:
        ops = _x86_operands(i.operands)
        if not ops or _is_branch(i.mnemonic):
            continue
        dst = ops[-1]
        if "(" in dst and i.mnemonic.startswith(("mov", "vmov")):
            stores.add(dst.replace(" ", ""))
        for o in ops[:-1] if len(ops) > 1 else ops:
            if "(" in o:
                loads.add(o.replace(" ", ""))
    return sum(1 for addr in stores & loads if _invariant_address(addr, written) and "%rsp" not in addr)


_X86_MEM = re.compile(r"^(-?(?:0x)?[0-9a-f]*)\((%\w+)?(?:,(%\w+)(?:,(\d))?)?\)$")


def _x86_move(base: str | None, index: str | None, scale: int, steps: dict[str, int]) -> int:
    """How far an address (base, index, scale) moves per iteration: the base's step, plus the index's times the
    scale."""
    return (steps.get(base, 0) if base else 0) + (steps.get(index, 0) * scale if index else 0)


def _x86_streams(body: list[Insn]) -> list[int]:
    """How far each address the loop walks moves per iteration, in bytes: one figure per memory operand form
    (base, index, scale) whose address moves by a constant, the other register in it unchanged by the loop (an
    unrolled body's x[i] and x[i+8] are one stream). A lookup at a loaded index or a pointer chased moves by no
    constant and is none."""
    steps = _x86_steps(body)
    written = {_gp_family(r) for r in _x86_written(body) if r.startswith("%")}
    seen: dict[tuple, int] = {}
    for i in body:
        if _is_branch(i.mnemonic) or i.mnemonic.startswith(("lea", "nop", "prefetch", "call")):
            continue
        for o in _x86_operands(i.operands):
            m = _X86_MEM.match(o.replace(" ", ""))
            if not m or m.group(2) == "%rip":
                continue
            base, index = m.group(2) and _gp_family(m.group(2)), m.group(3) and _gp_family(m.group(3))
            scale = int(m.group(4) or 1)
            move = _x86_move(base, index, scale, steps)
            fixed = [r for r in (base, index) if r and r not in steps]
            if move and not any(r in written for r in fixed):
                seen[(base, index, scale)] = abs(move)
    return sorted(seen.values())


def _x86_steps(body: list[Insn]) -> dict[str, int]:
    """The general registers a loop body moves by a constant each iteration (``add $0x8,%rcx``, ``inc %rax``,
    ``sub $1,%rdx``), by that constant; a register written any other way is left out."""
    steps: dict[str, int] = {}
    other: set[str] = set()
    for i in body:
        ops = _x86_operands(i.operands)
        if not ops or not ops[-1].startswith("%") or _is_branch(i.mnemonic) or \
                i.mnemonic.startswith(("cmp", "test", "bt", "ucomi", "comi", "vucomi", "vcomi")):
            continue  # no register written
        dst, m = _gp_family(ops[-1]), i.mnemonic
        k = None
        if m.startswith(("inc", "dec")) and len(ops) == 1:
            k = 1 if m.startswith("inc") else -1
        elif m.startswith(("add", "sub")) and len(ops) == 2 and ops[0].startswith("$"):
            try:
                k = int(ops[0][1:], 0) * (1 if m.startswith("add") else -1)
            except ValueError:
                k = None
        if k is None:
            other.add(dst)
        else:
            steps[dst] = steps.get(dst, 0) + k
    return {r: k for r, k in steps.items() if r not in other and k}


def _x86_memory_recurrences(body: list[Insn]) -> int:
    """Values a loop body stores and loads again at the next iteration, at an address that moves with the loop
    (``vmovsd %xmm0,(%rcx,%rax,8)`` then, one iteration later, ``vaddsd -0x8(%rcx,%rax,8),...``: S[j] computed
    from S[j-1] through memory): each iteration waits for the previous one's store to reach its load, a
    dependency chain the in-core analyzer does not see."""
    steps = _x86_steps(body)
    stores, loads = [], []
    for at, i in enumerate(body):
        ops = _x86_operands(i.operands)
        if not ops or _is_branch(i.mnemonic) or i.mnemonic.startswith(("lea", "nop", "prefetch")):
            continue
        for k, o in enumerate(ops):
            m = _X86_MEM.match(o.replace(" ", ""))
            if not m:
                continue
            disp = int(m.group(1), 0) if m.group(1) not in ("", "-") else 0
            where = (m.group(2) and _gp_family(m.group(2)), m.group(3) and _gp_family(m.group(3)),
                     int(m.group(4) or 1))
            is_store = k == len(ops) - 1 and len(ops) > 1 and not i.mnemonic.startswith(
                ("cmp", "test", "ucomi", "comi", "vucomi", "vcomi"))
            (stores if is_store else loads).append((where, disp, _x86_access_bytes(i.mnemonic, i.operands), at))
    n = 0
    for (base, index, scale), ds, ws, s_at in stores:
        # how far the address moves per iteration: the base's step, plus the index's times the scale
        move = _x86_move(base, index, scale, steps)
        if (base and base not in steps and base in {_gp_family(r) for r in _x86_written(body)}) or not move:
            continue
        # the next iteration's load, in this iteration's terms, starts at dl + move: it reads back what this store
        # wrote where the two ranges meet (a 16-byte pair stored and the pair one element on loaded: a bubble
        # sort's swap, whose load the store cannot forward in full)
        # and the chain closes only where the value loaded goes into the value stored: a[i] = b[i - 1] + ... beside
        # b[i] = b[i + 1] - ... reads back what the last iteration stored, but nothing it stores waits on that
        if any(w == (base, index, scale) and dl + move < ds + ws and ds < dl + move + wl
               and _x86_flows_into(body, l_at, s_at) for w, dl, wl, l_at in loads):
            n += 1
    return n


_X86_READS_DST = re.compile(r"v?fn?m(add|sub)|vpternlog|vpdpbusd|vpdpwssd")


def _x86_flows_into(body: list[Insn], load: int, store: int) -> bool:
    """Whether the value instruction ``load`` of a loop body reads goes, through registers, into the value
    instruction ``store`` writes to memory, in the same iteration or the next (the body followed twice)."""
    first = _x86_reg_key(_x86_operands(body[load].operands)[-1])
    tainted = {first} if first else set()
    for at in list(range(load + 1, len(body))) + list(range(len(body))):
        i = body[at]
        ops = _x86_operands(i.operands)
        keys = [_x86_reg_key(o) for o in ops]
        if at == store:
            if keys and keys[0] in tainted:
                return True
            continue
        m = i.mnemonic
        if _is_branch(m) or not keys or not keys[-1] or m.startswith(_NO_WRITE):
            continue
        srcs = {k for k in keys[:-1] if k}
        if (len(ops) == 2 and not m.startswith(("mov", "vmov", "lea", "vbroadcast", "vcvt", "cvt", "set"))) or \
                _X86_READS_DST.match(m) or "{%k" in (i.operands or ""):
            srcs.add(keys[-1])  # two-operand arithmetic, an FMA or a merging mask reads its destination too
        (tainted.add if srcs & tainted else tainted.discard)(keys[-1])
    return False


def _x86_access_bytes(m: str, ops: str) -> int:
    """The bytes one instruction's memory operand covers: a scalar FP element, a vector register's width, or an
    integer operand's size."""
    suffix = next((s for s in _X86_ELEM if m.endswith(s)), None)
    if suffix and suffix.startswith("s"):
        return _X86_ELEM[suffix] // 8
    if m in ("vmovq", "movq", "vmovd", "movd"):
        return 8 if m.endswith("q") else 4
    width = max((_X86_WIDTH[w] for w, _ in _X86_VREG.findall(ops)), default=0)
    return width // 8 if width else _x86_gpr_bytes(m, ops)


_A64_SCALAR_FP = re.compile(r"^[sdh]\d+$")


def _detail_a64(body: list[Insn]) -> dict:
    d = dict(scalar_fp=0, vector_fp=0, fma=0, fp_add=0, fp_mul=0, div_sqrt=0, gathers=0, scatters=0, masked=0,
             calls=[], chains={}, flops=0.0, bytes=0.0, element_bits=0, written=set(), chain_ops={})
    d.update(int_div=0, conversions=0, branches=0)
    last = body[-1].addr if body else None
    for i in body:
        m, ops = i.mnemonic, i.operands
        if m in ("sdiv", "udiv"):
            d["int_div"] += 1
        if m == "fcvt" and re.match(r"[sd]\d+, [sd]\d+$", ops or "") and ops[0] != ops.split(", ")[1][0] or \
                m in ("fcvtl", "fcvtl2", "fcvtn", "fcvtn2"):
            d["conversions"] += 1
        if _is_conditional(m) and i.addr != last and i.target != body[0].addr:  # (not another copy of the latch)
            d["branches"] += 1
        if m in ("bl", "blr"):
            name = re.search(r"<([^>@+]+)", ops)
            d["calls"].append(name.group(1) if name else ops)
            continue
        parts = [p.strip() for p in re.split(r",(?![^\[]*\])", ops)] if ops else []
        if any(re.match(r"p\d+/[mz]", p) for p in parts):
            d["masked"] += 1
        cls = _a64_fp_class(m, ops)
        if m in ("fdiv", "fsqrt"):
            d["div_sqrt"] += 1
            cls = cls or "div"
        if cls and parts:
            v = re.match(r"v(\d+)\.(\d+)([hsd])", parts[0])
            if v:
                lanes, elem = int(v.group(2)), {"h": 16, "s": 32, "d": 64}[v.group(3)]
                d["vector_fp"] += 1
            else:
                lanes, elem = 1, {"h": 16, "s": 32, "d": 64}.get(parts[0][:1], 64)
                d["scalar_fp"] += 1
            if cls in ("fma", "add", "mul"):
                d[{"fma": "fma", "add": "fp_add", "mul": "fp_mul"}[cls]] += 1
            d["flops"] += lanes * (2 if cls == "fma" else 1)
            d["element_bits"] = max(d["element_bits"], elem)
            reg = re.match(r"[vsdhq](\d+)", parts[0])
            srcs = {int(r.group(1)) for p in parts[1:] for r in [re.match(r"[vsdhq](\d+)", p)] if r}
            # fmla/fmls: d += a*b; fmadd d, a, b, c: the addend is the last operand
            acc = m in ("fmla", "fmls") or (m in ("fmadd", "fmsub", "fnmadd", "fnmsub") and len(parts) == 4
                                            and parts[3].strip()[1:] == parts[0].strip()[1:])
            _note_update(d, cls, int(reg.group(1)) if reg else -1, srcs, accumulates=acc, scalar=not v)
        if m.startswith(("ld", "st")) and "[" in ops:
            width = max((int(a) * {"b": 8, "h": 16, "s": 32, "d": 64}[b] for a, b in re.findall(r"v\d+\.(\d+)([bhsd])",
                                                                                                  ops)), default=0)
            width = width or (128 if re.search(r"\bq\d+", ops) else 64)
            d["bytes"] += (2 if m[2:].startswith(("p", "np")) else 1) * width / 8
    d.pop("written")
    d["inner_chain"] = max(d.pop("depth", {}).values(), default=0)
    ops = d.pop("chain_ops")
    longest = max(d["chains"], key=d["chains"].get, default=None)
    d["chain_op"] = "+".join(sorted(ops.get(longest, ()))) if longest is not None else ""
    return d


def _call_name(i: Insn) -> str:
    name = re.search(r"<([^>@+]+)", i.operands or "")
    return name.group(1) if name else (i.operands or "").strip()


def _side_path(insns: list[Insn], at: int, loop: LoopAudit | Loop, limit: int = 64,
               seen: set[int] | None = None, jump_back: bool = False, nested: bool = False) -> tuple[bool, list[str]]:
    """Follow the code from index ``at`` (where a branch of the loop leads out of its body): whether it comes back
    into the loop (a cold path, an arm of an if laid out after the loop) rather than leaving it for good (a return,
    a jump elsewhere), and the functions it calls on the way. A conditional branch forward on the path is followed
    too, a few levels deep, and on such a branch's path (and past the closing branch) a jump is followed where it
    goes (gcc's sqrt: the root computed inline on a side path, which branches again to call the library for the
    inputs that set errno, and both jump back to the rest of the arm). ``jump_back``: only a jump (not a
    conditional branch, an outer loop's) counts as coming back."""
    seen = set() if seen is None else seen
    found: list[str] = []
    by_addr = None
    k, steps = at, 0
    while 0 <= k < len(insns) and steps < limit and k not in seen:
        i = insns[k]
        if loop.start <= i.addr <= loop.end:
            # fallen into the loop from above: an arm laid out before the loop comes back so; past the closing
            # branch, it is an outer loop's next iteration
            return not jump_back, found
        seen.add(k)
        steps += 1
        k += 1
        if i.mnemonic.startswith("call") or i.mnemonic == "bl":
            found.append(_call_name(i))
        elif i.mnemonic.startswith("ret"):
            break
        elif _is_branch(i.mnemonic) and i.target is not None:
            if loop.start <= i.target <= loop.end and not (jump_back and _is_conditional(i.mnemonic)):
                return True, found
            by_addr = by_addr or {x.addr: n for n, x in enumerate(insns)}
            if not _is_conditional(i.mnemonic):
                if not (jump_back or nested) or i.target not in by_addr:
                    break
                k = by_addr[i.target]  # the rest of the arm, laid out elsewhere
            elif i.target > i.addr and len(seen) < 4 * limit and i.target in by_addr:
                again, calls = _side_path(insns, by_addr[i.target], loop, limit, seen, jump_back, True)
                if again:  # the rest of this path, for its calls too
                    rest = _side_path(insns, k, loop, limit, seen, jump_back, nested)
                    return True, list(dict.fromkeys(found + calls + rest[1]))
    return False, found


def _out_branches(insns: list[Insn], loop: LoopAudit | Loop) -> list[tuple[bool, list[str]]]:
    """For each conditional branch of the body that leads out of it: (comes back, calls on the way); and the path
    past a conditional closing branch (:func:`_latch_path`)."""
    by_addr = {i.addr: k for k, i in enumerate(insns)}
    return [_side_path(insns, by_addr[b.target], loop) for b in _exit_branches(insns, loop, by_addr)] + \
        _latch_path(insns, loop, by_addr)


def _latch_path(insns: list[Insn], loop: LoopAudit | Loop, by_addr: dict[int, int]) -> list[tuple[bool, list[str]]]:
    """The path where a conditional closing branch falls through, where it comes back into the loop: gcc lays out
    one arm of an if after the loop's closing branch (``ja .L50`` taken for one arm, the other falling through,
    computing and jumping back), so that arm, and a call on it, is part of the iteration."""
    end = by_addr.get(loop.end)
    if end is None or end + 1 >= len(insns):
        return []
    latch = insns[end]
    if not (_is_conditional(latch.mnemonic) and latch.target == loop.start):
        return []
    back, calls = _side_path(insns, end + 1, loop, jump_back=True)
    return [(True, calls)] if back else []


def _exit_branches(insns: list[Insn], loop: LoopAudit | Loop, by_addr: dict[int, int]) -> list[Insn]:
    return [b for b in insns if loop.start <= b.addr < loop.end and b.target is not None and
            _is_conditional(b.mnemonic) and not loop.start <= b.target <= loop.end and b.target in by_addr]


# x86 instructions that set the flags a conditional branch reads from the values they compare or compute
_X86_FLAG_SETTERS = re.compile(r"(cmp|test|sub|add|and|or|xor|dec|inc|neg|shr|sar|shl|bt|v?u?comis|kortest|ktest|"
                               r"v?ptest|popcnt|lzcnt|tzcnt|bsf|bsr)")


def _x86_data_exit(body: list[Insn], branch: Insn) -> bool:
    """Whether a branch that can end a loop (an exit, or the closing branch whose fall-through leaves it) tests a
    value the loop loads as it goes (a search's ``x[i] == key``, a string's terminating zero, a vector compare's
    mask) rather than only its counters and bounds (``j < jj + 32 && j < n``: a tile's second bound; a bound
    reloaded from one place every iteration). Unknown cases count as data."""
    at = next((k for k, i in enumerate(body) if i.addr == branch.addr), None)
    if at is None:
        return True
    setter = next((i for i in reversed(body[:at]) if not _is_branch(i.mnemonic)
                   and _X86_FLAG_SETTERS.match(i.mnemonic)), None)
    if setter is None or not setter.mnemonic.startswith(("cmp", "test", "sub", "add", "and", "or", "xor", "dec",
                                                          "inc")):
        return True  # an FP or vector compare, a mask test, a bit scan: values, not counters
    written = _x86_written(body)
    ops = _x86_operands(setter.operands)
    if any("(" in o and not _invariant_address(o, written) for o in ops) or \
            any(o.startswith("%") and not _X86_GPR.fullmatch(o) for o in ops):
        return True  # a memory operand that moves, or a register that is not a general one
    regs = {_gp_family(o) for o in ops if o.startswith("%") and "(" not in o}
    # general registers whose value comes from memory that moves, or from a vector register, within the loop,
    # followed through the body twice (a value loaded late in one iteration is tested early in the next)
    loaded: set[str] = set()
    for _ in range(2):
        for i in body:
            f = _x86_gp_flow(i)
            if not f or not f[0]:
                continue
            dst, srcs, addr = f
            iops = _x86_operands(i.operands)
            moving = any("(" in o and not _invariant_address(o, written) for o in iops[:-1]) if addr else False
            from_vector = any(o.startswith("%") and not _X86_GPR.fullmatch(o) for o in iops[:-1])
            (loaded.add if moving or from_vector or srcs & loaded else loaded.discard)(dst)
    return bool(regs & loaded)


def side_calls(insns: list[Insn], loop: LoopAudit | Loop, outs: list | None = None) -> list[str]:
    """Functions called on the paths that a branch of the loop takes out of its body and that come back into it
    (gcc's cold path to sqrt for the inputs that set errno, or to __muldc3 when a complex product is NaN): the call
    is not in the body, yet it is why the body is what it is. A path that leaves the loop for good (returns, or
    jumps elsewhere) is not followed. ``outs``: :func:`_out_branches` of the loop, where already worked out."""
    out: list[str] = []
    for back, calls in (outs if outs is not None else _out_branches(insns, loop)):
        if back:
            out += [c for c in calls if c not in out]
    return out


def detail_loop(insns: list[Insn], loop: LoopAudit | Loop, arch: str | None = None) -> LoopDetail:
    arch = arch or guess_arch(insns)
    body = [i for i in insns if loop.start <= i.addr <= loop.end]
    d = _detail_x86(body) if arch == "x86_64" else _detail_a64(body)
    audit = loop if isinstance(loop, LoopAudit) else audit_loop(insns, loop, arch)
    # a conditional branch out of the body that does not come back is an exit (a search's early exit, a while
    # loop's second condition), not control flow inside the iteration
    by_addr = {i.addr: k for k, i in enumerate(insns)}
    exits = _exit_branches(insns, loop, by_addr)
    outs = [_side_path(insns, by_addr[b.target], loop) for b in exits]
    leave = [b for b, (back, _) in zip(exits, outs) if not back]
    arm = _latch_path(insns, loop, by_addr)
    outs += arm
    # a closing branch whose other arm comes back is an if within the iteration (TSVC's s2710: the test of
    # a[i] > b[i] closes the loop, the else arm laid out after it jumps back)
    d["branches"] = max(0, d["branches"] - len(leave)) + (1 if arm else 0)
    if arch == "x86_64":
        # a loop that stops on its data (a search): an exit, or its closing branch (while (i < n && s[i] != 0):
        # the byte tested at the bottom, the count in an exit), tests a value it loaded; a test of its counters
        # alone is a second bound (a tile's j < jj + 32 && j < n). A closing branch whose fall-through comes back
        # (an if's arm laid out after the loop, the count tested in the middle) ends nothing
        latch = body[-1] if body and _is_conditional(body[-1].mnemonic) and body[-1].target == loop.start \
            and not arm else None
        d["exits"] = sum(1 for b in leave + ([latch] if latch else []) if _x86_data_exit(body, b))
    else:
        d["exits"] = len(leave)
    d["atomics"] = sum(1 for i in body if i.locked)
    return LoopDetail(arch=arch, instructions=len(body), vector_bits=audit.vector_bits, spills=audit.spills,
                      side_calls=side_calls(insns, loop, outs), **d)


def loop_assembly(insns: list[Insn], loop: LoopAudit | Loop) -> str:
    """The loop body as assembly text a static analyzer reads (llvm-mca): addresses dropped, the backward branch
    aimed at a label."""
    out = [".Lrooflab_loop:"]
    for i in insns:
        if not (loop.start <= i.addr <= loop.end):
            continue
        if _is_branch(i.mnemonic) and i.target == loop.start:
            out.append(f"\t{i.mnemonic}\t.Lrooflab_loop")
        elif _is_branch(i.mnemonic) or i.mnemonic.startswith(("call", "bl")):
            continue  # a branch out of the loop or a call: not part of the steady state an analyzer models
        else:
            out.append(f"\t{i.mnemonic}\t{i.operands}".rstrip())
    return "\n".join(out) + "\n"


SAMPLED_SHARE = 0.2  # an innermost loop holding this share of a function's samples or more is where its time goes


# samples past a loop's closing branch, up to another branch back to its start, this share of the loop's or more: the
# code there is an arm of the loop's body (a compiler that copies the closing test into each arm of a branch: a gather
# behind a bounds check, one arm storing zero, the other loading through the index, each closing the loop), not a rare
# path that comes back (complex multiplication's NaN recovery through __muldc3: a side path, its calls side calls)
HOT_ARM_SHARE = 0.2


def sampled_loops(insns: list[Insn], offsets: dict[int, int]) -> list[Loop]:
    """The innermost loops, each reaching to the last branch back to its start where the samples show the code up to
    it runs as much as an arm of the body (HOT_ARM_SHARE) and no other loop lies there."""
    base = insns[0].addr if insns else 0
    loops = find_loops(insns)

    def samples(lo: int, hi: int) -> int:
        return sum(c for off, c in offsets.items() if lo <= base + off <= hi)

    out = []
    for lp in innermost(loops):
        longer = [o for o in loops if o.start == lp.start and o.end > lp.end]
        if longer:
            far = max(longer, key=lambda o: o.end)
            beyond = samples(lp.end + 1, far.end)
            if beyond >= HOT_ARM_SHARE * max(1, samples(lp.start, far.end)) and \
                    not any(far.contains(o) for o in loops if o.start != lp.start):
                lp = far
        out.append(lp)
    return out


def sampled_loop(insns: list[Insn], offsets: dict[int, int], arch: str | None = None) -> LoopAudit | None:
    """The innermost loop where the samples of a function fall most (``offsets``: samples per byte offset from the
    function's first instruction), when it holds at least SAMPLED_SHARE of them; None otherwise."""
    if not insns or not offsets:
        return None
    base = insns[0].addr
    total = sum(offsets.values())
    best, most = None, 0
    for lp in sampled_loops(insns, offsets):
        n = sum(c for off, c in offsets.items() if lp.start <= base + off <= lp.end)
        if n > most:
            best, most = lp, n
    if best is None or most < SAMPLED_SHARE * total:
        return None
    return audit_loop(insns, best, arch or guess_arch(insns))


def inner_share(insns: list[Insn], offsets: dict[int, int]) -> tuple[int, int]:
    """(samples that fall inside an innermost loop, all samples) of one function."""
    if not insns:
        return 0, sum(offsets.values())
    base = insns[0].addr
    loops = sampled_loops(insns, offsets)
    inside = sum(c for off, c in offsets.items() if any(lp.start <= base + off <= lp.end for lp in loops))
    return inside, sum(offsets.values())


def local_callees(insns: list[Insn]) -> list[str]:
    """The functions of the same library a function calls directly (not through the PLT: the library's own code,
    a helper the compiler did not inline, a clone of it)."""
    out: list[str] = []
    for i in insns:
        if i.mnemonic.startswith("call"):
            name = re.search(r"<([^>@+]+)>", i.operands)
            if name and name.group(1) not in out:
                out.append(name.group(1))
    return out


def loop_counts(library: str | Path, symbol: str, objdump: str | None = None) -> tuple[int, int]:
    """How many innermost loops, and how many loops in all, a function, the bodies outlined from it and the library's
    functions they call hold (a time-step loop calling the step, which holds the loops). One innermost loop inside
    others may still not be where the time goes (a vector loop a short trip count never enters, its remainder code
    in the loop around it)."""
    inner = total = 0
    todo, seen = [symbol, *outlined_from(library, symbol, objdump)], set()
    while todo and len(seen) < 32:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            insns = disassemble(library, name, objdump)
        except RooflabError:
            if name == symbol:
                raise
            continue
        loops = find_loops(insns)
        inner += len(innermost(loops))
        total += len(loops)
        todo += [c for c in local_callees(insns) if c not in seen]
    return inner, total


def source_function(symbol: str) -> str:
    """The source's function a compiled symbol comes from: gcc's outlined OpenMP bodies (``NAME._omp_fn.N``), its
    clones (``.part.N``, ``.constprop.N``, ``.isra.N``), cold parts and local aliases are NAME's (no C name has a
    dot)."""
    return symbol.split(".", 1)[0]


def hot_loop_of(library: str | Path, symbol: str, objdump: str | None = None,
                samples: dict[str, dict[int, int]] | None = None) -> tuple[list[Insn], LoopAudit, LoopDetail] | None:
    """The hottest loop of a function with its audit and its detail (see :func:`hot_loop_in`)."""
    found = hot_loop_in(library, symbol, objdump, samples)
    return found[1:] if found else None


def hot_loop_in(library: str | Path, symbol: str, objdump: str | None = None,
                samples: dict[str, dict[int, int]] | None = None
                ) -> tuple[str, list[Insn], LoopAudit, LoopDetail] | None:
    """The function holding the hottest loop of ``symbol``, with the loop's instructions, audit and detail, looked
    for in the function and then in the bodies the compiler outlined from it (gcc's ``NAME._omp_fn.N`` for an OpenMP
    region); None when it has no loop. With ``samples`` (per function name, samples per byte offset: where a profiler
    found the time), the innermost loop where most samples fall, in the function that has the most, which may be
    one of the library's functions it calls (a lookup's helper, where the time went); else the loop doing the most
    work per iteration."""
    names = (symbol, *outlined_from(library, symbol, objdump))
    if samples:
        called = [n for n in samples if n not in names and not n.startswith("rooflab_") and "@" not in n]
        for name in sorted((*names, *called), key=lambda n: -sum((samples.get(n) or {}).values())):
            if not samples.get(name):
                break
            insns = disassemble(library, name, objdump)
            audit = sampled_loop(insns, samples[name])
            if audit is not None:
                return name, insns, audit, detail_loop(insns, audit, audit.arch)
    for name in names:
        insns = disassemble(library, name, objdump)
        audit = hot_loop(insns)
        if audit is not None:
            return _into_callee(library, name, insns, audit, objdump)
    return None


def _into_callee(library: str | Path, name: str, insns: list[Insn], audit: LoopAudit, objdump: str | None,
                 depth: int = 0) -> tuple[str, list[Insn], LoopAudit, LoopDetail]:
    """Without samples, a loop that calls a function of the library holding loops of its own (a time-step loop
    around the step) is not where the work is: the callee's hottest loop is, followed down a few calls."""
    detail = detail_loop(insns, audit, audit.arch)
    local = set(local_callees(insns))
    for callee in (c for c in detail.calls if c in local and c != name):
        try:
            c_insns = disassemble(library, callee, objdump)
        except RooflabError:
            continue
        c_audit = hot_loop(c_insns)
        if c_audit is not None and depth < 4:
            return _into_callee(library, callee, c_insns, c_audit, objdump, depth + 1)
    return name, insns, audit, detail


def outlined_from(library: str | Path, symbol: str, objdump: str | None = None) -> list[str]:
    """The functions a compiler outlined from ``symbol`` (OpenMP regions, split cold parts excluded)."""
    od = objdump or objdump_path()
    try:
        r = subprocess.run([od, "-t", str(library)], capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return []
    pat = re.compile(rf"\s({re.escape(symbol)}\._omp_fn\.\d+)$")
    return sorted({m.group(1) for line in r.stdout.splitlines() if (m := pat.search(line))})
