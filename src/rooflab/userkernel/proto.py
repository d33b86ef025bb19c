"""C prototypes of user kernels, parsed with pycparser.

The whole source is not parsed (system headers and compiler extensions would need preprocessing): the text of the
entry's definition up to its body is cut out and parsed alone, with the common fixed-width typedefs declared.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass

from pycparser import c_ast, c_parser

from rooflab.errors import RooflabError

_PRELUDE = ("typedef unsigned long size_t; typedef long ssize_t; typedef long ptrdiff_t; typedef long int64_t; "
            "typedef int int32_t; typedef short int16_t; typedef signed char int8_t; typedef unsigned long uint64_t; "
            "typedef unsigned int uint32_t; typedef unsigned short uint16_t; typedef unsigned char uint8_t; "
            # C23's (and gcc's and clang's) half-precision type, which pycparser does not know as a keyword
            "typedef float _Float16;\n")

# C type (as written, without qualifiers) -> (ctypes name, NumPy dtype for pointers)
SCALARS = {
    "double": "double", "float": "float", "long": "long", "long int": "long", "int": "int", "unsigned int": "uint",
    "unsigned long": "ulong", "size_t": "size_t", "ssize_t": "long", "ptrdiff_t": "long", "int64_t": "int64",
    "int32_t": "int32", "uint64_t": "uint64", "uint32_t": "uint32", "long long": "int64", "short": "int16",
    "char": "int8", "unsigned char": "uint8", "int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16",
    "uint16_t": "uint16", "signed char": "int8", "unsigned short": "uint16", "unsigned long long": "uint64",
    "int8_t": "int8",
}
# the range of each integer type of SCALARS (its ctypes name), to refuse a value the kernel would get truncated
_INT_CTYPES = {"int": ctypes.c_int, "uint": ctypes.c_uint, "long": ctypes.c_long, "ulong": ctypes.c_ulong,
               "size_t": ctypes.c_size_t, "int64": ctypes.c_int64, "int32": ctypes.c_int32, "uint64": ctypes.c_uint64,
               "uint32": ctypes.c_uint32, "int16": ctypes.c_int16, "uint16": ctypes.c_uint16, "int8": ctypes.c_int8,
               "uint8": ctypes.c_uint8}


_SPECIFIERS = {"signed", "unsigned", "short", "long", "int", "char"}


# C99 complex numbers, in either order and as <complex.h>'s ``complex``: arrays of them are NumPy's complex dtypes
COMPLEX = {"double": "double _Complex", "float": "float _Complex"}


def canonical_type(names) -> str:
    """A C type written with the basic specifiers in any order and any of their synonyms (``unsigned``, ``long
    unsigned int``, ``short int``, ``signed``, ``long long int``) as one name of the tables below (``unsigned int``,
    ``unsigned long``, ``short``, ``int``, ``long long``; ``double _Complex``); any other type as written."""
    names = list(names)
    if "_Complex" in names and len(names) == 2:
        other = [n for n in names if n != "_Complex"][0]
        if other in COMPLEX:
            return COMPLEX[other]
    if not names or not set(names) <= _SPECIFIERS or names.count("long") > 2 or \
            ("signed" in names and "unsigned" in names):
        return " ".join(names)
    unsigned = "unsigned" in names
    longs = names.count("long")
    if "char" in names:
        return "unsigned char" if unsigned else "signed char" if "signed" in names else "char"
    core = "short" if "short" in names else "long long" if longs == 2 else "long" if longs == 1 else "int"
    return f"unsigned {core}" if unsigned else core


def int_range(base: str) -> tuple[int, int] | None:
    """(lowest, highest) value of the C integer type ``base`` (as written, e.g. "unsigned int"); None for a type
    that is not an integer."""
    ct = _INT_CTYPES.get(SCALARS.get(base, ""))
    if ct is None:
        return None
    bits = 8 * ctypes.sizeof(ct)
    signed = ct(-1).value < 0
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


POINTEE_DTYPE = {"double": "float64", "float": "float32", "int": "int32", "long": "int64", "int64_t": "int64",
                 "int32_t": "int32", "uint8_t": "uint8", "char": "int8", "unsigned char": "uint8", "short": "int16",
                 "int16_t": "int16", "uint16_t": "uint16", "uint32_t": "uint32", "uint64_t": "uint64",
                 "unsigned int": "uint32", "unsigned long": "uint64", "size_t": "uint64", "long long": "int64",
                 "signed char": "int8", "int8_t": "int8", "unsigned short": "uint16", "unsigned long long": "uint64",
                 "ssize_t": "int64", "ptrdiff_t": "int64", "double _Complex": "complex128",
                 "float _Complex": "complex64", "_Float16": "float16"}


def is_record(base: str) -> bool:
    """Whether a parameter's base type is a struct or union (pointed to: an array of records)."""
    return base.startswith(("struct ", "union "))


@dataclass(frozen=True)
class Param:
    name: str
    base: str  # the C type without pointer or qualifiers
    pointer: bool
    const: bool
    # a record's fields where the source defines it with fields of one number type: (their NumPy dtype, how many)
    fields: tuple[str, int] | None = None
    # tables of addresses above the data: 1 for row pointers (double **A: one contiguous row-major buffer and a
    # table of its rows' addresses), 2 for double ***A (a table of planes, each a slice of one table of rows), ...
    tables: int = 0

    @property
    def rows(self) -> bool:
        return self.tables > 0

    @property
    def stars(self) -> str:
        return "*" * (1 + self.tables) if self.pointer else ""

    @property
    def c_decl(self) -> str:
        return f"{'const ' if self.const else ''}{self.base} {self.stars}{self.name}"


@dataclass(frozen=True)
class Prototype:
    name: str
    returns: str
    params: tuple[Param, ...]

    def declaration(self) -> str:
        return f"{self.returns} {self.name}({', '.join(p.c_decl for p in self.params) or 'void'});"


# comments (an unclosed one runs to the end) and string or character literals, in one linear pass
_COMMENT_OR_LITERAL = re.compile(r"/\*(?:[^*]|\*(?!/))*(?:\*/|$)|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"?|'(?:\\.|[^'\\\n])*'?")


def _strip_comments(src: str) -> str:
    """Comments blanked out (string literals kept), in time linear in the text's length."""
    return _COMMENT_OR_LITERAL.sub(lambda m: " " if m.group(0).startswith("/") else m.group(0), src)


_ATTRIBUTE = re.compile(r"__attribute__\s*\(\(")


def _drop_attributes(text: str) -> str:
    """``__attribute__((...))`` removed, with nested parentheses, in one pass."""
    out, i = [], 0
    for m in _ATTRIBUTE.finditer(text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 2, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        out.append(" ")
        i = j
    out.append(text[i:])
    return "".join(out)


def find_prototype_text(source: str, symbol: str) -> str | None:
    """The text of ``symbol``'s definition up to its body, or where the source only declares it, its first
    declaration up to the semicolon (a definition names its parameters, where a declaration before it may not:
    ``extern void vranlc(int, double *, double, double *);``).

    Linear in the length of the source: every occurrence of the name followed by ``(`` is looked at once, its
    parameter list read to the matching parenthesis, and only where a ``{`` or ``;`` follows (a definition or a
    declaration, not a call) is the return type read back to the previous statement."""
    src = _strip_comments(source).replace("\\\n", "  ")  # a continued line (a long #define) is one line
    declared = None
    for m in re.finditer(r"(?<![\w$])" + re.escape(symbol) + r"\s*\(", src):
        depth, j = 1, m.end()
        while j < len(src) and depth:
            c = src[j]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            elif c in "{};":
                break  # not a parameter list
            j += 1
        if depth:
            continue
        k = j
        while k < len(src) and src[k].isspace():
            k += 1
        if src.startswith("__attribute__", k):  # attributes between the parameters and the body
            rest = _drop_attributes(src[k:k + 4000])
            k2 = 0
            while k2 < len(rest) and rest[k2].isspace():
                k2 += 1
            follow = rest[k2:k2 + 1]
        else:
            follow = src[k:k + 1]
        if follow not in ("{", ";"):
            continue
        # the return type and qualifiers: back to the previous statement, block or preprocessor line
        b = m.start()
        start = b
        while start > 0 and src[start - 1] not in ";{}" and not (src[start - 1] == "\n" and src[start:b].lstrip()
                                                                 .startswith("#")):
            start -= 1
            if b - start > 2000:  # no return type is that long: a preprocessor line or stray text before it
                break
        head = src[start:b]
        lines = [ln for ln in head.split("\n") if not ln.lstrip().startswith("#")]
        text = " ".join(lines) + src[b:j]
        text = _drop_attributes(text)
        text = re.sub(r"\b(static|inline|extern|__inline__|__inline)\b", " ", text)
        text = re.sub(r"\b(restrict|__restrict__|__restrict)\b", " ", text)
        text = " ".join(text.split())
        if re.search(r"[=\[\]]", text.split(symbol)[0]):  # an expression, not a return type
            continue
        if follow == "{":
            return text
        declared = declared or text
    return declared


_TYPEDEF = re.compile(r"(?<![\w$])typedef(?![\w$])")
_RECORD_DEF = re.compile(r"(?<![\w$])(struct|union)\s+([A-Za-z_]\w*)\s*\{")


def _to_semicolon(src: str, i: int) -> int:
    """The index just past the ``;`` that ends the declaration starting at ``i`` (braces balanced); -1 if none."""
    depth = 0
    for j in range(i, len(src)):
        c = src[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth < 0:
                return -1
        elif c == ";" and depth == 0:
            return j + 1
    return -1


def _record_fields(t, scalars: dict[str, str]) -> tuple[str, int] | None:
    """(NumPy dtype, count) of a struct's fields where all are one number type (arrays of fixed size counted
    element by element), else None: a union, a pointer, a nested record, mixed types or a bit field."""
    if not isinstance(t, c_ast.Struct) or not t.decls:
        return None
    dtype, count = None, 0
    for d in t.decls:
        if d.bitsize is not None:
            return None
        n, ft = 1, d.type
        while isinstance(ft, c_ast.ArrayDecl):
            if not isinstance(ft.dim, c_ast.Constant) or not ft.dim.value.isdigit():
                return None
            n *= int(ft.dim.value)
            ft = ft.type
        if not isinstance(ft, c_ast.TypeDecl) or not isinstance(ft.type, c_ast.IdentifierType):
            return None
        name = canonical_type(ft.type.names)
        this = POINTEE_DTYPE.get(scalars.get(name, name))
        if this is None or (dtype is not None and this != dtype):
            return None
        dtype, count = this, count + n
    return (dtype, count) if dtype else None


@dataclass(frozen=True)
class SourceTypes:
    """The types a kernel's source defines: each typedef name as the C type it stands for (a number type, or
    ``struct tag`` for a record), and the fields of the records defined with fields of one number type."""
    typedefs: dict
    records: dict

    def prelude(self) -> str:
        """Declarations that let a prototype using these names be parsed (records declared, not defined)."""
        out = []
        for name, t in self.typedefs.items():
            out.append(f"typedef {t} {name};" if t else f"typedef struct rooflab_unsupported_{name} {name};")
        return "".join(out) + "\n"


def source_types(source: str) -> SourceTypes:
    """The typedefs and record definitions at any place of a C source, read with pycparser one declaration at a
    time (a declaration it cannot read is skipped): ``typedef double real;``, ``typedef struct {double x, y;}
    vec2;``, ``struct particle {double x, v;};``. A typedef of anything else (a pointer, an array, a function)
    stands for no type a kernel's parameter can be given as (``None``)."""
    src = _strip_comments(source).replace("\\\n", "  ")
    src = "\n".join(ln for ln in src.split("\n") if not ln.lstrip().startswith("#"))
    typedefs: dict[str, str | None] = {}
    records: dict[str, tuple[str, int] | None] = {}
    parser: list = []  # built once, and only for a source that defines types: its tables take a while

    def parse(text: str):
        pre = SourceTypes(typedefs, records).prelude()
        try:
            if not parser:
                parser.append(c_parser.CParser())
            return parser[0].parse(_PRELUDE + pre + text).ext[-1]
        except Exception:  # pycparser raises its own ParseError; a declaration it cannot read is no type
            return None

    starts = sorted([(m.start(), "typedef") for m in _TYPEDEF.finditer(src)]
                    + [(m.start(), "record") for m in _RECORD_DEF.finditer(src)])
    done = -1
    for at, kind in starts:
        if at < done:
            continue  # inside a typedef already read (typedef struct particle {...} particle_t;)
        end = _to_semicolon(src, at)
        if end < 0:
            continue
        node = parse(_drop_attributes(src[at:end]))
        if node is None:
            continue
        done = end
        scalars = {k: v for k, v in typedefs.items() if v and not is_record(v)}
        t = node.type
        if kind == "record" and isinstance(node, c_ast.Decl) and isinstance(t, (c_ast.Struct, c_ast.Union)):
            records[f"{'struct' if isinstance(t, c_ast.Struct) else 'union'} {t.name}"] = _record_fields(t, scalars)
            continue
        if not isinstance(node, c_ast.Typedef) or not isinstance(t, c_ast.TypeDecl):
            if isinstance(node, c_ast.Typedef):
                typedefs[node.name] = None
            continue
        inner = t.type
        if isinstance(inner, c_ast.IdentifierType):
            name = canonical_type(inner.names)
            typedefs[node.name] = typedefs.get(name, name)  # a typedef of a typedef: what that one stands for
        elif isinstance(inner, (c_ast.Struct, c_ast.Union)):
            word = "struct" if isinstance(inner, c_ast.Struct) else "union"
            tag = f"{word} {inner.name or node.name}"  # an anonymous one by its typedef name
            typedefs[node.name] = tag
            if inner.decls is not None:
                records[tag] = _record_fields(inner, scalars)
        else:
            typedefs[node.name] = None
    return SourceTypes(typedefs, records)


def parse_prototype(text: str, where: str = "prototype", types: SourceTypes | None = None) -> Prototype:
    src = text.strip().rstrip(";") + ";"
    src = re.sub(r"\b(restrict|__restrict__|__restrict)\b", " ", src)
    # <complex.h>'s macro next to its type: `double complex`, `complex float`
    src = re.sub(r"\b(double|float)\s+complex\b", r"\1 _Complex", src)
    src = re.sub(r"\bcomplex\s+(double|float)\b", r"_Complex \1", src)
    try:
        ast = c_parser.CParser().parse(_PRELUDE + (types.prelude() if types else "") + src)
    except Exception as exc:  # pycparser raises its own ParseError
        raise RooflabError(f"{where}: cannot parse {text!r}: {exc}") from None
    typedefs = types.typedefs if types else {}
    records = types.records if types else {}
    decl = ast.ext[-1]
    if not isinstance(decl, c_ast.Decl) or not isinstance(decl.type, c_ast.FuncDecl):
        raise RooflabError(f"{where}: {text!r} is not a function prototype")
    fd = decl.type

    tables_of: dict[int, int] = {}

    def base_of(t) -> tuple[str, bool, bool]:
        pointer = False
        const = False
        top = id(t)
        if isinstance(t, c_ast.ArrayDecl):
            # an array parameter (double A[n][m], double x[]) is a pointer to its first element: the kernel gets
            # one contiguous row-major buffer, as for double *A
            while isinstance(t, c_ast.ArrayDecl):
                t = t.type
            if isinstance(t, c_ast.PtrDecl):
                raise RooflabError(f"{where}: arrays of pointers are not supported ({text!r})")
            pointer = True
        if isinstance(t, c_ast.PtrDecl):
            if pointer:
                raise RooflabError(f"{where}: arrays of pointers are not supported ({text!r})")
            pointer = True
            t = t.type
            # double **A: row pointers, each to a row of one buffer; double ***A: pointers to planes of row
            # pointers (the tables are made beside the buffer)
            while isinstance(t, c_ast.PtrDecl):
                tables_of[top] = tables_of.get(top, 0) + 1
                t = t.type
            if tables_of.get(top) and isinstance(t, c_ast.ArrayDecl):
                raise RooflabError(f"{where}: pointers to pointers to arrays are not supported ({text!r})")
            # a pointer to rows (double (*A)[m]): the first row of one contiguous row-major buffer, as double A[][m]
            while isinstance(t, c_ast.ArrayDecl):
                t = t.type
            if isinstance(t, c_ast.PtrDecl):
                raise RooflabError(f"{where}: arrays of pointers are not supported ({text!r})")
        if isinstance(t, c_ast.TypeDecl):
            const = "const" in (t.quals or [])
            t = t.type
        if isinstance(t, c_ast.IdentifierType):
            name = canonical_type(t.names)
            if name in typedefs:  # a type the source defines: what it stands for
                if typedefs[name] is None:
                    raise RooflabError(f"{where}: {name!r} in {text!r} is a typedef of a pointer, an array or a "
                                       "function, which a kernel's parameter cannot be given as")
                return typedefs[name], pointer, const
            return name, pointer, const
        if isinstance(t, (c_ast.Struct, c_ast.Union)) and pointer and t.name and t.decls is None:
            # an array of structs (particles, records): a buffer whose dtype the spec gives, passed as the struct
            # pointer it is (the wrapper declares the struct without defining it)
            return f"{'struct' if isinstance(t, c_ast.Struct) else 'union'} {t.name}", pointer, const
        raise RooflabError(f"{where}: unsupported parameter type in {text!r}")

    params = []
    for i, p in enumerate((fd.args.params if fd.args else []) or []):
        if isinstance(p, c_ast.Typename) and isinstance(p.type, c_ast.TypeDecl) and \
                getattr(p.type.type, "names", None) == ["void"]:
            continue
        base, ptr, const = base_of(p.type)
        if not ptr and base in COMPLEX.values():
            raise RooflabError(f"{where}: parameter {p.name or i} is a complex number passed by value, which a kernel "
                               "cannot be called with here: pass its real and imaginary parts as two scalars, or a "
                               "pointer to it")
        if not ptr and base not in SCALARS:
            raise RooflabError(f"{where}: parameter {p.name or i} has type {base!r}, not a supported scalar")
        if ptr and base not in POINTEE_DTYPE and base != "void" and not is_record(base):
            raise RooflabError(f"{where}: parameter {p.name or i} points to {base!r}, not a numeric type")
        tables = tables_of.get(id(p.type), 0)
        if tables and (base == "void" or is_record(base)):
            raise RooflabError(f"{where}: parameter {p.name or i}: row pointers to {base!r} are not supported (only "
                               "to numbers)")
        params.append(Param(p.name or f"arg{i}", base, ptr, const, records.get(base) if is_record(base) else None,
                            tables))
    ret, rptr, _ = base_of(fd.type)
    if rptr:
        raise RooflabError(f"{where}: a kernel returning a pointer is not supported")
    return Prototype(decl.name, ret, tuple(params))


def prototype_from_source(source_text: str, symbol: str, where: str) -> Prototype:
    text = find_prototype_text(source_text, symbol)
    if text is None:
        raise RooflabError(f"{where}: no function {symbol!r} found in the source (give its prototype in the spec "
                           "with `prototype = \"...\"` if it is generated by macros)")
    return parse_prototype(text, where, source_types(source_text))
