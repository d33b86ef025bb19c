"""C prototypes of user kernels, parsed with pycparser.

The whole source is not parsed (system headers and compiler extensions would need preprocessing): the text of the
entry's definition up to its body is cut out and parsed alone, with the common fixed-width typedefs declared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import RooflabError

_PRELUDE = ("typedef unsigned long size_t; typedef long ssize_t; typedef long ptrdiff_t; typedef long int64_t; "
            "typedef int int32_t; typedef short int16_t; typedef signed char int8_t; typedef unsigned long uint64_t; "
            "typedef unsigned int uint32_t; typedef unsigned short uint16_t; typedef unsigned char uint8_t;\n")

# C type (as written, without qualifiers) -> (ctypes name, NumPy dtype for pointers)
SCALARS = {
    "double": "double", "float": "float", "long": "long", "long int": "long", "int": "int", "unsigned int": "uint",
    "unsigned long": "ulong", "size_t": "size_t", "ssize_t": "long", "ptrdiff_t": "long", "int64_t": "int64",
    "int32_t": "int32", "uint64_t": "uint64", "uint32_t": "uint32", "long long": "int64", "short": "int16",
    "char": "int8", "unsigned char": "uint8", "int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16",
    "uint16_t": "uint16",
}
POINTEE_DTYPE = {"double": "float64", "float": "float32", "int": "int32", "long": "int64", "int64_t": "int64",
                 "int32_t": "int32", "uint8_t": "uint8", "char": "int8", "unsigned char": "uint8", "short": "int16",
                 "int16_t": "int16", "uint16_t": "uint16", "uint32_t": "uint32", "uint64_t": "uint64",
                 "unsigned int": "uint32", "unsigned long": "uint64", "size_t": "uint64", "long long": "int64"}


@dataclass(frozen=True)
class Param:
    name: str
    base: str  # the C type without pointer or qualifiers
    pointer: bool
    const: bool

    @property
    def c_decl(self) -> str:
        return f"{'const ' if self.const else ''}{self.base}{' *' if self.pointer else ' '}{self.name}"


@dataclass(frozen=True)
class Prototype:
    name: str
    returns: str
    params: tuple[Param, ...]

    def declaration(self) -> str:
        return f"{self.returns} {self.name}({', '.join(p.c_decl for p in self.params) or 'void'});"


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def find_prototype_text(source: str, symbol: str) -> str | None:
    """The text of ``symbol``'s definition or declaration up to its body (or semicolon)."""
    src = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", _strip_comments(source))
    m = re.search(r"(?:^|[;}\n])\s*((?:[A-Za-z_][\w\s\*]*?)\b" + re.escape(symbol) + r"\s*\(([^()]*)\))\s*[{;]",
                  src, re.S)
    if not m:
        return None
    text = m.group(1)
    # drop storage classes and attributes pycparser does not need
    text = re.sub(r"\b(static|inline|extern|__inline__|__inline)\b", " ", text)
    text = re.sub(r"__attribute__\s*\(\(.*?\)\)", " ", text)
    text = re.sub(r"\b(restrict|__restrict__|__restrict)\b", " ", text)
    return " ".join(text.split())


def parse_prototype(text: str, where: str = "prototype") -> Prototype:
    from pycparser import c_ast, c_parser

    src = text.strip().rstrip(";") + ";"
    src = re.sub(r"\b(restrict|__restrict__|__restrict)\b", " ", src)
    try:
        ast = c_parser.CParser().parse(_PRELUDE + src)
    except Exception as exc:  # pycparser raises its own ParseError
        raise RooflabError(f"{where}: cannot parse {text!r}: {exc}") from None
    decl = ast.ext[-1]
    if not isinstance(decl, c_ast.Decl) or not isinstance(decl.type, c_ast.FuncDecl):
        raise RooflabError(f"{where}: {text!r} is not a function prototype")
    fd = decl.type

    def base_of(t) -> tuple[str, bool, bool]:
        pointer = False
        const = False
        if isinstance(t, c_ast.PtrDecl):
            pointer = True
            t = t.type
            if isinstance(t, c_ast.PtrDecl):
                raise RooflabError(f"{where}: pointers to pointers are not supported ({text!r})")
        if isinstance(t, c_ast.TypeDecl):
            const = "const" in (t.quals or [])
            t = t.type
        if isinstance(t, c_ast.IdentifierType):
            return " ".join(t.names), pointer, const
        raise RooflabError(f"{where}: unsupported parameter type in {text!r}")

    params = []
    for i, p in enumerate((fd.args.params if fd.args else []) or []):
        if isinstance(p, c_ast.Typename) and isinstance(p.type, c_ast.TypeDecl) and \
                getattr(p.type.type, "names", None) == ["void"]:
            continue
        base, ptr, const = base_of(p.type)
        if not ptr and base not in SCALARS:
            raise RooflabError(f"{where}: parameter {p.name or i} has type {base!r}, not a supported scalar")
        if ptr and base not in POINTEE_DTYPE and base != "void":
            raise RooflabError(f"{where}: parameter {p.name or i} points to {base!r}, not a numeric type")
        params.append(Param(p.name or f"arg{i}", base, ptr, const))
    ret, rptr, _ = base_of(fd.type)
    if rptr:
        raise RooflabError(f"{where}: a kernel returning a pointer is not supported")
    return Prototype(decl.name, ret, tuple(params))


def prototype_from_source(source_text: str, symbol: str, where: str) -> Prototype:
    text = find_prototype_text(source_text, symbol)
    if text is None:
        raise RooflabError(f"{where}: no function {symbol!r} found in the source (give its prototype in the spec "
                           "with `prototype = \"...\"` if it is generated by macros)")
    return parse_prototype(text, where)
