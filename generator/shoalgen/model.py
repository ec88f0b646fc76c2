# SPDX-License-Identifier: BSD-3-Clause
"""The typed model the table is parsed into. Templates walk these objects."""
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class CType:
    name: str          # TYPENAME token (longlong)
    c: str             # C spelling (long long)
    cls: str           # sint | uint | float | char | complex
    generic: bool      # a standard C type: may appear in a flat _Generic
    guard: Optional[str] = None   # preprocessor condition for declarations using it


@dataclass(frozen=True)
class ParamKind:
    """What a parameter kind means (spec/kinds.toml)."""
    name: str
    ctype: str                 # pointer | scalar | any
    roles: frozenset           # data, symmetric, atomic, aligned, array, count, element, work
    check: Optional[str] = None    # always-on check (C, with {R} {arg} {name} {ctx})
    debug: Optional[str] = None    # check under SHMEM_DEBUG
    doc: Optional[str] = None          # man pages: what an argument of this kind is
    check_doc: Optional[str] = None    # ... and what `check` refuses, in words
    debug_doc: Optional[str] = None    # ... and what `debug` refuses


@dataclass
class Doc:
    """The man page text of a row (generator/shoalgen/man.py lays it out):
    the row's own fields, falling back to its chapter's where it has none."""
    summary: str               # NAME line: a short phrase
    description: str           # DESCRIPTION: a paragraph (blank lines separate more)
    return_value: Optional[str] = None   # RETURN VALUES, for routines that return something
    arguments: dict = field(default_factory=dict)   # parameter name -> text (kinds.toml's otherwise)
    notes: Optional[str] = None          # NOTES: anything Shoal-specific
    see_also: list = field(default_factory=list)    # page or routine names


@dataclass(frozen=True)
class ParamSpec:
    """One parameter as the table writes it; `TYPE` stands for the element."""
    ctype: str         # e.g. "const TYPE *"
    name: str
    kind: str
    flags: frozenset = frozenset()   # e.g. {"nonnull"}: see load.PARAM_FLAGS
    kdef: Optional[ParamKind] = None


@dataclass
class Param:
    """A parameter of one expanded routine (TYPE resolved)."""
    ctype: str
    name: str
    kind: str
    flags: frozenset = frozenset()
    element: bool = False   # points to the routine's elements (TYPE * or void *)
    kdef: Optional[ParamKind] = None   # None: the ctx parameter of ctx forms

    def has(self, role) -> bool:
        return self.kdef is not None and role in self.kdef.roles

    @property
    def decl(self) -> str:
        sep = "" if self.ctype.endswith("*") else " "
        return f"{self.ctype}{sep}{self.name}"


@dataclass
class Constant:
    name: str
    value: str
    version: str
    deprecated: Optional[str] = None
    alias_of: Optional[str] = None


# ---- typed kernel variants: what a [[family]]'s `kernel` (and its fields)
# mean, checked by the loader; the C names of the core follow from them
# (templates/binding_body.j2).
@dataclass(frozen=True)
class RmaKernel:
    direction: str     # put | get
    nbi: bool


@dataclass(frozen=True)
class SingleKernel:        # p and g: one element
    direction: str


@dataclass(frozen=True)
class StridedKernel:
    direction: str


@dataclass(frozen=True)
class AmoKernel:
    op: "AmoOp"
    operand: Optional[str]    # a constant operand (inc = add 1)
    nbi: bool                 # the fetched value lands by the next quiet (a `fetch` parameter)


@dataclass(frozen=True)
class WaitKernel:
    mode: str                 # all | any | some
    blocking: bool
    cmp: Optional[str]        # a fixed comparison (else a `cmp` parameter)


@dataclass(frozen=True)
class PutSignalKernel:
    nbi: bool


@dataclass(frozen=True)
class CollKernel:
    collective: str           # broadcast | collect | fcollect | alltoall | alltoalls
    active_set: bool


@dataclass(frozen=True)
class ReduceKernel:
    op: "ReduceOp"
    active_set: bool


@dataclass(frozen=True)
class ScanKernel:
    exclusive: bool


@dataclass
class Entry:
    """A row of the table: an untyped [[routine]] or a typed [[family]]."""
    file: str
    chapter: str
    name: str
    typed: bool
    returns: str
    params: list
    version: str
    test: str
    ctx: bool = False
    # untyped
    body: str = "forward"
    noreturn: bool = False
    variadic: bool = False
    aliases: list = field(default_factory=list)
    # typed
    pattern: Optional[str] = None
    sized: Optional[str] = None
    mem: Optional[str] = None
    types: list = field(default_factory=list)
    deprecated_types: list = field(default_factory=list)
    generic: Optional[str] = None
    kernel: Optional[str] = None
    k: Optional[object] = None     # the typed kernel variant (RmaKernel, AmoKernel, ...):
                                   # it holds the row's op/operand/mode/blocking/cmp
    inline: Optional[str] = None
    deprecated: Optional[str] = None
    replacement: Optional[str] = None
    select: Optional[str] = None   # generic selects on this parameter (default: first)
    algorithms: dict = field(default_factory=dict)   # env variable -> values to test
    sizes: list = field(default_factory=list)
    invalid_ctx: Optional[str] = None   # "noop": SHMEM_CTX_INVALID returns at once (spec-defined)
    doc: Optional[Doc] = None           # its man page text


@dataclass
class Routine:
    """One exported C function."""
    name: str
    entry: Entry
    chapter: str
    returns: str
    params: list               # [Param], ctx first for ctx forms
    variant: str               # untyped | typed | sized | mem
    is_ctx: bool
    ctype: Optional[CType]     # element type for typed variants
    elem: Optional[str]        # C expression: element size in bytes
    deprecated: Optional[str]
    version: str
    noreturn: bool = False
    variadic: bool = False
    # What lower.py decides; templates/binding_body.j2 and c_decls.j2 write the C.
    checks: list = field(default_factory=list)         # always-on check records
    debug_checks: list = field(default_factory=list)   # check records under SHMEM_DEBUG
    noop_invalid_ctx: bool = False   # SHMEM_CTX_INVALID returns at once
    call: object = None   # parameter names by the part they play (lower.call)
    moved: object = None  # the bytes a call moves, for SHMEM_PROFILE (lower.moved)
    inline: Optional[str] = None     # inline fast path: put | get | p | g | order | amo

    @property
    def has_inline(self) -> bool:
        return bool(self.inline)

    def param(self, kind) -> Optional[str]:
        """The name of the first parameter of `kind`, or None."""
        return next((p.name for p in self.params if p.kind == kind), None)

    @property
    def guard(self) -> Optional[str]:
        return self.ctype.guard if self.ctype else None

    @property
    def extension(self) -> bool:
        """shmemx_ routines: declared in shmemx.h, not shmem.h."""
        return self.name.startswith("shmemx_")

    @property
    def pname(self) -> str:
        return "p" + self.name

    @property
    def proto_params(self) -> str:
        ps = [p.decl for p in self.params]
        if self.variadic:
            ps.append("...")
        return ", ".join(ps) if ps else "void"

    @property
    def args(self) -> str:
        return ", ".join(p.name for p in self.params)


@dataclass
class Association:
    ctype: CType
    selector_types: list       # C types matched ("int *", "const int *")
    target: str                # function (or inline twin) selected
    routine: Optional[Routine] = None   # the typed routine it stands for (its prototype)


@dataclass
class CxxTemplate:
    """The C++ form of one typed generic variant (templates/cxx_generics.j2):
    a function template over the element type shmemi_T, deduced from the
    selected parameter only, that calls the first association of that type."""
    returns: str               # the routine's return type, TYPE -> shmemi_T
    params: list               # "shmemi_T *dest", "const shmemi_cxx::elem<shmemi_T> *source", "size_t nelems"
    reject_params: list        # the rejecting overload's: the selected one, other TYPE ones free ("shmemi_A2")
    reject_types: list         # its extra template parameters ("shmemi_A2", ...)


@dataclass
class GenericVariant:
    nargs: int
    params: list               # parameter names, in order
    flat: list                 # [Association] over standard C types
    chained: list              # [Association] over typedef'd types
    select: str = ""           # the parameter selected on
    direct: Optional[str] = None   # untyped generics: the routine this arity calls
    # Untyped generics: the routine this arity calls, when C++ needs an
    # overload for it (None when it has the generic's own name: the C
    # function is then that overload).
    cxx_routine: Optional[Routine] = None
    cxx: Optional[CxxTemplate] = None   # typed generics: the C++ function template

    @property
    def associations(self) -> list:
        """Flat, then chained: the order C's _Generic tries them in."""
        return self.flat + self.chained


@dataclass
class Generic:
    name: str
    deprecated: bool
    variants: list             # [GenericVariant]: without ctx, then with ctx

    @property
    def extension(self) -> bool:
        """shmemx_ generics: defined in shmemx.h, not shmem.h."""
        return self.name.startswith("shmemx_")


@dataclass
class TestUnit:
    """One generated test program."""
    name: str                  # test_<name>.c
    recipe: str
    entries: list              # [Entry]
    routines: list             # [Routine] of those entries
    npes: list

    @property
    def calls_generics(self) -> bool:
        """Its program calls generic names: it is built as C++ too."""
        return any(e.generic for e in self.entries)


@dataclass(frozen=True)
class AmoOp:
    """One AMO operation (spec/ops.toml [[amo_op]])."""
    name: str          # SHMEMI_AMO_<name>
    fi_op: str         # libfabric operation
    fi_kind: str       # fetch | atomic | compare: the libfabric calls that carry it
    cpu: str           # load | store | exchange | cswap | fetch_<x> | cas
    expr: str          # new value from a (old), b (operand), c (compare value)
    signed: bool       # expr depends on signedness
    classes: tuple     # type classes it is defined on
    oracle: str        # read | write | cswap | fold
    test_init: Optional[str] = None
    test_value: Optional[str] = None
    comment: Optional[str] = None


@dataclass(frozen=True)
class ReduceOp:
    """One reduction operator (spec/ops.toml [[reduce_op]])."""
    name: str          # SHMEMI_OP_<name>
    classes: tuple
    int_expr: Optional[str]
    float_expr: Optional[str]
    complex: bool
    test_contrib: str      # the generated tests' oracle: PE k's element i
    test_combine: str      # ... and the reduction of two of them
    test_contrib_as: str   # the active-set recipe's contributions


@dataclass
class Ops:
    amo: dict          # name -> AmoOp, in enum order
    reduce: dict       # name -> ReduceOp, in enum order


@dataclass
class Api:
    types: dict
    tables: dict
    sizes: dict
    constants: list
    chapters: list             # chapter names, in spec file order
    entries: list
    ops: Optional[Ops] = None
    kinds: dict = field(default_factory=dict)   # name -> ParamKind
    routines: list = field(default_factory=list)
    generics: list = field(default_factory=list)
    tests: list = field(default_factory=list)
    fortran: Optional[object] = None   # the Fortran chapter (fortran.FApi), when loaded with sizes
    chapter_titles: dict = field(default_factory=dict)   # chapter -> its `title` (man pages)

    def chapter_routines(self, chapter):
        return [r for r in self.routines if r.chapter == chapter]
