import ctypes
import multiprocessing as mp
import os
import shutil
from pathlib import Path

import pytest

from rooflab.toolchain import compiler as cc
from rooflab.errors import CompileError, CompilerNotFound, parse_diagnostics

pytestmark = pytest.mark.cc
DATA = Path(__file__).resolve().parents[1] / "data"

SRC = """
#include "rl_timer.h"
double add_one(long reps, double *x) { double t0 = rl_now(); for (long r = 0; r < reps; r++) x[0] += 1.0; return rl_now() - t0; }
"""


def _src(tmp_path, text=SRC, name="k.c"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_find_compiler_and_profiles():
    c = cc.find_compiler()
    assert c.kind in ("gcc", "clang", "cc") and c.version and c.arch
    assert "-march=native" in cc.profile_flags("native", c) or "-mcpu=native" in cc.profile_flags("native", c)
    assert not any("native" in f for f in cc.profile_flags("portable", c))
    with pytest.raises(ValueError):
        cc.profile_flags("fastest", c)


def test_cc_env_that_does_not_exist():
    with pytest.raises(CompilerNotFound, match="CC='no-such-cc-xyz'"):
        cc.find_compiler({"CC": "no-such-cc-xyz", "PATH": os.environ["PATH"]})
    with pytest.raises(CompilerNotFound, match="no C compiler found"):
        cc.find_compiler({"PATH": "/nonexistent"})


def test_build_caches_by_content(tmp_path):
    cache = tmp_path / "cache"
    src = _src(tmp_path)
    a = cc.build([src], name="k", cache=cache)
    assert not a.cached and a.path.exists()
    b = cc.build([src], name="k", cache=cache)
    assert b.cached and b.path == a.path
    c = cc.build([src], name="k", cache=cache, flags=["-O1"])
    assert c.key != a.key
    src.write_text(SRC + "\n/* changed */\n")
    d = cc.build([src], name="k", cache=cache)
    assert d.key != a.key
    # a header it does not include is not part of the key
    (tmp_path / "extra.h").write_text("#define X 1\n")
    e = cc.build([src], name="k", cache=cache)
    assert e.key == d.key and e.cached
    fn = ctypes.CDLL(str(e.path)).add_one
    fn.restype = ctypes.c_double
    fn.argtypes = [ctypes.c_long, ctypes.c_void_p]
    x = (ctypes.c_double * 1)(0.0)
    assert fn(5, x) >= 0 and x[0] == 5.0


def _value_of(lib) -> int:
    f = ctypes.CDLL(str(lib.path)).value
    f.restype = ctypes.c_int
    return f()


@pytest.mark.parametrize("layout", ["-I", "subfolder", "inc"])
def test_a_changed_include_anywhere_rebuilds(tmp_path, layout):
    """Headers reached through -I, a subfolder or an included .inc are dependencies too: changing one must not
    leave an old library in use (the compiler's depfile says what was read)."""
    cache = tmp_path / "cache"
    inc = tmp_path / "include"
    inc.mkdir()
    if layout == "-I":
        dep, line, incs = inc / "v.h", '#include "v.h"', [inc]
    elif layout == "subfolder":
        (tmp_path / "sub").mkdir()
        dep, line, incs = tmp_path / "sub" / "v.h", '#include "sub/v.h"', []
    else:
        dep, line, incs = tmp_path / "v.inc", '#include "v.inc"', []
    dep.write_text("#define V 1\n")
    src = _src(tmp_path, f"{line}\nint value(void) {{ return V; }}\n")
    a = cc.build([src], name="v", cache=cache, include_dirs=incs)
    assert _value_of(a) == 1 and not a.cached
    assert cc.build([src], name="v", cache=cache, include_dirs=incs).cached
    dep.write_text("#define V 2\n")
    b = cc.build([src], name="v", cache=cache, include_dirs=incs)
    assert not b.cached and b.key != a.key and _value_of(b) == 2
    dep.write_text("#define V 1\n")  # back: the first build is found again
    c = cc.build([src], name="v", cache=cache, include_dirs=incs)
    assert c.cached and c.key == a.key


def test_a_cached_library_changed_on_disk_is_rebuilt_not_loaded(tmp_path):
    cache = tmp_path / "cache"
    src = _src(tmp_path)
    a = cc.build([src], name="k", cache=cache)
    with open(a.path, "ab") as f:
        f.write(b"tampered")
    b = cc.build([src], name="k", cache=cache)
    assert not b.cached and cc._sha(b.path) == cc._read_meta(b.path.parent)["sha256"]


def test_the_cache_is_private_to_its_user(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o777)
    os.chmod(cache, 0o777)
    cc.build([_src(tmp_path)], name="k", cache=cache)
    assert cache.stat().st_mode & 0o077 == 0
    assert all(p.stat().st_mode & 0o077 == 0 for p in cache.rglob("*") if p.is_dir())


def test_cc_keeps_its_own_arguments(tmp_path):
    c = cc.find_compiler({"CC": "gcc -O0 -DFROM_CC=7", "PATH": os.environ["PATH"]})
    assert c.extra == ("-O0", "-DFROM_CC=7") and "-DFROM_CC=7" in c.identity
    src = _src(tmp_path, "int value(void) { return FROM_CC; }\n")
    assert _value_of(cc.build([src], name="v", cache=tmp_path / "cache", compiler=c)) == 7


def test_depfiles_are_read_with_continuations_and_escaped_spaces():
    text = "out.o: a.c /x/my\\ dir/h.h \\\n /usr/include/stdio.h\nh.h:\n"
    assert cc.parse_depfile(text) == ["a.c", "/x/my dir/h.h", "/usr/include/stdio.h"]


def test_compile_error_has_file_and_line(tmp_path):
    with pytest.raises(CompileError) as ei:
        cc.build([DATA / "broken.c"], name="broken", cache=tmp_path)
    e = ei.value
    errs = [d for d in e.diagnostics if d.kind == "error"]
    assert errs and errs[0].file.endswith("broken.c") and errs[0].line == 2
    assert "broken.c:2:" in str(e) and "undeclared_variable" in str(e)
    assert not list(tmp_path.rglob("*.tmp"))  # no half-written library left behind


def test_missing_source_is_a_compile_error(tmp_path):
    with pytest.raises(CompileError, match="not found"):
        cc.build([tmp_path / "nope.c"], name="nope", cache=tmp_path)


def test_parse_diagnostics_gcc_and_clang_styles():
    out = ("k.c: In function 'f':\nk.c:3:5: error: expected ';' before '}' token\n"
           "/x/y.c:10:1: warning: unused variable 'z' [-Wunused-variable]\nld: fatal error: boom\n")
    ds = parse_diagnostics(out)
    assert [(d.file, d.line, d.col, d.kind) for d in ds] == [("k.c", 3, 5, "error"), ("/x/y.c", 10, 1, "warning")]


def _build_in_child(args):
    src, cache = args
    lib = cc.build([src], name="k", cache=Path(cache))
    ctypes.CDLL(str(lib.path))  # must load: never half-written
    return str(lib.path)


def test_concurrent_builders_publish_atomically(tmp_path):
    src = _src(tmp_path, SRC + "\n/* concurrent */\n")
    cache = tmp_path / "cache"
    with mp.get_context("spawn").Pool(4) as pool:
        paths = pool.map(_build_in_child, [(str(src), str(cache))] * 8)
    assert len(set(paths)) == 1
    outdir = Path(paths[0]).parent
    assert not list(outdir.glob("*.tmp"))
    assert (outdir / "meta.json").exists()


@pytest.mark.openmp
def test_openmp_detected():
    flags = cc.openmp_flags(cc.find_compiler())
    if shutil.which("gcc") and cc.find_compiler().kind == "gcc":
        assert flags == ("-fopenmp",)
    else:
        assert flags is None or "-fopenmp" in " ".join(flags)


OMP_CALLER = """
#include <omp.h>
int threads_here(void) { return omp_get_num_threads(); }
int serial_twice(int x) { return 2 * x; }
"""


def test_a_build_without_openmp_of_a_source_that_calls_the_runtime_links_it(tmp_path):
    if cc.openmp_flags(cc.find_compiler()) is None:
        pytest.skip("the compiler has no OpenMP")
    src = _src(tmp_path, OMP_CALLER)
    assert cc.calls_openmp_runtime([src]) and not cc.calls_openmp_runtime([_src(tmp_path, SRC, "plain.c")])
    # a function of the user's own whose name starts with omp_ is not the runtime
    assert not cc.calls_openmp_runtime([_src(tmp_path, "void omp_small(double *y) { y[0] = 1; }\nvoid f(double *y) { omp_small(y); }\n", "own.c")])
    lib = cc.build([src], name="omp_caller", cache=tmp_path / "cache")  # not declared OpenMP
    loaded = ctypes.CDLL(str(lib.path))
    # outside a parallel region the runtime answers as one thread; the other kernels of the file load as well
    assert loaded.threads_here() == 1 and loaded.serial_twice(21) == 42
    # the linked runtime is part of what the build is cached by: a plain build of the same file is another key
    plain = cc.build([_src(tmp_path, SRC, "plain.c")], name="plain", cache=tmp_path / "cache")
    assert plain.key != lib.key


def test_a_library_calling_a_function_nothing_defines_is_a_clear_error(tmp_path):
    from rooflab.errors import RooflabError
    from rooflab.kernels.runner import load_library

    src = _src(tmp_path, "double mystery_transform(double);\n"
                         "double calls_it(double x) { return mystery_transform(x) + 1.0; }\n")
    lib = cc.build([src], name="undefined_call", cache=tmp_path / "cache")
    with pytest.raises(RooflabError, match=r"k: its library calls mystery_transform, .*-lNAME") as info:
        load_library(str(lib.path), "k")
    assert "Traceback" not in str(info.value)


def test_a_single_inner_loop_inside_others_is_still_sampled(tmp_path):
    from rooflab.toolchain import asm

    src = tmp_path / "k.c"
    src.write_text("void one(long n, double *x) { for (long i = 0; i < n; i++) x[i] += 1.0; }\n"
                   "void nest(long n, long k, const float *x, float *y) { for (long i = 0; i < n; i++) { float s = 0;"
                   " for (long j = 0; j < k; j++) s += x[i + j]; y[i] = s; } }\n")
    lib = cc.build([src], name="nest", cache=tmp_path / "c")
    inner, loops = asm.loop_counts(lib.path, "nest")
    assert loops > inner >= 1  # the nest is sampled: whether its time is in the inner loop is for the samples
    assert asm.loop_counts(lib.path, "one")[1] >= 1
