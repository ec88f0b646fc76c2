# SPDX-License-Identifier: BSD-3-Clause
"""Expand table entries into routines (one per exported C name) and generics."""
from .load import TableError
from .model import Association, CxxTemplate, Generic, GenericVariant, Param, Routine, TestUnit

# Every generated test runs from a single PE up to oversubscription
# (the CI machine has 2 cores), including a non-power-of-two count.
TEST_NPES = [1, 2, 3, 4]


def _ctx_name(name):
    prefix = "shmemx_" if name.startswith("shmemx_") else "shmem_"
    return prefix + "ctx_" + name[len(prefix):]


def _points_to_elements(spec_ctype):
    return "TYPE" in spec_ctype or spec_ctype.replace("const", "").strip() == "void *"


def _resolve(spec_params, ctype):
    return [Param(p.ctype.replace("TYPE", ctype), p.name, p.kind, p.flags, _points_to_elements(p.ctype), p.kdef)
            for p in spec_params]


def _routine(entry, name, variant, ctype_obj, c, elem, is_ctx, deprecated, version):
    params = _resolve(entry.params, c)
    if is_ctx:
        params = [Param("shmem_ctx_t", "ctx", "ctx")] + params
    return Routine(name=name, entry=entry, chapter=entry.chapter,
                   returns=entry.returns.replace("TYPE", c), params=params, variant=variant,
                   is_ctx=is_ctx, ctype=ctype_obj, elem=elem, deprecated=deprecated,
                   version=version, noreturn=entry.noreturn, variadic=entry.variadic)


def _expand_entry(e):
    out = []
    forms = [False, True] if e.ctx else [False]
    if not e.typed:
        for is_ctx in forms:
            name = _ctx_name(e.name) if is_ctx else e.name
            out.append(_routine(e, name, "untyped", None, "void", None, is_ctx,
                                e.deprecated, e.version))
        for a in e.aliases:
            out.append(_routine(e, a["name"], "untyped", None, "void", None, False,
                                a.get("deprecated"), a.get("version", e.version)))
        return out
    typed = [(t, e.deprecated) for t in e.types] + \
            [(t, e.deprecated or "1.5") for t in e.deprecated_types]
    for is_ctx in forms:
        for t, dep in typed:
            name = e.pattern.replace("{T}", t.name)
            name = _ctx_name(name) if is_ctx else name
            out.append(_routine(e, name, "typed", t, t.c, f"sizeof({t.c})", is_ctx, dep, e.version))
        if e.sized:
            for bits in e.sizes:
                name = e.sized.replace("{S}", str(bits))
                name = _ctx_name(name) if is_ctx else name
                out.append(_routine(e, name, "sized", None, "void", str(bits // 8), is_ctx,
                                    e.deprecated, e.version))
        if e.mem:
            name = _ctx_name(e.mem) if is_ctx else e.mem
            out.append(_routine(e, name, "mem", None, "void", "1", is_ctx, e.deprecated, e.version))
    return out


def expand_routines(api):
    seen = {}
    for e in api.entries:
        for r in _expand_entry(e):
            if r.name in seen:
                raise TableError(e.file, e.name, f"routine {r.name} is also produced by "
                                 f"{seen[r.name].entry.file}:{seen[r.name].entry.name}")
            seen[r.name] = r
            api.routines.append(r)


def _selector_types(param_ctype, c):
    """The pointer types a generic selection matches for one element type."""
    base = param_ctype.replace("TYPE", c)
    if base.startswith("const "):
        return [base[len("const "):], base]
    return [base]


def _select_param(e):
    return next(p for p in e.params if p.name == e.select) if e.select else e.params[0]


def _typed_generics(api, by_name):
    for r in api.routines:
        e = r.entry
        if not (e.typed and e.generic and r.variant == "typed"):
            continue
        g = by_name.setdefault(e.generic, {"entries": [], "deprecated": True, "assoc": {}})
        if e not in g["entries"]:
            g["entries"].append(e)
        g["deprecated"] = g["deprecated"] and bool(e.deprecated)
        g["assoc"].setdefault(r.is_ctx, []).append(r)


def _cxx_template(entry, is_ctx, sel):
    """C++: the element type (shmemi_T) is deduced from the selected parameter
    alone (as _Generic looks at it alone); the other TYPE parameters take it
    as given (shmemi_cxx::elem<shmemi_T>), so `shmem_p(&x, 1, pe)` converts 1 to x's
    type. The rejecting overload takes any type for those, so that an
    unsupported T always reaches it and fails there, naming the routine."""
    spec = ([("shmem_ctx_t", "ctx")] if is_ctx else []) + [(p.ctype, p.name) for p in entry.params]
    params, reject, extra = [], [], []
    for i, (ctype, pname) in enumerate(spec):
        sep = "" if ctype.endswith("*") else " "
        if pname == sel.name:
            params.append(ctype.replace("TYPE", "shmemi_T") + sep + pname)
            reject.append(ctype.replace("TYPE", "unsupported_argument_type") + sep + pname)
        elif "TYPE" in ctype:
            params.append(ctype.replace("TYPE", "shmemi_cxx::elem<shmemi_T>") + sep + pname)
            extra.append(f"shmemi_A{i}")
            reject.append(f"shmemi_A{i}")
        else:
            params.append(ctype + sep + pname)
            reject.append(ctype)
    return CxxTemplate(entry.returns.replace("TYPE", "shmemi_T"), params, reject, extra)


def _typed_variants(name, g):
    first = g["entries"][0]
    shapes = {(len(e.params), _select_param(e).ctype, e.ctx) for e in g["entries"]}
    if len(shapes) != 1:
        raise TableError(first.file, first.name,
                         f"families joining generic {name} disagree on shape: {sorted(shapes)}")
    # C++ declares one function template per arity from the first family's
    # parameters, so the families must agree on all of them.
    signatures = {(e.returns, tuple(p.ctype for p in e.params)) for e in g["entries"]}
    if len(signatures) != 1:
        raise TableError(first.file, first.name,
                         f"families joining generic {name} disagree on return type or parameters: "
                         f"{sorted(signatures)}")
    sel = _select_param(first)
    variants = []
    for is_ctx in sorted(g["assoc"]):
        flat, chained, taken = [], [], set()
        for r in g["assoc"][is_ctx]:
            if r.ctype.name in taken:
                continue
            taken.add(r.ctype.name)
            target = ("shmemi_inline_" + r.name) if r.has_inline else r.name
            a = Association(r.ctype, _selector_types(sel.ctype, r.ctype.c), target, r)
            (flat if r.ctype.generic else chained).append(a)
        names = [p.name for p in g["assoc"][is_ctx][0].params]
        variants.append(GenericVariant(len(names), names, flat, chained, sel.name,
                                       cxx=_cxx_template(first, is_ctx, sel)))
    return variants


def _untyped_variants(api, name):
    """Generics over untyped routines tell their forms apart by arity alone
    (shmem_sync(team) vs the active-set shmem_sync(PE_start, ...))."""
    variants, entries = {}, []
    for r in api.routines:
        e = r.entry
        if e.typed or e.generic != name or r.name != (_ctx_name(e.name) if r.is_ctx else e.name):
            continue
        entries.append(e)
        names = [p.name for p in r.params]
        if len(names) in variants:
            raise TableError(e.file, e.name, f"generic {name} has two forms with {len(names)} arguments")
        # A routine named like the generic is reached past the macro.
        target = f"({r.name})" if r.name == name else r.name
        variants[len(names)] = GenericVariant(len(names), names, [], [], "", target,
                                              cxx_routine=None if r.name == name else r)
    deprecated = all(e.deprecated for e in entries)
    return [variants[n] for n in sorted(variants)], deprecated


def expand_generics(api):
    by_name = {}
    _typed_generics(api, by_name)
    untyped = sorted({e.generic for e in api.entries if not e.typed and e.generic})
    for name in untyped:
        if name in by_name:
            e = by_name[name]["entries"][0]
            raise TableError(e.file, e.name, f"generic {name} mixes typed and untyped routines")
    for name, g in by_name.items():
        api.generics.append(Generic(name, g["deprecated"], _typed_variants(name, g)))
    for name in untyped:
        variants, deprecated = _untyped_variants(api, name)
        api.generics.append(Generic(name, deprecated, variants))


def expand_tests(api):
    units = {}
    for e in api.entries:
        key = e.name if e.typed else e.test
        u = units.get(key)
        if u is None:
            u = units[key] = TestUnit(key, e.test, [], [], TEST_NPES)
        elif u.recipe != e.test:
            raise TableError(e.file, e.name, f"test unit {key} mixes recipes {u.recipe} and {e.test}")
        u.entries.append(e)
    for r in api.routines:
        units[r.entry.name if r.entry.typed else r.entry.test].routines.append(r)
    api.tests = list(units.values())
