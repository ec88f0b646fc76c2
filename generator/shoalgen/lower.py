# SPDX-License-Identifier: BSD-3-Clause
"""How each routine reaches the core, as records: which argument checks its
parameter kinds call for, and which parameter plays which part in its kernel
call. The C text is written by templates/binding_body.j2 (bodies) and
templates/c_decls.j2 (inline fast paths) from these records."""
from types import SimpleNamespace

# What each parameter kind does here comes from spec/kinds.toml (its roles
# and check templates): see Param.has.
# Kernels whose symmetric arguments span count elements (others: one element).
SPANNING_KERNELS = {"rma", "wait", "put_signal", "coll", "reduce", "scan", "coll_as", "reduce_as"}


def _by_kind(r, kind):
    return [p for p in r.params if p.kind == kind]


def _one(r, kind):
    ps = _by_kind(r, kind)
    return ps[0].name if ps else None


def _object_size(r, p):
    """Bytes of one object `p` points to: an element, or its own pointee (pSync, sig_addr)."""
    if p.element and r.elem:
        return {"elem": r.elem, "pointee": None}
    return {"elem": None, "pointee": p.name}


# ---- argument checks, driven by parameter kinds ---------------------------
# Each check is a record {"what": ..., "param": name, ...}; binding_body.j2
# has one C form per `what`.
def _always_checks(r, p):
    out = []
    if p.kdef and p.kdef.check:
        out.append({"what": "kind", "param": p.name, "text": p.kdef.check})
    elif p.has("count") and r.elem:
        # Always on: a negative int count, or a size_t count whose byte size
        # overflows (typically a negative int converted to size_t).
        if p.ctype == "size_t":
            out.append({"what": "count", "param": p.name, "elem": r.elem})
        else:
            out.append({"what": "nonnegative", "param": p.name})
    if "nonnull" in p.flags:
        out.append({"what": "nonnull", "param": p.name})
    return out


def _symmetric_length(r, p, count, spans):
    """Bytes the call touches at p, or a lower bound of them: a zero-length
    call touches nothing, so any pointer (NULL too) is valid there."""
    size = _object_size(r, p)
    if p.has("work"):
        return {"how": "work", "count": count, "size": size}
    if count and spans and p.element:
        return {"how": "span", "count": count, "size": size}
    # Strided forms: the first element when anything moves (the core checks
    # the whole extent, which depends on strides and, for teams, the size).
    moves = [c for c in (count, _one(r, "bsize")) if c]
    if moves and p.element:
        return {"how": "first", "moves": moves, "size": size}
    return {"how": "one", "size": size}


def _debug_checks(r, p, count, spans):
    """Under SHMEM_DEBUG: symmetry and extent, alignment, NULL local arrays."""
    out = []
    if p.has("symmetric"):
        out.append({"what": "symmetric", "param": p.name, "length": _symmetric_length(r, p, count, spans)})
    atomic = r.entry.kernel in ("amo", "wait") and p.has("atomic")
    if atomic or p.has("aligned") or "aligned" in p.flags:
        out.append({"what": "aligned", "param": p.name, "size": _object_size(r, p)})
    if p.has("array") and count and spans:
        out.append({"what": "array", "param": p.name, "count": count})
    if p.kdef and p.kdef.debug:
        out.append({"what": "kind", "param": p.name, "text": p.kdef.debug})
    return out


def checks(r):
    """(always-on checks, checks under SHMEM_DEBUG), in parameter order."""
    out, debug = [], []
    if r.is_ctx:
        out.append({"what": "ctx", "param": "ctx"})
    count = _one(r, "count")
    spans = r.entry.kernel in SPANNING_KERNELS and not _by_kind(r, "stride")
    for p in r.params:
        out += _always_checks(r, p)
        debug += _debug_checks(r, p, count, spans)
    return out, debug


# ---- the kernel call: which parameter plays which part ---------------------
def core_stem(name):
    """The stem of the core entry point an untyped routine forwards to
    (shmemi_<stem>). A shmemx_ name shares it with the shmem_ routine of the
    same stem: shmemx_signal_add is shmem_signal_add under the name Sandia
    OpenSHMEM programs call."""
    for prefix in ("shmem_", "shmemx_"):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def call(r):
    """The parameters by the part they play in the call (names; None or []
    when the routine has none). binding_body.j2 picks the ones its kernel
    (or untyped body) takes."""
    plain = _by_kind(r, "plain")
    stem = core_stem(r.entry.name)
    return SimpleNamespace(**{   # attributes only: no clash with dict methods (values, items)
        "stem": stem,                                   # forward: the core entry point's stem
        "args": [p.name for p in r.params if p.kind != "ctx"],
        "data": [p.name for p in r.params if p.has("data")],   # dest, source
        "count": _one(r, "count"),
        "bsize": _one(r, "bsize"),
        "strides": [p.name for p in _by_kind(r, "stride")],
        "pe": _one(r, "pe"),
        "target": _one(r, "sym_dest") or _one(r, "sym_src"),   # the AMO's (or p/g's) remote object
        "value": _one(r, "value"),
        "cond": _one(r, "cond"),
        "fetch": _one(r, "fetch"),
        "ivars": _one(r, "ivars") or _one(r, "ivar"),
        "indices": _one(r, "indices"),
        "status": _one(r, "status"),
        "cmp": _one(r, "cmp"),
        "values": _one(r, "values"),   # wait: a vector of comparison values
        "sig_addr": _one(r, "sig_addr"),
        "signal": plain[0].name if plain else None,   # put_signal: the signal value
        "sig_op": _one(r, "sig_op"),
        "team": _one(r, "team"),
        "root": _one(r, "root"),
        "active": [p.name for p in _by_kind(r, "active")],
        "psync": _one(r, "psync"),
        "pwrk": _one(r, "pwrk"),
    })


# Collectives whose count is a block for each member: a call moves one
# block to (and from) every member of the team or active set.
PER_MEMBER_COLLECTIVES = {"alltoall", "alltoalls"}


def moved(r):
    """The bytes one call moves, for SHMEM_PROFILE, as a record that
    binding_body.j2 writes as a C expression (None: the call moves no data):
    `count` elements (times `bsize` for blocked strided forms) of `size`
    bytes, times the members of the team or active set (`members`) for the
    per-member collectives. Typed routines move their element count (one
    element for p, g and AMOs; waits move nothing); an untyped routine that
    targets a PE moves the one object its symmetric parameter points to (a
    signal word)."""
    k = r.entry.k
    if r.variant == "untyped":
        if not _one(r, "pe"):
            return None
        sym = [p for p in r.params if p.has("symmetric") and p.ctype.replace("const ", "").strip() != "void *"]
        return {"count": None, "bsize": None, "size": _object_size(r, sym[0]), "members": None} if sym else None
    kernel = r.entry.kernel
    if kernel == "wait" or not r.elem:
        return None
    out = {"count": None, "bsize": None, "size": {"elem": r.elem, "pointee": None}, "members": None}
    if kernel in ("p", "g", "amo"):
        return out
    out["count"] = r.call.count
    out["bsize"] = r.call.bsize
    if kernel in ("coll", "coll_as") and k.collective in PER_MEMBER_COLLECTIVES:
        out["members"] = {"team": r.call.team} if r.call.team else {"active_size": r.call.active[2]}
    return out


def inline(r):
    """Which inline fast path, if any: only the default-context forms get an
    inline twin, typed and mem ones, and the untyped fence and quiet; AMOs
    only typed ones (their fast path is the op's `cpu` form)."""
    kind = r.entry.inline
    if not kind or r.is_ctx:
        return None
    if kind == "amo":
        return kind if r.variant == "typed" else None
    return kind if r.variant in ("typed", "mem", "untyped") else None


def lower(api):
    for r in api.routines:
        r.checks, r.debug_checks = checks(r)
        r.noop_invalid_ctx = r.is_ctx and r.entry.invalid_ctx == "noop"
        r.call = call(r)
        r.moved = moved(r)
        r.inline = inline(r)


def forward_decls(api):
    """The core functions that untyped routines forward to (shmemi_forward.h.j2)."""
    out, stems = [], set()
    for e in api.entries:
        if e.typed or e.body != "forward" or core_stem(e.name) in stems:
            continue
        stem = core_stem(e.name)
        stems.add(stem)
        out.append({"returns": e.returns, "stem": stem, "ctx": e.ctx,
                    "params": e.params, "noreturn": e.noreturn})
    return out
