# SPDX-License-Identifier: BSD-3-Clause
"""Read spec/*.toml into the model, refusing a bad table with file, entry and reason."""
import os
import re
import tomllib

from .model import (AmoKernel, AmoOp, CollKernel, Constant, CType, Doc, Entry, Ops, ParamKind, ParamSpec,
                    PutSignalKernel, ReduceKernel, ReduceOp, RmaKernel, ScanKernel, SingleKernel, StridedKernel,
                    WaitKernel)

# Spec files in chapter order; types and constants are not chapters.
CHAPTER_FILES = ["setup", "memory", "teams", "contexts", "rma", "amo", "signals", "sync",
                 "order", "collectives", "locks", "cache"]

# Parameter kinds: spec/kinds.toml (load_kinds). The loaded table, set once
# per load before the chapters are read.
KIND_ROLES = {"data", "symmetric", "atomic", "aligned", "array", "count", "element", "work"}
KIND_CTYPES = {"pointer", "scalar", "any"}
KIND_KEYS = {"name", "ctype", "roles", "check", "debug", "doc", "check_doc", "debug_doc"}
# The context argument of ctx forms: the generator adds it (`ctx = true`);
# kinds.toml holds its man page text, and no row names the kind itself.
CTX_KIND = "ctx"
_KIND_PLACEHOLDERS = re.compile(r"\{(\w+)\}")
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
WAIT_MODES = {"all", "any", "some"}
SCAN_MODES = {"inclusive", "exclusive"}
BODIES = {"forward", "noop"}
TYPE_CLASSES = {"sint", "uint", "float", "char", "complex"}

ROUTINE_KEYS = {"name", "returns", "params", "version", "test", "body", "ctx", "noreturn", "inline",
                "variadic", "aliases", "deprecated", "replacement", "generic", "algorithms", "invalid_ctx"}
# What a ctx form does with SHMEM_CTX_INVALID where the spec defines it
# (absent: the context check refuses it, the spec leaving it undefined).
INVALID_CTX = {"noop"}
FAMILY_KEYS = {"name", "typed", "sized", "mem", "types", "deprecated_types", "ctx", "returns",
               "params", "generic", "kernel", "op", "operand", "mode", "blocking", "cmp",
               "inline", "version", "deprecated", "replacement", "test", "select", "sizes",
               "algorithms"}

# Man page text (generator/shoalgen/man.py). On a row: all of them, summary
# and description required (return_value too when the row returns
# something; arguments for every parameter whose kind has no doc). At the
# top of a chapter file: its title (required: shoal(7) lists the pages under
# it) and defaults its rows share (CHAPTER_DOC_KEYS; a chapter's notes and
# see_also add to a row's).
DOC_KEYS = {"summary", "description", "return_value", "arguments", "notes", "see_also"}
CHAPTER_DOC_KEYS = {"title", "description", "return_value", "arguments", "notes", "see_also"}
ROUTINE_KEYS |= DOC_KEYS
FAMILY_KEYS |= DOC_KEYS

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


def load_kinds(spec_dir):
    file = "kinds.toml"
    raw = _read(os.path.join(spec_dir, file))
    kinds = {}
    for row in raw.get("kind", []):
        name = row.get("name", "(kind)")
        extra = set(row) - KIND_KEYS
        if extra:
            raise TableError(file, name, f"unknown field(s) {sorted(extra)}")
        if name in kinds:
            raise TableError(file, name, "kind listed twice")
        if row.get("ctype") not in KIND_CTYPES:
            raise TableError(file, name, f"ctype {row.get('ctype')!r} is not one of {sorted(KIND_CTYPES)}")
        roles = row.get("roles")
        if not isinstance(roles, list) or set(roles) - KIND_ROLES:
            raise TableError(file, name, f"roles must be a list from {sorted(KIND_ROLES)}")
        for key in ("check", "debug"):
            bad = set(_KIND_PLACEHOLDERS.findall(row.get(key, ""))) - {"R", "arg", "name", "ctx"}
            if bad:
                raise TableError(file, name, f"{key} uses unknown placeholder(s) {sorted(bad)}")
        for key in ("doc", "check_doc", "debug_doc"):
            if key in row:
                _text(file, name, key, row[key])
                bad = set(_KIND_PLACEHOLDERS.findall(row[key])) - ({"arg"} if key != "doc" else set())
                if bad:
                    raise TableError(file, name, f"{key} uses unknown placeholder(s) {sorted(bad)}")
        for key in ("check", "debug"):   # what a check refuses, said in the man pages' NOTES
            if key in row and f"{key}_doc" not in row:
                raise TableError(file, name, f"a {key} needs a {key}_doc (what it refuses, for the man pages)")
        kinds[name] = ParamKind(name, row["ctype"], frozenset(roles), row.get("check"), row.get("debug"),
                                row.get("doc"), row.get("check_doc"), row.get("debug_doc"))
    if not kinds:
        raise TableError(file, "(file)", "needs [[kind]] rows")
    if CTX_KIND not in kinds or not kinds[CTX_KIND].doc:
        raise TableError(file, CTX_KIND, "needs a [[kind]] ctx with a doc: the text of ctx forms' context argument")
    return kinds


def _text(file, entry, key, value, one_line=False):
    """A man page text: a non-empty string; `code` spans in backquotes
    (man.py sets parameters in italics, other names in bold)."""
    if not isinstance(value, str) or not value.strip():
        raise TableError(file, entry, f"{key} must be a non-empty string")
    if value.count("`") % 2:
        raise TableError(file, entry, f"{key} has an unmatched ` (backquotes enclose code)")
    if one_line and ("\n" in value or value.endswith(".") or len(value) > 80):
        raise TableError(file, entry, f"{key} must be one line of at most 80 characters, without a final period")
    return value


def _see_also(file, entry, value):
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise TableError(file, entry, "see_also must be a list of page or routine names")
    return list(value)


def chapter_doc(file, raw):
    """The defaults a chapter file gives its rows (top-level keys)."""
    out = {"arguments": {}, "see_also": []}
    for key in CHAPTER_DOC_KEYS & set(raw):
        if key == "arguments":
            out[key] = _arguments(file, "(chapter)", raw[key])
        elif key == "see_also":
            out[key] = _see_also(file, "(chapter)", raw[key])
        else:
            out[key] = _text(file, "(chapter)", key, raw[key], one_line=key == "title")
    if "title" not in out:
        raise TableError(file, "(chapter)", "missing field 'title' (the chapter's heading in shoal(7))")
    return out


def _arguments(file, entry, value):
    if not isinstance(value, dict):
        raise TableError(file, entry, "arguments must be a table: parameter name = text")
    return {k: _text(file, entry, f"arguments.{k}", v) for k, v in value.items()}


def parse_doc(file, entry, row, chapter, params, returns, kinds=None):
    """A row's man page text (model.Doc), its chapter's defaults filled in.
    `params`: (name, kind or None) in order; `returns`: None for no value.
    Every parameter gets a text: the row's, the chapter's, or its kind's."""
    chapter = chapter or {"arguments": {}, "see_also": []}
    if "summary" not in row:
        raise TableError(file, entry, "missing field 'summary' (the man page's NAME line)")
    if "description" not in row and "description" not in chapter:
        raise TableError(file, entry, "missing field 'description' (the man page's DESCRIPTION; "
                         "or a description at the top of the chapter file)")
    summary = _text(file, entry, "summary", row["summary"], one_line=True)
    description = _text(file, entry, "description", row["description"]) if "description" in row \
        else chapter["description"]
    if returns is None and "return_value" in row:
        raise TableError(file, entry, "return_value given, but the routine returns nothing")
    return_value = None
    if returns is not None:
        if "return_value" not in row and "return_value" not in chapter:
            raise TableError(file, entry, f"returns {returns}: missing field 'return_value' (the man page's "
                             "RETURN VALUES; or one at the top of the chapter file)")
        return_value = _text(file, entry, "return_value", row["return_value"]) if "return_value" in row \
            else chapter["return_value"]
    own = _arguments(file, entry, row.get("arguments", {}))
    names = [n for n, _ in params]
    unknown = sorted(set(own) - set(names))
    if unknown:
        raise TableError(file, entry, f"arguments names no parameter: {unknown}")
    arguments = {}
    for name, kind in params:
        text = own.get(name) or chapter["arguments"].get(name) or (kinds[kind].doc if kinds and kind else None)
        if not text:
            raise TableError(file, entry, f"parameter {name!r}{f' (kind {kind})' if kind else ''} has no text for "
                             f"the man page: give arguments.{name} = \"...\" on the row or its chapter"
                             + (", or a doc to its kind in kinds.toml" if kind else ""))
        arguments[name] = text
    notes = [_text(file, entry, "notes", row["notes"])] if "notes" in row else []
    notes += [chapter["notes"]] if "notes" in chapter else []
    see_also = _see_also(file, entry, row.get("see_also", [])) + chapter["see_also"]
    return Doc(summary, description, return_value, arguments, "\n\n".join(notes) or None, see_also)


def _entry_doc(file, e, row, chapter, kinds):
    params = ([("ctx", CTX_KIND)] if e.ctx else []) + [(p.name, p.kind) for p in e.params]
    return parse_doc(file, e.name, row, chapter, params, None if e.returns == "void" else e.returns, kinds)


def _params(file, entry, raw, kinds):
    out = []
    for text in raw:
        m = _PARAM_RE.match(text.strip())
        if not m:
            raise TableError(file, entry, f"parameter {text!r} is not 'C declaration : kind [flags]'")
        kind, ctype, flags = m["kind"], m["ctype"].strip(), frozenset(m["flags"].split())
        if kind == CTX_KIND:
            raise TableError(file, entry, f"parameter {m['name']!r}: kind ctx is the context the generator "
                             "adds to ctx forms (ctx = true); a row does not name it")
        if kind not in kinds:
            raise TableError(file, entry, f"parameter {m['name']!r} has unknown kind {kind!r}")
        pointer = ctype.endswith("*")
        if kinds[kind].ctype != "any" and pointer != (kinds[kind].ctype == "pointer"):
            raise TableError(file, entry, f"parameter {m['name']!r}: kind {kind} needs a "
                             f"{kinds[kind].ctype} declaration (kinds.toml)")
        if flags - PARAM_FLAGS:
            raise TableError(file, entry, f"parameter {m['name']!r} has unknown flag(s) {sorted(flags - PARAM_FLAGS)}")
        if flags and not ctype.endswith("*"):
            raise TableError(file, entry, f"parameter {m['name']!r}: flags need a pointer")
        out.append(ParamSpec(ctype, m["name"], kind, flags, kinds[kind]))
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


# spec/ops.toml: the operations amo.toml and collectives.toml name.
AMO_OP_KEYS = {"name", "fi_op", "fi_kind", "cpu", "expr", "signed", "classes", "oracle", "test_init",
               "test_value", "comment"}
REDUCE_OP_KEYS = {"name", "classes", "int", "float", "complex", "test_contrib", "test_combine", "test_contrib_as"}
FI_KINDS = {"fetch", "atomic", "compare"}
CPU_FORMS = {"load", "store", "exchange", "cswap", "fetch_add", "fetch_and", "fetch_or", "fetch_xor", "cas"}
ORACLES = {"read", "write", "cswap", "fold"}
AMO_CLASSES = {"sint", "uint", "float"}
_NAME_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _op_common(file, row, keys, seen):
    name = row.get("name", "(op)")
    extra = set(row) - keys
    if extra:
        raise TableError(file, name, f"unknown field(s) {sorted(extra)}")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise TableError(file, name, "name must be an upper-case C identifier")
    if name in seen:
        raise TableError(file, name, "op listed twice")
    classes = row.get("classes")
    if not classes or not isinstance(classes, list) or set(classes) - TYPE_CLASSES:
        raise TableError(file, name, f"classes must be a non-empty list from {sorted(TYPE_CLASSES)}")
    return name, tuple(classes)


def _amo_op(file, row, seen):
    name, classes = _op_common(file, row, AMO_OP_KEYS, seen)
    for key in ("fi_op", "fi_kind", "cpu", "expr", "oracle"):
        if not isinstance(row.get(key), str) or not row[key]:
            raise TableError(file, name, f"missing field {key!r}")
    if not row["fi_op"].startswith("FI_"):
        raise TableError(file, name, f"fi_op {row['fi_op']!r} is not a libfabric operation (FI_...)")
    if row["fi_kind"] not in FI_KINDS:
        raise TableError(file, name, f"fi_kind {row['fi_kind']!r} is not one of {sorted(FI_KINDS)}")
    if row["cpu"] not in CPU_FORMS:
        raise TableError(file, name, f"cpu {row['cpu']!r} is not one of {sorted(CPU_FORMS)}")
    if row["oracle"] not in ORACLES:
        raise TableError(file, name, f"oracle {row['oracle']!r} is not one of {sorted(ORACLES)}")
    if set(classes) - AMO_CLASSES:
        raise TableError(file, name, f"AMOs are defined on {sorted(AMO_CLASSES)} only, not {sorted(set(classes) - AMO_CLASSES)}")
    if "float" in classes and row["cpu"] not in ("load", "store", "exchange"):
        raise TableError(file, name, "floating point AMOs preserve bits: cpu must be load, store or exchange")
    fold = row["oracle"] == "fold"
    if fold != ("test_init" in row and "test_value" in row):
        raise TableError(file, name, "oracle 'fold' needs test_init and test_value (and only it takes them)")
    return AmoOp(name, row["fi_op"], row["fi_kind"], row["cpu"], row["expr"], bool(row.get("signed", False)),
                 classes, row["oracle"], row.get("test_init"), row.get("test_value"), row.get("comment"))


def _reduce_op(file, row, seen):
    name, classes = _op_common(file, row, REDUCE_OP_KEYS, seen)
    ints = {"sint", "uint"} & set(classes)
    if bool(ints) != ("int" in row):
        raise TableError(file, name, "an int expression goes with the sint/uint classes")
    if ("float" in classes) != ("float" in row):
        raise TableError(file, name, "a float expression goes with the float class")
    if ("complex" in classes) != bool(row.get("complex")) or (row.get("complex") and "float" not in row):
        raise TableError(file, name, "complex = true goes with the complex class (and uses the float expression)")
    for key in ("test_contrib", "test_combine"):   # the generated test's oracle
        if not isinstance(row.get(key), str) or not row[key]:
            raise TableError(file, name, f"missing field {key!r} (the generated test's oracle)")
    return ReduceOp(name, classes, row.get("int"), row.get("float"), bool(row.get("complex")),
                    row["test_contrib"], row["test_combine"], row.get("test_contrib_as", row["test_contrib"]))


def load_ops(spec_dir):
    file = "ops.toml"
    raw = _read(os.path.join(spec_dir, file))
    amo, red = {}, {}
    for row in raw.get("amo_op", []):
        op = _amo_op(file, row, amo)
        amo[op.name] = op
    for row in raw.get("reduce_op", []):
        op = _reduce_op(file, row, red)
        red[op.name] = op
    if not amo or not red:
        raise TableError(file, "(file)", "needs [[amo_op]] and [[reduce_op]] rows")
    return Ops(amo, red)


def _class_ok(t, classes):
    """char follows the platform's signedness: allowed where both integer classes are."""
    return t.cls in classes or (t.cls == "char" and {"sint", "uint"} <= set(classes))


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


def _routine(file, chapter, row, kinds):
    name = row.get("name", "(routine)")
    _check_keys(file, name, row, ROUTINE_KEYS)
    body = row.get("body", "forward")
    if body not in BODIES:
        raise TableError(file, name, f"body {body!r} is not one of {sorted(BODIES)}")
    if row.get("ctx") and not name.startswith(("shmem_", "shmemx_")):
        raise TableError(file, name, "ctx forms need a name starting with shmem_ or shmemx_")
    if "invalid_ctx" in row and (row["invalid_ctx"] not in INVALID_CTX or not row.get("ctx")
                                 or row["returns"] != "void"):
        raise TableError(file, name, f"invalid_ctx {row['invalid_ctx']!r} needs a void routine with ctx forms "
                         f"and one of {sorted(INVALID_CTX)}")
    if row.get("inline") and (row["inline"] not in ROUTINE_INLINES or row["params"]):
        raise TableError(file, name, f"inline {row['inline']!r} needs a routine without parameters and one of "
                         f"{sorted(ROUTINE_INLINES)}")
    return Entry(file=file, chapter=chapter, name=name, typed=False, returns=row["returns"],
                 params=_params(file, name, row["params"], kinds), version=row["version"],
                 test=row["test"], ctx=bool(row.get("ctx")), body=body,
                 noreturn=bool(row.get("noreturn")), variadic=bool(row.get("variadic")),
                 aliases=list(row.get("aliases", [])), deprecated=row.get("deprecated"),
                 replacement=row.get("replacement"), generic=row.get("generic"),
                 inline=row.get("inline"), algorithms=_algorithms(file, name, row),
                 invalid_ctx=row.get("invalid_ctx"))


def _family(file, chapter, row, types, tables, sizes, ops, kinds):
    name = row.get("name", "(family)")
    _check_keys(file, name, row, FAMILY_KEYS)
    e = Entry(file=file, chapter=chapter, name=name, typed=True, returns=row["returns"],
              params=_params(file, name, row["params"], kinds), version=row["version"], test=row["test"],
              ctx=bool(row.get("ctx")), pattern=row.get("typed"), sized=row.get("sized"),
              mem=row.get("mem"), types=_types(file, name, row.get("types"), tables, types),
              deprecated_types=_types(file, name, row.get("deprecated_types"), tables, types),
              generic=row.get("generic"), kernel=row.get("kernel"),
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
    e.k = _kernel(file, name, e, row, ops)
    if e.select and e.select not in [p.name for p in e.params]:
        raise TableError(file, name, f"select names no parameter: {e.select!r}")
    if e.inline and e.inline not in INLINES:
        raise TableError(file, name, f"inline {e.inline!r} is not one of {sorted(INLINES)}")
    if e.ctx and not (e.pattern or e.sized).startswith(("shmem_", "shmemx_")):
        raise TableError(file, name, "ctx forms need a name starting with shmem_ or shmemx_")
    if e.generic and not e.params:
        raise TableError(file, name, "a generic needs a first parameter to select on")
    return e


DIRECTIONS = ("put", "get")
COLLECTIVES = ("broadcast", "collect", "fcollect", "alltoall", "alltoalls")
# Fields each kernel reads (besides the common ones); any other is refused.
KERNEL_FIELDS = {"rma": {"op", "blocking"}, "p": set(), "g": set(), "strided": {"op"},
                 "amo": {"op", "operand"}, "wait": {"mode", "blocking", "cmp"}, "put_signal": {"blocking"},
                 "coll": {"op"}, "coll_as": {"op"}, "reduce": {"op"}, "reduce_as": {"op"}, "scan": {"mode"}}


def _choice(file, name, field, value, allowed):
    if value not in allowed:
        raise TableError(file, name, f"{field} {value!r} is not one of {sorted(allowed)}")
    return value


def _class_check(file, name, e, op):
    bad = [t.name for t in e.types + e.deprecated_types if not _class_ok(t, op.classes)]
    if bad:
        raise TableError(file, name, f"op {op.name} is not defined on {bad} (ops.toml classes: {list(op.classes)})")


def _kernel(file, name, e, row, ops):
    """The typed kernel variant of a family, from `kernel` and the fields of
    its row it reads (the model keeps only the variant)."""
    op, operand, mode, cmp = (row.get(f) for f in ("op", "operand", "mode", "cmp"))
    blocking = bool(row.get("blocking", True))
    given = {f for f in ("op", "operand", "mode", "cmp") if row.get(f) is not None}
    if not blocking:
        given.add("blocking")
    extra = given - KERNEL_FIELDS[e.kernel]
    if extra:
        raise TableError(file, name, f"kernel {e.kernel!r} takes no field(s) {sorted(extra)}")
    kind = e.kernel
    if kind == "rma":
        return RmaKernel(_choice(file, name, "op", op, DIRECTIONS), not blocking)
    if kind in ("p", "g"):
        return SingleKernel("put" if kind == "p" else "get")
    if kind == "strided":
        return StridedKernel(_choice(file, name, "op", op, DIRECTIONS))
    if kind == "amo":
        if op not in ops.amo:
            raise TableError(file, name, f"op {op!r} is not one of {sorted(ops.amo)} (ops.toml)")
        _class_check(file, name, e, ops.amo[op])
        return AmoKernel(ops.amo[op], operand, any(p.kind == "fetch" for p in e.params))
    if kind == "wait":
        return WaitKernel(_choice(file, name, "mode", mode, WAIT_MODES), blocking, cmp)
    if kind == "put_signal":
        return PutSignalKernel(not blocking)
    if kind in ("coll", "coll_as"):
        return CollKernel(_choice(file, name, "op", op, COLLECTIVES), kind == "coll_as")
    if kind in ("reduce", "reduce_as"):
        if op not in ops.reduce:
            raise TableError(file, name, f"op {op!r} is not one of {sorted(ops.reduce)} (ops.toml)")
        _class_check(file, name, e, ops.reduce[op])
        return ReduceKernel(ops.reduce[op], kind == "reduce_as")
    return ScanKernel(_choice(file, name, "mode", mode, SCAN_MODES) == "exclusive")


def load_entries(spec_dir, types, tables, sizes, ops, kinds, titles=None):
    """The rows of the chapter files, in order; `titles` (a dict) receives
    each chapter's title."""
    entries, chapters = [], []
    titles = {} if titles is None else titles
    for stem in CHAPTER_FILES:
        file = stem + ".toml"
        raw = _read(os.path.join(spec_dir, file))
        chapter = raw.get("chapter")
        if chapter != stem:
            raise TableError(file, "chapter", f"must be {stem!r}")
        chapters.append(chapter)
        cdoc = chapter_doc(file, raw)
        titles[chapter] = cdoc["title"]
        rows = [(row, _routine(file, chapter, row, kinds)) for row in raw.get("routine", [])]
        rows += [(row, _family(file, chapter, row, types, tables, sizes, ops, kinds)) for row in raw.get("family", [])]
        for row, e in rows:
            e.doc = _entry_doc(file, e, row, cdoc, kinds)
            entries.append(e)
        stale = sorted(set(cdoc["arguments"]) - {p.name for _, e in rows for p in e.params})
        if stale:
            raise TableError(file, "(chapter)", f"arguments names no parameter of any row: {stale}")
    return chapters, entries
