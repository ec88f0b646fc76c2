"""Read spec/*.toml into the model, refusing a bad table with file, entry and reason."""
import os
import re
import tomllib

from .model import Constant, CType, Entry, ParamSpec

# Spec files in chapter order; types and constants are not chapters.
CHAPTER_FILES = ["setup", "memory", "teams", "contexts", "rma", "amo", "signals", "sync",
                 "order", "collectives", "locks", "cache"]

PARAM_KINDS = {
    "plain",        # no checks
    "local_src", "local_dest",      # local buffers
    "sym_dest", "sym_src",          # symmetric objects on the target PE
    "ivar", "ivars",                # local symmetric objects waited on
    "count", "stride", "bsize",     # element counts and strides
    "pe", "value", "cond", "fetch", "cmp", "values", "status", "indices",
    "team",                         # a valid team is required (collectives, team_sync)
    "team_or_invalid",              # SHMEM_TEAM_INVALID has a defined result (queries, splits)
    "root",                         # collectives: the root PE, relative to the team
    "sig_addr", "sig_op",           # signals: the symmetric signal object, its operator
    "active", "psync", "pwrk",      # deprecated active sets: PE_start etc., pSync, pWrk
}
# Flags written after the kind ("shmem_team_t *new_team : local_dest nonnull"),
# both about pointers.
PARAM_FLAGS = {
    "nonnull",      # a pointer that must not be NULL (checked always)
    "aligned",      # an object updated atomically: aligned to its size (under SHMEM_DEBUG)
}
KERNELS = {"rma", "p", "g", "strided", "amo", "wait", "put_signal", "coll", "reduce", "scan",
           "coll_as", "reduce_as"}
INLINES = {"put", "get", "p", "g", "amo"}
ROUTINE_INLINES = {"order"}         # untyped routines: fence and quiet
AMO_OPS = {"FETCH", "SET", "SWAP", "CSWAP", "ADD", "AND", "OR", "XOR"}
WAIT_MODES = {"all", "any", "some"}
SCAN_MODES = {"inclusive", "exclusive"}
REDUCE_OPS = {"AND", "OR", "XOR", "MAX", "MIN", "SUM", "PROD"}
BODIES = {"forward", "noop"}
TYPE_CLASSES = {"sint", "uint", "float", "char", "complex"}

ROUTINE_KEYS = {"name", "returns", "params", "version", "test", "body", "ctx", "noreturn", "inline",
                "variadic", "aliases", "deprecated", "replacement", "generic", "algorithms", "invalid_ctx"}
# What a ctx form does with SHMEM_CTX_INVALID where the spec defines it
# (absent: the context check refuses it, the spec leaving it undefined).
INVALID_CTX = {"noop"}
FAMILY_KEYS = {"name", "typed", "sized", "mem", "types", "deprecated_types", "ctx", "returns",
               "params", "generic", "kernel", "core", "op", "operand", "mode", "blocking", "cmp",
               "inline", "version", "deprecated", "replacement", "test", "select", "sizes",
               "algorithms"}

_PARAM_RE = re.compile(r"^(?P<ctype>.*?)\b(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<kind>\w+)(?P<flags>(\s+\w+)*)$")


class TableError(Exception):
    def __init__(self, file, entry, reason):
        super().__init__(f"{file}: {entry}: {reason}")


def _read(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise TableError(os.path.basename(path), "(file)", str(e)) from None


def _params(file, entry, raw):
    out = []
    for text in raw:
        m = _PARAM_RE.match(text.strip())
        if not m:
            raise TableError(file, entry, f"parameter {text!r} is not 'C declaration : kind [flags]'")
        kind, ctype, flags = m["kind"], m["ctype"].strip(), frozenset(m["flags"].split())
        if kind not in PARAM_KINDS:
            raise TableError(file, entry, f"parameter {m['name']!r} has unknown kind {kind!r}")
        if flags - PARAM_FLAGS:
            raise TableError(file, entry, f"parameter {m['name']!r} has unknown flag(s) {sorted(flags - PARAM_FLAGS)}")
        if flags and not ctype.endswith("*"):
            raise TableError(file, entry, f"parameter {m['name']!r}: flags need a pointer")
        out.append(ParamSpec(ctype, m["name"], kind, flags))
    return out


def _types(file, entry, spec, tables, types):
    if spec is None:
        return []
    names = tables.get(spec) if isinstance(spec, str) else spec
    if names is None:
        raise TableError(file, entry, f"unknown type table {spec!r}")
    for n in names:
        if n not in types:
            raise TableError(file, entry, f"unknown type {n!r}")
    return [types[n] for n in names]


def load_types(spec_dir):
    file = "types.toml"
    raw = _read(os.path.join(spec_dir, file))
    types = {}
    for t in raw.get("type", []):
        name = t.get("name")
        if not name or "c" not in t or t.get("class") not in TYPE_CLASSES:
            raise TableError(file, name or "(type)", "needs name, c and a class in " + str(sorted(TYPE_CLASSES)))
        if name in types:
            raise TableError(file, name, "type listed twice")
        types[name] = CType(name, t["c"], t["class"], bool(t.get("generic", False)), t.get("guard"))
    tables = raw.get("tables", {})
    for tname, members in tables.items():
        _types(file, f"tables.{tname}", members, tables, types)
    sizes = raw.get("sizes", {})
    if "rma" not in sizes:
        raise TableError(file, "sizes", "needs the rma list")
    return types, tables, sizes


def load_constants(spec_dir):
    file = "constants.toml"
    raw = _read(os.path.join(spec_dir, file))
    consts, seen = [], {}
    for c in raw.get("constant", []):
        name = c.get("name", "(constant)")
        if name in seen:
            raise TableError(file, name, "constant listed twice")
        if ("value" in c) == ("alias_of" in c):
            raise TableError(file, name, "needs exactly one of value or alias_of")
        if "alias_of" in c and c["alias_of"] not in seen:
            raise TableError(file, name, f"alias_of {c['alias_of']!r} is not defined above it")
        value = c.get("value") or seen[c["alias_of"]].value
        const = Constant(name, value, c.get("version", ""), c.get("deprecated"), c.get("alias_of"))
        consts.append(const)
        seen[name] = const
    return consts


def _algorithms(file, entry, row):
    """{ENV_VARIABLE: [value, ...]}: the generated test runs once per value."""
    algs = row.get("algorithms", {})
    for var, values in algs.items():
        if not var.startswith("SHMEM_") or not values or not all(isinstance(v, str) for v in values):
            raise TableError(file, entry, f"algorithms: {var} needs a SHMEM_ name and a list of values")
    return algs


def _check_keys(file, entry, row, allowed):
    extra = set(row) - allowed
    if extra:
        raise TableError(file, entry, f"unknown field(s) {sorted(extra)}")
    for key in ("name", "returns", "params", "version", "test"):
        if key not in row:
            raise TableError(file, entry, f"missing field {key!r}")


def _routine(file, chapter, row):
    name = row.get("name", "(routine)")
    _check_keys(file, name, row, ROUTINE_KEYS)
    body = row.get("body", "forward")
    if body not in BODIES:
        raise TableError(file, name, f"body {body!r} is not one of {sorted(BODIES)}")
    if row.get("ctx") and not name.startswith("shmem_"):
        raise TableError(file, name, "ctx forms need a name starting with shmem_")
    if "invalid_ctx" in row and (row["invalid_ctx"] not in INVALID_CTX or not row.get("ctx")
                                 or row["returns"] != "void"):
        raise TableError(file, name, f"invalid_ctx {row['invalid_ctx']!r} needs a void routine with ctx forms "
                         f"and one of {sorted(INVALID_CTX)}")
    if row.get("inline") and (row["inline"] not in ROUTINE_INLINES or row["params"]):
        raise TableError(file, name, f"inline {row['inline']!r} needs a routine without parameters and one of "
                         f"{sorted(ROUTINE_INLINES)}")
    return Entry(file=file, chapter=chapter, name=name, typed=False, returns=row["returns"],
                 params=_params(file, name, row["params"]), version=row["version"],
                 test=row["test"], ctx=bool(row.get("ctx")), body=body,
                 noreturn=bool(row.get("noreturn")), variadic=bool(row.get("variadic")),
                 aliases=list(row.get("aliases", [])), deprecated=row.get("deprecated"),
                 replacement=row.get("replacement"), generic=row.get("generic"),
                 inline=row.get("inline"), algorithms=_algorithms(file, name, row),
                 invalid_ctx=row.get("invalid_ctx"))


def _family(file, chapter, row, types, tables, sizes):
    name = row.get("name", "(family)")
    _check_keys(file, name, row, FAMILY_KEYS)
    e = Entry(file=file, chapter=chapter, name=name, typed=True, returns=row["returns"],
              params=_params(file, name, row["params"]), version=row["version"], test=row["test"],
              ctx=bool(row.get("ctx")), pattern=row.get("typed"), sized=row.get("sized"),
              mem=row.get("mem"), types=_types(file, name, row.get("types"), tables, types),
              deprecated_types=_types(file, name, row.get("deprecated_types"), tables, types),
              generic=row.get("generic"), kernel=row.get("kernel"), core=row.get("core"),
              op=row.get("op"), operand=row.get("operand"), mode=row.get("mode"),
              blocking=bool(row.get("blocking", True)), cmp=row.get("cmp"),
              inline=row.get("inline"), deprecated=row.get("deprecated"),
              replacement=row.get("replacement"), select=row.get("select"),
              algorithms=_algorithms(file, name, row))
    size_list = row.get("sizes", "rma")
    if size_list not in sizes:
        raise TableError(file, name, f"unknown sizes list {size_list!r}")
    e.sizes = sizes[size_list]
    if not (e.pattern and e.types) and not e.sized:
        raise TableError(file, name, "a family needs a typed pattern with types, or a sized pattern")
    if bool(e.pattern) != bool(e.types):
        raise TableError(file, name, "a typed pattern and types go together")
    if e.pattern and "{T}" not in e.pattern and len(e.types) + len(e.deprecated_types) != 1:
        raise TableError(file, name, "a pattern without {T} must range over exactly one type")
    if e.sized and "{S}" not in e.sized:
        raise TableError(file, name, "sized pattern lacks {S}")
    if e.kernel not in KERNELS:
        raise TableError(file, name, f"kernel {e.kernel!r} is not one of {sorted(KERNELS)}")
    if e.kernel in ("rma", "strided", "amo") and not e.core:
        raise TableError(file, name, f"kernel {e.kernel!r} needs a core function")
    if e.kernel == "amo":
        if e.op not in AMO_OPS:
            raise TableError(file, name, f"op {e.op!r} is not one of {sorted(AMO_OPS)}")
        bad = [t.name for t in e.types if t.cls not in ("sint", "uint", "float")]
        if bad:
            raise TableError(file, name, f"AMOs cannot range over {bad}")
    if e.kernel == "wait" and e.mode not in WAIT_MODES:
        raise TableError(file, name, f"mode {e.mode!r} is not one of {sorted(WAIT_MODES)}")
    if e.kernel == "scan" and e.mode not in SCAN_MODES:
        raise TableError(file, name, f"mode {e.mode!r} is not one of {sorted(SCAN_MODES)}")
    if e.kernel in ("reduce", "reduce_as") and e.op not in REDUCE_OPS:
        raise TableError(file, name, f"op {e.op!r} is not one of {sorted(REDUCE_OPS)}")
    if e.select and e.select not in [p.name for p in e.params]:
        raise TableError(file, name, f"select names no parameter: {e.select!r}")
    if e.inline and e.inline not in INLINES:
        raise TableError(file, name, f"inline {e.inline!r} is not one of {sorted(INLINES)}")
    if e.ctx and not (e.pattern or e.sized).startswith("shmem_"):
        raise TableError(file, name, "ctx forms need a name starting with shmem_")
    if e.generic and not e.params:
        raise TableError(file, name, "a generic needs a first parameter to select on")
    return e


def load_entries(spec_dir, types, tables, sizes):
    entries, chapters = [], []
    for stem in CHAPTER_FILES:
        file = stem + ".toml"
        raw = _read(os.path.join(spec_dir, file))
        chapter = raw.get("chapter")
        if chapter != stem:
            raise TableError(file, "chapter", f"must be {stem!r}")
        chapters.append(chapter)
        for row in raw.get("routine", []):
            entries.append(_routine(file, chapter, row))
        for row in raw.get("family", []):
            entries.append(_family(file, chapter, row, types, tables, sizes))
    return chapters, entries
