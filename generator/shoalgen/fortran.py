# SPDX-License-Identifier: BSD-3-Clause
"""The Fortran binding: load spec/fortran.toml against the C model, expand it
into one FRoutine per Fortran name, lower each into records of a C wrapper
(what it takes and passes; templates/fortran/bindings_fortran.c.j2 writes it), and
render shmem.fh, shmemx.fh, the source of module shmem (shmem_mod.f90),
shmemi_fortran.h, bindings_fortran.c and the Fortran tests.

Fortran passes every argument by reference; a wrapper dereferences scalars,
converts default INTEGERs to the C parameter's type and calls the C routine's
pshmem_ twin (so the wrappers inherit the C bindings' argument checks and a
profiler of the C names does not count Fortran calls twice). Element sizes of
the default Fortran types come from the compiler at build time (`sizes`).
"""
import ast
import dataclasses
import json
import operator
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from . import SPDX
from .load import TableError, _read

FILE = "fortran.toml"
MEASURED = ("integer", "real", "double", "logical", "complex")
SIZE_KEYS = set(MEASURED) | {"pointer", "real16"}
RETURNS = {"INTEGER", "LOGICAL", "POINTER", "{T}"}
CLASSES = {"sint", "float", "complex", "char", "logical"}
TYPE_KEYS = {"name", "fortran", "size", "like", "c", "class"}
ROW_KEYS = {"name", "types", "sizes", "size", "c", "core", "params", "fixed", "returns", "op",
            "test", "version", "deprecated", "header",
            # man pages (man.py): the text of a row with no C routine to share a page with
            "summary", "description", "return_value", "arguments", "notes", "see_also"}

HIDDEN = ": hidden"
_CDECL_RE = re.compile(r"^(?P<ctype>.*?)\b(?P<name>[A-Za-z_]\w*)$")


@dataclass
class FType:
    name: str
    fortran: str
    size: int
    c: list
    cls: str

    @property
    def bits(self):
        return 8 * self.size


@dataclass
class FRoutine:
    """One Fortran name, exported under every spelling by one C wrapper."""
    name: str                  # SHMEM_INT4_ADD
    row: dict
    test: str
    op: str
    ftype: Optional[FType]     # element type, for typed and sized rows
    elem: int                  # element bytes (1 for untyped rows)
    returns: Optional[str]     # Fortran type of a function, None for a subroutine
    c_returns: str             # C type the wrapper returns
    calls: str                 # C function called
    params: list               # the wrapper's parameters (records, see _lower_c)
    fargs: list                # the Fortran argument names, in order
    args: list = field(default_factory=list)       # what the call passes (records)
    negative: list = field(default_factory=list)   # size_t counts refused when negative
    core_proto: Optional[str] = None   # prototype of a hand-written core function
    c: Optional[object] = None         # the C routine (model.Routine) it wraps; None for core rows
    dummies: list = field(default_factory=list)    # its explicit interface in module shmem (_dummies)
    in_header: bool = False            # shmem.fh declares its type (the row's `header`)

    @property
    def lname(self):
        return self.name.lower()

    @property
    def symbol(self):
        """The defining symbol: the profiling twin in gfortran's spelling."""
        return "p" + self.lname + "_"

    @property
    def aliases(self):
        """(symbol, weak): gfortran/ifort, f2c/g77 and upper-case spellings,
        each with its profiling twin (the twins strong, as pshmem_ in C)."""
        n, u = self.lname, self.name
        return [(n + "_", True), (n + "__", True), (u, True),
                ("p" + n + "__", False), ("P" + u, False)]


@dataclass
class FTest:
    name: str
    routines: list
    npes: list
    functions: dict = field(default_factory=dict, repr=False)   # every FUNCTION of the table, by name
    module: bool = False       # the variant that says `use shmem` instead of including shmem.fh

    @property
    def program(self):
        return f"ftest_{self.name}" + ("_module" if self.module else "")

    def declarations(self, *also):
        """[(Fortran type, name)] of the functions this program calls: those
        of its recipe, and `also` (the ones its template calls besides).
        The spec has programs declare them; shmem.fh declares only the
        few that other libraries' shmem.fh do (FRoutine.in_header)."""
        names = {r.name for r in self.routines if r.returns}
        for name in also:
            if name not in self.functions:
                raise TableError(FILE, name, f"test {self.name} declares {name}, which is not a "
                                 "function of the Fortran table")
            names.add(name)
        if self.module:
            return []       # module shmem declares them; a second declaration is an error
        return [(self.functions[n].returns, n) for n in sorted(names) if not self.functions[n].in_header]


@dataclass
class FApi:
    sizes: dict
    types: dict
    constants: list            # [(fortran decl, name, fortran value)]
    routines: list
    tests: list
    cores: list                # prototypes of the hand-written core functions
    c_types: list              # [(C type, bytes)] the wrappers rely on

    @property
    def header_functions(self):
        """[(Fortran type, name)] of the functions shmem.fh declares."""
        return [(r.returns, r.name) for r in self.routines if r.in_header]


TEST_NPES = [2, 3]


def parse_sizes(text):
    """'integer=4,real=4,...' (the output of src/fortran/sizes.f90)."""
    sizes = {}
    for item in text.replace(" ", ",").split(","):
        if not item:
            continue
        key, _, value = item.partition("=")
        if key not in SIZE_KEYS or not value.isdigit():
            raise TableError("--fortran-sizes", item, f"expected KEY=BYTES with KEY in {sorted(SIZE_KEYS)}")
        sizes[key] = int(value)
    missing = SIZE_KEYS - set(sizes)
    if missing:
        raise TableError("--fortran-sizes", text, f"missing {sorted(missing)}")
    return sizes


def _fortran_value(name, c_value):
    """C constant expression -> Fortran literal (integers and strings only)."""
    if c_value.startswith('"') and c_value.endswith('"'):
        return "string", "'" + c_value[1:-1].replace("'", "''") + "'"
    expr = re.sub(r"(?<=\d)[uUlL]+\b", "", c_value)
    if not re.fullmatch(r"[\d\s()<>|+\-*]*", expr):
        raise TableError(FILE, name, f"constant value {c_value!r} has no Fortran spelling")
    try:
        return "integer", str(_int_expr(ast.parse(expr.strip(), mode="eval").body))
    except (SyntaxError, ValueError):
        raise TableError(FILE, name, f"constant value {c_value!r} has no Fortran spelling") from None


_INT_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
            ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_}


def _int_expr(node):
    """An integer constant expression of the C table (no eval)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _INT_OPS:
        return _INT_OPS[type(node.op)](_int_expr(node.left), _int_expr(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _int_expr(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    raise ValueError(node)


def _load_types(raw, sizes):
    fixed, types = {}, {}
    rows = raw.get("type", [])
    for t in rows:
        name = t.get("name", "(type)")
        extra = set(t) - TYPE_KEYS
        if extra:
            raise TableError(FILE, name, f"unknown field(s) {sorted(extra)}")
        if t.get("class") not in CLASSES or "fortran" not in t or "size" not in t:
            raise TableError(FILE, name, f"a type needs fortran, size and a class in {sorted(CLASSES)}")
        if isinstance(t["size"], int):
            fixed[name] = FType(name, t["fortran"], t["size"], list(t.get("c", [])), t["class"])
    for t in rows:
        name = t["name"]
        if name in fixed:
            types[name] = fixed[name]
            continue
        if t["size"] not in MEASURED:
            raise TableError(FILE, name, f"size {t['size']!r} is neither bytes nor one of {MEASURED}")
        size = sizes[t["size"]]
        like = [fixed[n] for n in t.get("like", []) if n in fixed and fixed[n].size == size]
        if not like:
            raise TableError(FILE, name, f"the compiler's {t['size']} is {size} bytes, and no type "
                             f"in like={t.get('like')} has that size")
        types[name] = FType(name, t["fortran"], size, like[0].c, t["class"])
    return types


def _constants(raw, c_consts):
    by_name = {c.name: c for c in c_consts}
    out = []
    for name in raw.get("constants", []):
        if name not in by_name:
            raise TableError(FILE, name, "constant is not in constants.toml")
        kind, value = _fortran_value(name, by_name[name].value)
        if kind == "string":
            decl = "CHARACTER*(SHMEM_MAX_NAME_LEN)"
            if "SHMEM_MAX_NAME_LEN" not in [n for _, n, _ in out]:
                raise TableError(FILE, name, "a string constant needs SHMEM_MAX_NAME_LEN listed before it")
        else:
            decl = "INTEGER"
        out.append((decl, name, value))
    return out


def _c_name(pattern, ftype, c_routines, file_entry):
    """Resolve {C} (first C TYPENAME the table has) and {B} (element bits)."""
    name = pattern.replace("{B}", str(ftype.bits)) if ftype else pattern
    if "{C}" not in name:
        if name not in c_routines:
            raise TableError(FILE, file_entry, f"C routine {name} is not in the C table")
        return name, None
    if ftype is None:
        raise TableError(FILE, file_entry, "{C} needs an element type")
    for c in ftype.c:
        candidate = name.replace("{C}", c)
        if candidate in c_routines:
            return candidate, c
    raise TableError(FILE, file_entry, f"no C routine {name} for {ftype.name} (tried C types {ftype.c})")


def _split_cdecl(file_entry, text):
    m = _CDECL_RE.match(text.strip())
    if not m:
        raise TableError(FILE, file_entry, f"parameter {text!r} is not a C declaration")
    return m["ctype"].strip(), m["name"]


def _decl(ctype, name):
    return f"{ctype}{'' if ctype.endswith('*') else ' '}{name}"


def _c_return(fr_returns, ftype, croutine):
    if fr_returns is None:
        return "void"
    if fr_returns == "{T}":
        return croutine.returns if croutine else "void"
    return {"INTEGER": "shmemi_fint", "LOGICAL": "shmemi_flogical", "POINTER": "intptr_t"}[fr_returns]


def _lower_c(fr, croutine, fixed):
    """How a row that calls a C routine takes and passes each argument, as
    records: templates/fortran/bindings_fortran.c.j2 writes the C.
    by: pointer (passed on), element (a scalar of the element type,
    dereferenced), fint (a default INTEGER converted to the C type, scaled
    to bytes for mem counts), fixed (a value from the row's `fixed`)."""
    fargs = list(fr.fargs)
    c_params = croutine.params
    wanted = [p for p in c_params if p.name not in fixed]
    if len(wanted) != len(fargs):
        raise TableError(FILE, fr.name, f"{len(fargs)} Fortran arguments for the {len(wanted)} "
                         f"C parameters of {croutine.name} not in `fixed`")
    unknown = set(fixed) - {p.name for p in c_params}
    if unknown:
        raise TableError(FILE, fr.name, f"fixed names no parameter of {croutine.name}: {sorted(unknown)}")
    it = iter(fargs)
    params, args = [], []
    for p in c_params:
        if p.name in fixed:
            args.append({"by": "fixed", "value": fixed[p.name]})
            continue
        f = next(it)
        a = {"by": "fint", "ctype": p.ctype, "name": f, "scale": None}
        if p.ctype.endswith("*"):
            a["by"] = "pointer"
        elif p.has("element"):  # kinds.toml: a scalar of the element type
            a["by"] = "element"
        else:
            if p.kind == "count" and croutine.variant == "mem" and fr.elem != 1:
                a["scale"] = fr.elem
            if p.kind == "count" and p.ctype == "size_t":
                fr.negative.append(f)   # refused before the conversion
        params.append(a)
        args.append(a)
    return params, args


def _lower_core(fr, fixed):
    """A row that calls a hand-written core function: the wrapper takes the
    row's declarations (`: hidden` ones last) and passes them on."""
    decls = [d.strip() for d in fr.row["params"]]
    visible, hidden, args, proto = [], [], [], []
    for d in decls:
        is_hidden = d.endswith(HIDDEN)
        ctype, name = _split_cdecl(fr.name, d[: -len(HIDDEN)] if is_hidden else d)
        proto.append(_decl(ctype, name))
        if name in fixed:
            args.append({"by": "fixed", "value": fixed[name]})
            continue
        (hidden if is_hidden else visible).append({"by": "pointer", "ctype": ctype, "name": name})
        args.append({"by": "pointer", "ctype": ctype, "name": name})
        if not is_hidden:
            fr.fargs.append(name)
    fr.core_proto = f"{_decl(fr.c_returns, fr.calls)}({', '.join(proto) or 'void'})"
    return visible + hidden, args


def _dummies(fr, pointer_bytes):
    """The dummy arguments of fr's interface in module shmem, in Fortran
    order, from the records the wrapper was lowered to: a buffer (anything
    the C side takes as a data pointer: sources, targets, pWrk, pSync, lock
    words) is a choice argument, TYPE(*), DIMENSION(*) with gfortran's
    NO_ARG_CHECK, so any type, rank or scalar passes as it does in C; every
    other argument is checked: an element value has the element type, a
    count, stride or PE a default INTEGER, SHPALLOC's address the integer of
    a Cray pointer, SHMEM_INFO_GET_NAME's name a CHARACTER."""
    by_name = {p["name"]: p for p in fr.params}
    out = []
    for name in fr.fargs:
        p = by_name[name]
        ctype = p.get("ctype", "")
        const = ctype.startswith("const ")
        d = {"name": name, "choice": False}
        if p["by"] == "element":
            if fr.ftype is None or fr.ftype.fortran.endswith("-byte"):
                raise TableError(FILE, fr.name, f"argument {name} is an element of no Fortran type")
            d["decl"] = f"{fr.ftype.fortran}, intent(in)"
        elif p["by"] == "fint":
            d["decl"] = "integer, intent(in)"
        elif ctype.rstrip(" *").removeprefix("const ") == "shmemi_fint":
            d["decl"] = "integer, intent(in)" if const else "integer, intent(out)"
        elif ctype == "char *":
            d["decl"] = "character(len=*), intent(out)"
        elif ctype == "void **":
            d["decl"] = f"integer*{pointer_bytes}"
        elif ctype.endswith("*"):
            d["decl"] = "type(*), dimension(*)" + (", intent(in)" if const else "")
            d["choice"] = True
        else:
            raise TableError(FILE, fr.name, f"argument {name} ({ctype}) has no Fortran interface")
        out.append(d)
    return out


def _expand_row(row, kind, types, sized, c_routines, c_types, c_sizes, sizes):
    entry = row.get("name", f"({kind})")
    extra = set(row) - ROW_KEYS
    if extra:
        raise TableError(FILE, entry, f"unknown field(s) {sorted(extra)}")
    for key in ("name", "params", "test", "op", "version"):
        if key not in row:
            raise TableError(FILE, entry, f"missing field {key!r}")
    if ("c" in row) == ("core" in row):
        raise TableError(FILE, entry, "needs exactly one of c (a C routine) or core (a core function)")
    returns = row.get("returns")
    if returns is not None and returns not in RETURNS:
        raise TableError(FILE, entry, f"returns {returns!r} is not one of {sorted(RETURNS)}")
    if row.get("header", False) not in (True, False) or (row.get("header") and returns is None):
        raise TableError(FILE, entry, "header is true or false, and true only for a function (returns)")
    instances = []      # (name, ftype, elem)
    if kind == "family":
        if ("types" in row) == ("sizes" in row):
            raise TableError(FILE, entry, "a family ranges over exactly one of types or sizes")
        for t in row.get("types", []):
            if t not in types:
                raise TableError(FILE, entry, f"unknown type {t!r}")
            if types[t].size == 0:
                continue        # the compiler lacks it (REAL*16)
            instances.append((entry.replace("{T}", t), types[t], types[t].size))
        for s in row.get("sizes", []):
            if s not in sized:
                raise TableError(FILE, entry, f"unknown size {s!r} (not in [sized])")
            instances.append((entry.replace("{S}", s), FType(s, f"{sized[s]}-byte", sized[s], [], "sint"),
                              sized[s]))
        if "{T}" not in entry and "{S}" not in entry and len(instances) > 1:
            raise TableError(FILE, entry, "a pattern without {T} or {S} must range over one type")
    else:
        if "{" in entry:
            raise TableError(FILE, entry, "a [[routine]] name has no pattern; use [[family]]")
        if returns == "{T}":
            raise TableError(FILE, entry, "returns {T} needs a typed family")
        size = row.get("size", 1)
        instances.append((entry, FType(str(size), f"{size}-byte", size, [], "sint") if "size" in row else None,
                          size))
    out = []
    fixed = dict(row.get("fixed", {}))
    for name, ftype, elem in instances:
        fr = FRoutine(name=name, row=row, test=row["test"], op=row["op"], ftype=ftype, elem=elem,
                      returns=None, c_returns="void", calls="", params=[], fargs=[],
                      in_header=row.get("header", False))
        if returns == "{T}":
            fr.returns = ftype.fortran
        elif returns == "POINTER":
            fr.returns = f"INTEGER*{sizes['pointer']}"
        else:
            fr.returns = returns
        if "c" in row:
            cname, ctn = _c_name(row["c"], ftype, c_routines, name)
            croutine = c_routines[cname]
            fr.c = croutine
            if ctn:
                c_sizes.add((c_types[ctn].c, ftype.size))
            fr.calls = "p" + cname
            fr.fargs = list(row["params"])
            fr.c_returns = _c_return(returns, ftype, croutine)
            fr.params, fr.args = _lower_c(fr, croutine, fixed)
        else:
            fr.calls = row["core"]
            fr.c_returns = _c_return(returns, ftype, None)
            if returns == "{T}":
                raise TableError(FILE, name, "a core row cannot return {T}")
            fr.params, fr.args = _lower_core(fr, fixed)
        fr.dummies = _dummies(fr, sizes["pointer"])
        out.append(fr)
    return out


def load_fortran(spec_dir, c_api, sizes):
    raw = _read(os.path.join(spec_dir, FILE))
    if raw.get("chapter") != "fortran":
        raise TableError(FILE, "chapter", "must be 'fortran'")
    sizes = dict(sizes)
    types = _load_types(raw, sizes)
    if sizes["real16"] != 16 and "REAL16" in types:
        types["REAL16"].size = 0     # no REAL*16 in this compiler: its rows are left out
    sized = {str(k): int(v) for k, v in raw.get("sized", {}).items()}
    c_routines = {r.name: r for r in c_api.routines}
    c_sizes = set()     # (C type, bytes) pairs the wrappers rely on
    routines, seen = [], {}
    for kind in ("routine", "family"):
        for row in raw.get(kind, []):
            for fr in _expand_row(row, kind, types, sized, c_routines, c_api.types, c_sizes, sizes):
                if fr.name in seen:
                    raise TableError(FILE, row.get("name"), f"Fortran name {fr.name} is produced twice")
                seen[fr.name] = fr
                routines.append(fr)
    routines.sort(key=lambda r: r.name)
    functions = {fr.name: fr for fr in routines if fr.returns}
    tests = {}
    for fr in routines:
        tests.setdefault(fr.test, FTest(fr.test, [], TEST_NPES, functions)).routines.append(fr)
    cores = sorted({fr.core_proto for fr in routines if fr.core_proto})
    return FApi(sizes=sizes, types=types, constants=_constants(raw, c_api.constants),
                routines=routines, tests=sorted(tests.values(), key=lambda t: t.name),
                cores=cores, c_types=sorted(c_sizes))


def test_names(spec_dir):
    """The test programs, known before the sizes are (meson lists them at setup)."""
    raw = _read(os.path.join(spec_dir, FILE))
    return sorted({row["test"] for kind in ("routine", "family") for row in raw.get(kind, [])
                   if "test" in row})


def emit(fapi, env, what, outdir, write):
    os.makedirs(outdir, exist_ok=True)
    if what == "fortran-headers":
        for name in ("shmem.fh", "shmemx.fh", "shmemi_fortran.h", "shmem_mod.f90"):
            write(os.path.join(outdir, name), env.get_template(f"fortran/{name}.j2").render(f=fapi))
    elif what == "fortran-bindings":
        write(os.path.join(outdir, "bindings_fortran.c"),
              env.get_template("fortran/bindings_fortran.c.j2").render(f=fapi))
        write(os.path.join(outdir, "fortran-names.txt"), f"# {SPDX}\n" + "".join(r.name + "\n" for r in fapi.routines))
    elif what == "fortran-tests":
        manifest = []
        for t in fapi.tests:
            tpl = env.get_template(f"fortran/tests/{t.name}.f90.j2")
            write(os.path.join(outdir, f"{t.program}.f90"), tpl.render(f=fapi, unit=t, routines=t.routines))
            # The same recipe through module shmem: every call checked
            # against its explicit interface.
            m = dataclasses.replace(t, module=True)
            write(os.path.join(outdir, f"{m.program}.f90"), tpl.render(f=fapi, unit=m, routines=m.routines))
            # The line templates/fortran/tests/prelude.f90.j2 prints once a
            # value was compared; the runner requires it.
            expect = f"^ *{t.name}: [0-9]+ PEs ok, checked [1-9][0-9]* values$"
            manifest.append({"name": f"fortran/{t.name}/module", "exe": m.program,
                             "npes": t.npes, "timeout": 120, "env": {}, "expect_stdout": expect})
            manifest.append({"name": f"fortran/{t.name}", "exe": f"ftest_{t.name}",
                             "npes": t.npes, "timeout": 120, "env": {}, "expect_stdout": expect})
            # Again with the checked paths (SHMEM_DEBUG), and through libfabric.
            manifest.append({"name": f"fortran/{t.name}/debug", "exe": f"ftest_{t.name}",
                             "npes": t.npes[:1], "timeout": 120, "env": {"SHMEM_DEBUG": "1"},
                             "expect_stdout": expect})
            manifest.append({"name": f"fortran/{t.name}/ofi", "exe": f"ftest_{t.name}",
                             "npes": t.npes[1:], "timeout": 120, "env": {"SHMEM_TRANSPORT": "ofi"},
                             "expect_stdout": expect})
        write(os.path.join(outdir, "manifest.json"), json.dumps({"SPDX": SPDX, "tests": manifest}, indent=1) + "\n")
