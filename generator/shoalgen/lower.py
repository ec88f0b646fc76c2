"""How each routine reaches the core: argument checks from parameter kinds,
then one kernel call chosen by the entry's `kernel` (or `body`) field."""

DT_CLASS = {"sint": "SHMEMI_DT_SINT", "uint": "SHMEMI_DT_UINT", "float": "SHMEMI_DT_FLOAT",
            "complex": "SHMEMI_DT_COMPLEX",
            # plain char is signed or not as the platform decides
            "char": "((char)-1 < 0 ? SHMEMI_DT_SINT : SHMEMI_DT_UINT)"}
POINTER_KINDS = {"sym_dest", "sym_src", "local_dest", "local_src", "ivar", "ivars", "fetch"}
SYMMETRIC_KINDS = {"sym_dest", "sym_src", "ivar", "ivars", "sig_addr", "psync", "pwrk"}
# Objects the kernel updates atomically in amo and wait kernels: aligned to their size.
ATOMIC_TARGET_KINDS = {"sym_dest", "sym_src", "ivar", "ivars"}
# Local arrays of `count` elements: NULL is an error once count > 0 (status may be NULL).
LOCAL_ARRAY_KINDS = {"local_src", "local_dest", "values", "indices"}
COUNT_KINDS = {"count", "bsize"}
# Kernels whose symmetric arguments span count elements (others: one element).
SPANNING_KERNELS = {"rma", "wait", "put_signal", "coll", "reduce", "scan", "coll_as", "reduce_as"}


def _by_kind(r, kind):
    return [p for p in r.params if p.kind == kind]


def _one(r, kind):
    ps = _by_kind(r, kind)
    return ps[0].name if ps else None


def _ctx(r):
    return "ctx" if r.is_ctx else "SHMEM_CTX_DEFAULT"


def _routine_str(r):
    return f'"{r.name}"'


def _object_size(r, p):
    """Bytes of one object `p` points to: an element, or its own pointee (pSync, sig_addr)."""
    return r.elem if p.element and r.elem else f"sizeof *{p.name}"


def _dtype(r):
    return f"SHMEMI_DT({DT_CLASS[r.ctype.cls]}, sizeof({r.ctype.c}))"


# ---- argument checks, driven by parameter kinds ---------------------------
def _count_check(r, p):
    """Always on: a negative int count, or a size_t count whose byte size
    overflows (typically a negative int converted to size_t)."""
    R = _routine_str(r)
    if p.ctype == "size_t":
        return [f'shmemi_check_count({R}, "{p.name}", {p.name}, {r.elem or "1"});']
    return [f'shmemi_check_nonnegative({R}, "{p.name}", {p.name});']


def _always_checks(r, p):
    R, arg = _routine_str(r), f'"{p.name}"'
    out = []
    if p.kind == "pe":
        out.append(f"shmemi_check_pe({R}, {_ctx(r)}, {p.name});")
    elif p.kind == "cmp":
        out.append(f"shmemi_check_cmp({R}, {p.name});")
    elif p.kind == "sig_op":
        out.append(f"shmemi_check_sig_op({R}, {p.name});")
    elif p.kind in COUNT_KINDS and r.elem:
        out += _count_check(r, p)
    elif p.kind == "team":
        out.append(f"shmemi_check_team({R}, {arg}, {p.name});")
    elif p.kind == "team_or_invalid":
        out.append(f"shmemi_check_team_or_invalid({R}, {arg}, {p.name});")
    if "nonnull" in p.flags:
        out.append(f"shmemi_check_nonnull({R}, {arg}, {p.name});")
    return out


def _symmetric_length(r, p, count, spans):
    """Bytes the call touches at p, or a lower bound of them: a zero-length
    call touches nothing, so any pointer (NULL too) is valid there."""
    size = _object_size(r, p)
    if p.kind == "pwrk":
        return f"shmemi_pwrk_elems((size_t){count}) * {size}"
    if count and spans and p.element:
        return f"(size_t){count} * {size}"
    # Strided forms: the first element when anything moves (the core checks
    # the whole extent, which depends on strides and, for teams, the size).
    moves = [c for c in (count, _one(r, "bsize")) if c]
    if moves and p.element:
        return f"({' && '.join(moves)} ? {size} : 0)"
    return size


def _debug_checks(r, p, count, spans):
    """Under SHMEM_DEBUG: symmetry and extent, alignment, NULL local arrays."""
    R, arg = _routine_str(r), f'"{p.name}"'
    out = []
    if p.kind in SYMMETRIC_KINDS:
        out.append(f"shmemi_check_symmetric({R}, {arg}, {p.name}, {_symmetric_length(r, p, count, spans)});")
    atomic = r.entry.kernel in ("amo", "wait") and p.kind in ATOMIC_TARGET_KINDS
    if atomic or p.kind == "sig_addr" or "aligned" in p.flags:
        out.append(f"shmemi_check_aligned({R}, {arg}, {p.name}, {_object_size(r, p)});")
    if p.kind in LOCAL_ARRAY_KINDS and count and spans:
        out.append(f'shmemi_check_array({R}, {arg}, {p.name}, "{count}", (size_t){count});')
    if p.kind == "fetch":
        out.append(f"shmemi_check_nonnull({R}, {arg}, {p.name});")
    return out


def checks(r):
    out, debug = [], []
    if r.is_ctx and r.entry.invalid_ctx == "noop":
        out.append("if (ctx == SHMEM_CTX_INVALID) /* the spec: no operation */")
        out.append("    return;")
    if r.is_ctx:
        out.append(f"shmemi_check_ctx({_routine_str(r)}, ctx);")
    count = _one(r, "count")
    spans = r.entry.kernel in SPANNING_KERNELS and not _by_kind(r, "stride")
    for p in r.params:
        out += _always_checks(r, p)
        debug += _debug_checks(r, p, count, spans)
    if debug:
        out.append("if (shmemi_debug_on()) {")
        out += ["    " + d for d in debug]
        out.append("}")
    return out


# ---- bodies ----------------------------------------------------------------
def _forward(r):
    stem = r.entry.name[len("shmem_"):] if r.entry.name.startswith("shmem_") else r.entry.name
    args = [p.name for p in r.params if p.kind != "ctx"]
    if r.entry.ctx:
        args = [_ctx(r)] + args
    call = f"shmemi_{stem}({', '.join(args)});"
    return [("return " if r.returns != "void" else "") + call]


def _noop(r):
    return [f"(void){p.name};" for p in r.params] or ["/* nothing to do on a cache-coherent machine */"]


def _rma(r):
    ptrs = [p.name for p in r.params if p.kind in POINTER_KINDS]
    n, pe = _one(r, "count"), _one(r, "pe")
    return [f"{r.entry.core}({_ctx(r)}, {ptrs[0]}, {ptrs[1]}, {n} * {r.elem}, {pe}, {_routine_str(r)});"]


def _p(r):
    return [f"shmemi_put({_ctx(r)}, dest, &value, {r.elem}, pe, {_routine_str(r)});"]


def _g(r):
    return [f"{r.returns} value;",
            f"shmemi_get({_ctx(r)}, &value, source, {r.elem}, pe, {_routine_str(r)});",
            "return value;"]


def _strided(r):
    ptrs = [p.name for p in r.params if p.kind in POINTER_KINDS]
    dst, sst = [p.name for p in _by_kind(r, "stride")]
    bsize = _one(r, "bsize") or "1"
    return [f"{r.entry.core}({_ctx(r)}, {ptrs[0]}, {ptrs[1]}, {dst}, {sst}, {bsize}, "
            f"{_one(r, 'count')}, {r.elem}, {_one(r, 'pe')}, {_routine_str(r)});"]


def _amo(r):
    e, c = r.entry, r.ctype.c
    out = []
    target = _one(r, "sym_dest") or _one(r, "sym_src")
    if e.operand is not None:
        out.append(f"{c} operand = ({c}){e.operand};")
        value = "&operand"
    else:
        value = f"&{_one(r, 'value')}" if _one(r, "value") else "NULL"
    cond = f"&{_one(r, 'cond')}" if _one(r, "cond") else "NULL"
    fetch = _one(r, "fetch")
    returns = r.returns != "void"
    if returns:
        out.append(f"{c} fetched;")
        fetch = "&fetched"
    out.append(f"{e.core}({_ctx(r)}, SHMEMI_AMO_{e.op}, {_dtype(r)}, (void *){target}, {value}, "
               f"{cond}, {fetch or 'NULL'}, {_one(r, 'pe')}, {_routine_str(r)});")
    if returns:
        out.append("return fetched;")
    return out


def _wait(r):
    e = r.entry
    ivars = _one(r, "ivars") or _one(r, "ivar")
    n = _one(r, "count") or "1"
    indices = _one(r, "indices") or "NULL"
    status = _one(r, "status") or "NULL"
    cmp = _one(r, "cmp") or e.cmp
    vector = _one(r, "values")
    values = vector or f"&{_one(r, 'value')}"
    call = (f"shmemi_wait_set(SHMEMI_WAIT_{e.mode.upper()}, {int(e.blocking)}, {_dtype(r)}, "
            f"{ivars}, {n}, {indices}, {status}, {cmp}, {values}, {int(bool(vector))}, "
            f"{_routine_str(r)})")
    if r.returns == "void":
        return [f"(void){call};"]
    return [f"return ({r.returns}){call};"]


def _put_signal(r):
    ptrs = [p.name for p in r.params if p.kind in POINTER_KINDS]
    sig = _one(r, "sig_addr")
    value = next(p.name for p in r.params if p.kind == "plain")
    return [f"shmemi_put_signal({_ctx(r)}, {ptrs[0]}, {ptrs[1]}, {_one(r, 'count')} * {r.elem}, "
            f"{sig}, {value}, {_one(r, 'sig_op')}, {_one(r, 'pe')}, {int(not r.entry.blocking)}, "
            f"{_routine_str(r)});"]


def _coll_args(r):
    """dest, source, then either a byte count or (strides, element size, count)."""
    ptrs = [p.name for p in r.params if p.kind in POINTER_KINDS]
    strides = [p.name for p in _by_kind(r, "stride")]
    n = _one(r, "count")
    if strides:
        sizes = [*strides, r.elem, n]
    else:
        sizes = [f"{n} * {r.elem}"]
    root = [_one(r, "root")] if _one(r, "root") else []
    return ptrs[:2] + sizes + root


def _coll(r):
    args = [_one(r, "team")] + _coll_args(r) + [_routine_str(r)]
    return [f"return {r.entry.core}({', '.join(args)});"]


def _coll_as(r):
    active = [p.name for p in _by_kind(r, "active")]
    args = _coll_args(r) + active + [_one(r, "psync"), _routine_str(r)]
    return [f"{r.entry.core}({', '.join(args)});"]


def _reduce(r):
    return [f"return shmemi_reduce({_one(r, 'team')}, SHMEMI_OP_{r.entry.op}, {_dtype(r)}, dest, source, "
            f"{_one(r, 'count')}, {_routine_str(r)});"]


def _scan(r):
    exclusive = int(r.entry.mode == "exclusive")
    return [f"return shmemi_scan({_one(r, 'team')}, {exclusive}, {_dtype(r)}, dest, source, "
            f"{_one(r, 'count')}, {_routine_str(r)});"]


def _reduce_as(r):
    active = ", ".join(p.name for p in _by_kind(r, "active"))
    n = _one(r, "count")
    return [f"shmemi_reduce_as(SHMEMI_OP_{r.entry.op}, {_dtype(r)}, dest, source, (size_t){n}, {active}, "
            f"{_one(r, 'pwrk')}, {_one(r, 'psync')}, {_routine_str(r)});"]


KERNEL_BODIES = {"rma": _rma, "p": _p, "g": _g, "strided": _strided, "amo": _amo, "wait": _wait,
                 "put_signal": _put_signal, "coll": _coll, "coll_as": _coll_as, "reduce": _reduce,
                 "scan": _scan, "reduce_as": _reduce_as}
UNTYPED_BODIES = {"forward": _forward, "noop": _noop}


def body(r):
    if r.variant == "untyped":
        return UNTYPED_BODIES[r.entry.body](r)
    return KERNEL_BODIES[r.entry.kernel](r)


# ---- inline fast paths (node-local peers, default context) -----------------
SEQ = "__ATOMIC_SEQ_CST"


def _inline_put(r):
    n = f"{_one(r, 'count')} * {r.elem}"
    return [f"void *shmemi_r = shmemi_fast_addr(dest, {n}, pe);",
            f"if (SHMEMI_LIKELY(shmemi_r != NULL)) {{ memcpy(shmemi_r, source, {n}); return; }}",
            f"{r.name}({r.args});"]


def _inline_get(r):
    n = f"{_one(r, 'count')} * {r.elem}"
    return [f"const void *shmemi_r = shmemi_fast_addr(source, {n}, pe);",
            f"if (SHMEMI_LIKELY(shmemi_r != NULL)) {{ memcpy(dest, shmemi_r, {n}); return; }}",
            f"{r.name}({r.args});"]


def _inline_p(r):
    c = r.ctype.c
    return [f"{c} *shmemi_r = ({c} *)shmemi_fast_addr(dest, sizeof({c}), pe);",
            f"if (SHMEMI_LIKELY(shmemi_r != NULL)) {{ *(volatile {c} *)shmemi_r = value; return; }}",
            f"{r.name}({r.args});"]


def _inline_g(r):
    c = r.ctype.c
    return [f"const {c} *shmemi_r = (const {c} *)shmemi_fast_addr(source, sizeof({c}), pe);",
            f"if (SHMEMI_LIKELY(shmemi_r != NULL)) return *(const volatile {c} *)shmemi_r;",
            f"return {r.name}({r.args});"]


def _inline_amo(r):
    e, c = r.entry, r.ctype.c
    target = _one(r, "sym_dest") or _one(r, "sym_src")
    value = e.operand and f"({c}){e.operand}" or _one(r, "value")
    returns = r.returns != "void"
    ops = {
        "FETCH": [f"{c} v; __atomic_load(shmemi_r, &v, {SEQ});", "return v;"],
        "SET": [f"{c} v = {value}; __atomic_store(shmemi_r, &v, {SEQ});", "return;"],
        "SWAP": [f"{c} v = {value}, old; __atomic_exchange(shmemi_r, &v, &old, {SEQ});",
                 "return old;"],
        "CSWAP": [f"{c} expected = {_one(r, 'cond')}, v = {value};",
                  f"__atomic_compare_exchange(shmemi_r, &expected, &v, 0, {SEQ}, {SEQ});",
                  "return expected;"],
    }
    if e.op in ops:
        fast = ops[e.op]
    else:
        call = f"__atomic_fetch_{e.op.lower()}(shmemi_r, {value}, {SEQ})"
        fast = [f"return {call};"] if returns else [f"(void){call};", "return;"]
    return ([f"{c} *shmemi_r = ({c} *)shmemi_fast_amo_addr({target}, sizeof({c}), pe);",
             "if (SHMEMI_LIKELY(shmemi_r != NULL)) {"] + ["    " + s for s in fast] + ["}",
            ("return " if returns else "") + f"{r.name}({r.args});"])


def _inline_order(r):
    return ["if (SHMEMI_LIKELY(shmemi_fast_order())) return;", f"{r.name}({r.args});"]


INLINE_BODIES = {"put": _inline_put, "get": _inline_get, "p": _inline_p, "g": _inline_g,
                 "amo": _inline_amo, "order": _inline_order}


def inline(r):
    """Only the default-context forms get an inline twin: typed and mem ones,
    and the untyped fence and quiet."""
    if not r.entry.inline or r.is_ctx or r.variant not in ("typed", "mem", "untyped"):
        return []
    return INLINE_BODIES[r.entry.inline](r)


def lower(api):
    for r in api.routines:
        r.body = checks(r) + body(r)
        r.inline = inline(r)


def forward_decls(api):
    """Prototypes of the core functions that untyped routines forward to."""
    out = []
    for e in api.entries:
        if e.typed or e.body != "forward":
            continue
        stem = e.name[len("shmem_"):] if e.name.startswith("shmem_") else e.name
        params = (["shmem_ctx_t ctx"] if e.ctx else []) + \
                 [f"{p.ctype}{'' if p.ctype.endswith('*') else ' '}{p.name}" for p in e.params]
        out.append({"returns": e.returns, "name": f"shmemi_{stem}",
                    "params": ", ".join(params) or "void", "noreturn": e.noreturn})
    return out
