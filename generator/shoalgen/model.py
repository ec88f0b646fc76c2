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
class ParamSpec:
    """One parameter as the table writes it; `TYPE` stands for the element."""
    ctype: str         # e.g. "const TYPE *"
    name: str
    kind: str
    flags: frozenset = frozenset()   # e.g. {"nonnull"}: see load.PARAM_FLAGS


@dataclass
class Param:
    """A parameter of one expanded routine (TYPE resolved)."""
    ctype: str
    name: str
    kind: str
    flags: frozenset = frozenset()
    element: bool = False   # points to the routine's elements (TYPE * or void *)

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
    core: Optional[str] = None
    op: Optional[str] = None
    operand: Optional[str] = None
    mode: Optional[str] = None
    blocking: bool = True
    cmp: Optional[str] = None
    inline: Optional[str] = None
    deprecated: Optional[str] = None
    replacement: Optional[str] = None
    select: Optional[str] = None   # generic selects on this parameter (default: first)
    algorithms: dict = field(default_factory=dict)   # env variable -> values to test
    sizes: list = field(default_factory=list)
    invalid_ctx: Optional[str] = None   # "noop": SHMEM_CTX_INVALID returns at once (spec-defined)


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
    body: list = field(default_factory=list)     # C statements (lower.py)
    inline: list = field(default_factory=list)   # inline fast path body, if any

    @property
    def guard(self) -> Optional[str]:
        return self.ctype.guard if self.ctype else None

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


@dataclass
class GenericVariant:
    nargs: int
    params: list               # parameter names, in order
    flat: list                 # [Association] over standard C types
    chained: list              # [Association] over typedef'd types
    select: str = ""           # the parameter selected on
    direct: Optional[str] = None   # untyped generics: the routine this arity calls


@dataclass
class Generic:
    name: str
    deprecated: bool
    variants: list             # [GenericVariant]: without ctx, then with ctx


@dataclass
class TestUnit:
    """One generated test program."""
    name: str                  # test_<name>.c
    recipe: str
    entries: list              # [Entry]
    routines: list             # [Routine] of those entries
    npes: list


@dataclass
class Api:
    types: dict
    tables: dict
    sizes: dict
    constants: list
    chapters: list             # chapter names, in spec file order
    entries: list
    routines: list = field(default_factory=list)
    generics: list = field(default_factory=list)
    tests: list = field(default_factory=list)

    def chapter_routines(self, chapter):
        return [r for r in self.routines if r.chapter == chapter]
