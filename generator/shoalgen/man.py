# SPDX-License-Identifier: BSD-3-Clause
"""Man pages from the table: one page per routine family (section 3), the
tools' pages (section 1) and the overview shoal(7).

What goes on which page, and the text of each section, is decided here from
the typed model (api.entries, api.routines, api.generics, api.fortran and
the check records of lower.py); templates/man/*.j2 lay the pages out. Every
exported C name, its pshmem_ twin and every Fortran name gets a one-line
`.so` page that opens its family's page.

A family's page is named after its C11 generic, else after its name pattern
without the type or size (shmem_{T}_wait -> shmem_wait); rows that land on
one name share a page (the deprecated active-set shmem_broadcast32 joins
shmem_broadcast). A Fortran name goes to the page of its own spelling when
that is a C name (SHMEM_SWAP -> shmem_swap), else to the page of the C
routine it calls, else to that of another row of its pattern; a Fortran
row with none of these has a page of its own, written in fortran.toml.

Text in the table is plain, with `code` in backquotes: a parameter of the
page is set in italics, any other name in bold.
"""
import os
import re
from dataclasses import dataclass, field
from typing import Optional

from .load import DOC_KEYS, TableError, parse_doc

FORTRAN_FILE = "fortran.toml"
CHECK_PLACEHOLDER = "{arg}"


@dataclass
class Block:
    """A group of SYNOPSIS lines (roff) under a title."""
    title: str
    lines: list


@dataclass
class Section:
    """A text under an optional label (roff paragraphs)."""
    label: Optional[str]
    paragraphs: list


@dataclass
class Page:
    name: str                  # file name stem (shmem_put): NAME.3
    summary: str               # NAME line after the names (roff)
    names: list = field(default_factory=list)        # NAME: every name documented
    entries: list = field(default_factory=list)      # [model.Entry], table order
    fortran: list = field(default_factory=list)      # [fortran.FRoutine]
    header: str = "shmem.h"
    synopsis: list = field(default_factory=list)     # [Block]
    arguments: list = field(default_factory=list)    # [(name, roff)]
    description: list = field(default_factory=list)  # [Section]
    returns: list = field(default_factory=list)      # [Section]
    checks: list = field(default_factory=list)       # [roff]: always on
    debug_checks: list = field(default_factory=list) # [roff]: under SHMEM_DEBUG
    notes: list = field(default_factory=list)        # [roff paragraphs]
    see_also: list = field(default_factory=list)     # [(name, section)]
    chapter: str = ""
    doc_file: str = ""         # where its text is written (errors name it)
    fortran_doc: Optional[object] = None   # model.Doc of a Fortran-only page (fortran.toml)

    @property
    def title(self):
        return self.name.upper()


# ---- text: plain table text -> roff ---------------------------------------
def _esc(text):
    return text.replace("\\", "\\e")


def _lines(text):
    """No line of roff text may start with a control character."""
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in text.split("\n"))


def roff_escape(text):
    """Plain text as roff: backslashes escaped, no control character at the
    start of a line."""
    return _lines(_esc(text))


def _code(text, params):
    body = _esc(text).replace("-", "\\-")
    font = "I" if text in params else "B"
    return f"\\f{font}{body}\\fP"


def rtext(text, params=()):
    """Table text (one paragraph) as roff: `code` spans in fonts, lines
    joined (roff fills them)."""
    parts = text.split("`")
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(_code(part, params))
        else:
            out.append(_esc(" ".join(part.split("\n"))))
    return _lines(re.sub(r"[ \t]+", " ", "".join(out)).strip())


def paragraphs(text, params=()):
    return [rtext(p.strip(), params) for p in re.split(r"\n\s*\n", text.strip()) if p.strip()]


def _proto(returns, name, params):
    """A C prototype as roff: the name in bold, parameter names in italics."""
    ps = []
    for ctype, pname in params:
        sep = "" if ctype.endswith("*") else " "
        ps.append(f"{roff_escape(ctype)}{sep}\\fI{pname}\\fP")
    sep = "" if returns.endswith("*") else " "
    return f"{roff_escape(returns)}{sep}\\fB{name}\\fP({', '.join(ps) if ps else 'void'});"


def _routine_proto(r, name=None):
    params = [(p.ctype, p.name) for p in r.params]
    text = _proto(r.returns, name or r.name, params)
    if r.variadic:
        text = text[:-2] + ", ...);"
    if r.noreturn:
        text = "_Noreturn " + text
    return text


# ---- which page each name is on --------------------------------------------
def page_name(e):
    """The page of a table row: its generic's, else its name without the
    type or size."""
    if e.generic:
        return e.generic
    if not e.typed:
        return e.name
    pattern = e.pattern or e.sized or e.mem
    return pattern.replace("{T}_", "").replace("_{T}", "").replace("{T}", "").replace("{S}", "")


def _pattern_text(name):
    """A name pattern as the pages write it (shmem_{T}_put -> shmem_TYPENAME_put)."""
    return name.replace("{T}", "TYPENAME").replace("{S}", "SIZE")


def _entry_label(e):
    """How DESCRIPTION and NOTES name a row: its name patterns."""
    if not e.typed:
        return ", ".join([e.name] + [a["name"] for a in e.aliases])
    names = []
    if e.pattern:
        names.append(_pattern_text(e.pattern))
    if e.sized:
        names.append(_pattern_text(e.sized))
    if e.mem:
        names.append(e.mem)
    return ", ".join(names)


def _fortran_pages(api, pages, owner):
    """Attach each Fortran name to a page; rows with none get their own."""
    if api.fortran is None:
        return []
    by_pattern = {}
    pending = []
    for fr in api.fortran.routines:
        low = fr.name.lower()
        page = owner.get(low)
        if page is None and fr.c is not None:
            page = owner[fr.c.name]
        if page is not None:
            text = sorted(DOC_KEYS & set(fr.row))
            if text:
                raise TableError(FORTRAN_FILE, fr.name, f"{text} given, but the name is documented on the page "
                                 f"of C rows ({page.name}), which says what it does")
            by_pattern.setdefault(fr.row["name"], page)
            page.fortran.append(fr)
        else:
            pending.append(fr)
    own = []
    for fr in pending:
        page = by_pattern.get(fr.row["name"])
        if page is None:
            page = _fortran_page(fr)
            own.append(page)
            by_pattern[fr.row["name"]] = page
        page.fortran.append(fr)
    return own


def _fortran_page(fr):
    """A Fortran name with no C counterpart (SHPALLOC): its row's text."""
    returns = fr.returns
    doc = parse_doc(FORTRAN_FILE, fr.row["name"], fr.row, None, [(a, None) for a in fr.fargs], returns)
    return Page(name=fr.name.lower(), summary=rtext(doc.summary), header="shmem.fh", chapter="fortran",
                doc_file=FORTRAN_FILE, fortran_doc=doc)


def build_pages(api):
    """The section 3 pages, in table order (C rows, then Fortran-only ones),
    and the name -> page map of every C and Fortran name."""
    pages, owner = {}, {}
    for e in api.entries:
        name = page_name(e)
        page = pages.get(name)
        if page is None:
            page = pages[name] = Page(name=name, summary=rtext(e.doc.summary), chapter=e.chapter, doc_file=e.file)
        page.entries.append(e)
    for r in api.routines:
        page = pages[page_name(r.entry)]
        if owner.setdefault(r.name, page) is not page:
            raise TableError(r.entry.file, r.entry.name, f"routine {r.name} is also on page {owner[r.name].name}")
    for g in api.generics:
        owner.setdefault(g.name, pages[g.name] if g.name in pages else owner[_generic_routines(api, g)[0].name])
    for name, page in pages.items():
        if owner.setdefault(name, page) is not page:
            e = page.entries[0]
            raise TableError(e.file, e.name, f"its page {name} has the name of a routine documented on page "
                             f"{owner[name].name}")
    own = _fortran_pages(api, pages, owner)
    for p in own:
        for fr in p.fortran:
            owner.setdefault(fr.name.lower(), p)
    for p in pages.values():
        for fr in p.fortran:
            owner.setdefault(fr.name.lower(), p)
    return list(pages.values()) + own, owner


def _generic_routines(api, g):
    """The routines a generic stands for, in order."""
    return [r for r in api.routines if r.entry.generic == g.name]


# ---- SYNOPSIS ----------------------------------------------------------------
def _generic_lines(api, page):
    lines = []
    names = []
    for e in page.entries:
        if e.generic and e.generic not in names:
            names.append(e.generic)
    for gname in names:
        g = next(x for x in api.generics if x.name == gname)
        for v in g.variants:
            if v.direct:        # untyped: the routine this arity calls
                target = v.direct.strip("()")
                r = next(x for x in api.routines if x.name == target)
                lines.append(_routine_proto(r, gname))
            else:
                e = v.associations[0].routine.entry
                params = ([("shmem_ctx_t", "ctx")] if v.nargs > len(e.params) else []) + \
                         [(p.ctype, p.name) for p in e.params]
                lines.append(_proto(e.returns, gname, params))
    return lines


def _deprecation(r):
    return f" /* deprecated since {r.deprecated} */" if r.deprecated else ""


def _fortran_line(fr):
    args = ", ".join(f"\\fI{a}\\fP" for a in fr.fargs)
    if fr.returns:
        return f"{roff_escape(fr.returns)} FUNCTION \\fB{fr.name}\\fP({args})"
    return f"CALL \\fB{fr.name}\\fP" + (f"({args})" if args else "")


def synopsis(api, page):
    blocks = []
    generic = _generic_lines(api, page)
    if generic:
        blocks.append(Block("C11", generic))
    plain, ctx = [], []
    for e in page.entries:
        for r in (x for x in api.routines if x.entry is e):
            (ctx if r.is_ctx else plain).append(_routine_proto(r) + _deprecation(r))
    if plain:
        blocks.append(Block("C", plain))
    if ctx:
        blocks.append(Block("C, with a context", ctx))
    if page.fortran:
        blocks.append(Block("Fortran", ["INCLUDE 'shmem.fh'"] + [_fortran_line(fr) for fr in page.fortran]))
    return blocks


# ---- ARGUMENTS, DESCRIPTION, RETURN VALUES ----------------------------------
def _param_names(page):
    names = []
    for e in page.entries:
        for n in e.doc.arguments:
            if n not in names:
                names.append(n)
    for fr in page.fortran:
        for a in fr.fargs:
            if a not in names:
                names.append(a)
    return names


def arguments(page):
    params = _param_names(page)
    texts = {}
    for e in page.entries:
        for name, text in e.doc.arguments.items():
            if texts.setdefault(name, text) != text:
                raise TableError(e.file, e.name, f"argument {name!r} reads differently on page {page.name} "
                                 "than in a row before it; rows sharing a page say the same of it")
    doc = page.fortran_doc
    if doc:
        texts.update(doc.arguments)
    for fr in page.fortran:
        for a in fr.fargs:
            if a not in texts:
                raise TableError(FORTRAN_FILE, fr.name, f"argument {a!r} has no text on page {page.name} "
                                 "(name it as the C routine does)")
    return [(n, rtext(texts[n], params)) for n in params]


def description(page):
    params = _param_names(page)
    doc = page.fortran_doc
    if doc:
        return [Section(None, paragraphs(doc.description, params))]
    many = len(page.entries) > 1
    return [Section(_entry_label(e) if many else None, paragraphs(e.doc.description, params))
            for e in page.entries]


def return_values(page):
    params = _param_names(page)
    doc = page.fortran_doc
    if doc:
        return [Section(None, paragraphs(doc.return_value, params))] if doc.return_value else []
    groups = {}     # text -> the rows that return it, labelled together
    for e in page.entries:
        if e.doc.return_value:
            groups.setdefault(e.doc.return_value, []).append(_entry_label(e))
    whole = len(groups) == 1 and sum(map(len, groups.values())) == len(page.entries)
    return [Section(None if whole else ", ".join(labels), paragraphs(text, params))
            for text, labels in groups.items()]


# ---- NOTES: the checks lower.py decided, in words ---------------------------
def _check_text(api, r, c, params):
    """One check record of lower.py (see templates/binding_body.j2 for its C)."""
    p = _code(c["param"], params)
    what = c["what"]
    if what == "ctx":
        text = api.kinds["ctx"].check_doc
        if r.noop_invalid_ctx:
            text += (" For this routine `SHMEM_CTX_INVALID` is the exception the specification makes: "
                     "the call then does nothing.")
        return rtext(text, params)
    if what == "kind":
        param = next(x for x in r.params if x.name == c["param"])
        kdef = param.kdef
        doc = kdef.check_doc if c["text"] == kdef.check else kdef.debug_doc
        return rtext(doc.replace(CHECK_PLACEHOLDER, c["param"]), params)
    if what == "count":
        return f"{p} must not be so large that the bytes it names overflow the address space: " \
               "a negative count converted to \\fBsize_t\\fP is refused."
    if what == "nonnegative":
        return f"{p} must not be negative."
    if what == "nonnull":
        return f"{p} must not be NULL."
    if what == "symmetric":
        length = c["length"]
        how = length["how"]
        if how == "span":
            n = _code(length["count"], params)
            return f"{p} must be symmetric, with all {n} elements from it inside one symmetric segment " \
                   f"(the heap, or the program's global and static data); with {n} 0 any pointer is accepted."
        if how == "first":
            moves = " or ".join(_code(m, params) for m in length["moves"])
            return f"{p} must be symmetric when anything moves (with {moves} 0 any pointer is accepted)."
        if how == "work":
            return f"{p} must be symmetric, with room for the work array {_code(length['count'], params)} " \
                   "calls for."
        return f"{p} must be a symmetric address."
    if what == "aligned":
        return f"{p} must be aligned to the size of the object it points to."
    if what == "array":
        return f"{p} must not be NULL when {_code(c['count'], params)} is not 0."
    raise TableError(r.entry.file, r.entry.name, f"man.py has no text for check {what}")


def checks(api, page):
    """(always-on, under SHMEM_DEBUG): each check once, in parameter order."""
    params = _param_names(page)
    always, debug = [], []
    for e in page.entries:
        for r in (x for x in api.routines if x.entry is e):
            for out, records in ((always, r.checks), (debug, r.debug_checks)):
                for c in records:
                    t = (params.index(c["param"]) if c["param"] in params else len(params),
                         _check_text(api, r, c, params))
                    if t not in out:
                        out.append(t)
    return [t for _, t in sorted(always, key=lambda x: x[0])], [t for _, t in sorted(debug, key=lambda x: x[0])]


def _history(api, e, params):
    if e.version == "x":
        text = "A Shoal extension, declared in `shmemx.h`."
    else:
        text = f"Introduced in OpenSHMEM {e.version}."
    if e.deprecated:
        text += f" Deprecated since OpenSHMEM {e.deprecated}"
        text += f"; use `{_pattern_text(e.replacement)}` instead." if e.replacement else "."
    dep_types = {t.name for t in e.deprecated_types}
    since = sorted({r.deprecated for r in api.routines if r.entry is e and r.ctype and r.ctype.name in dep_types})
    if dep_types:
        names = ", ".join(f"`{t.name}`" for t in e.deprecated_types)
        text += f" The forms for {names} are deprecated since OpenSHMEM {' and '.join(since)}."
    for a in e.aliases:
        text += f" `{a['name']}` is the OpenSHMEM {a.get('version', e.version)} name" + \
                (f", deprecated since {a['deprecated']}." if a.get("deprecated") else ".")
    return rtext(text, params)


def notes(api, page):
    params = _param_names(page)
    out = []
    many = len(page.entries) > 1
    for e in page.entries:
        h = _history(api, e, params)
        out.append(f"\\fB{roff_escape(_entry_label(e))}\\fP: {h}" if many else h)
    for e in page.entries:      # rows sharing a page may share their chapter's notes
        if e.doc.notes:
            out += [n for n in paragraphs(e.doc.notes, params) if n not in out]
    doc = page.fortran_doc
    if doc and doc.notes:
        out += paragraphs(doc.notes, params)
    routines = [r for r in api.routines if r.entry in page.entries]
    kinds = {r.inline for r in routines if r.inline}
    if kinds & {"put", "get", "p", "g", "amo"}:
        out.append(rtext(
            "In C, calls of the default-context forms to a PE of the same node are served inline, in the "
            "caller, by `shmem.h`, when their arguments allow it; anything else goes to the exported routine, "
            "which makes the checks above. Compiled with `-DSHMEM_NO_INLINE`, or run with `SHMEM_DEBUG` or "
            "`SHMEM_PROFILE` set, every call goes to the exported routine (where a profiling tool sees it).",
            params))
    if "order" in kinds:
        out.append(rtext(
            "In C, when every PE is reached through shared memory, the default-context form is a memory "
            "fence inline in the caller (`shmem.h`); compiled with `-DSHMEM_NO_INLINE` it is always a call.",
            params))
    if routines:
        generic = any(e.generic for e in page.entries)
        out.append(rtext(
            "Every C routine named above is also exported as its profiling twin, the name with a leading p "
            f"(`p{routines[0].name}`), declared in `pshmem.h`"
            + ("; the C11 generic names are macros and have none." if generic else "."), params))
    if page.fortran:
        text = ("The Fortran names belong to the OpenSHMEM 1.4 Fortran binding (`INCLUDE 'shmem.fh'`, or "
                "`USE shmem` for explicit interfaces; see `oshfort`(1)), deprecated in 1.4 and removed in 1.5, "
                "which Shoal keeps for old programs. Arguments are passed by reference; counts, strides and "
                "PE numbers are default INTEGERs.")
        # fortran.toml's `header`: shmem.fh declares the function's type
        funcs = [fr for fr in page.fortran if fr.returns]
        declared = [fr.name for fr in funcs if fr.row.get("header")]
        own = [fr for fr in funcs if not fr.row.get("header")]
        if own:
            text += (f" With `INCLUDE 'shmem.fh'` a program declares the type of the functions it calls "
                     f"(`{own[0].returns} {own[0].name}`), as `shmem.fh` does not.")
        if declared:
            text += (f" `shmem.fh` declares {', '.join(f'`{n}`' for n in declared)}; a program must not "
                     "declare it again.")
        # [sized] in fortran.toml: a suffix that is not the element's bits counts bytes
        in_bytes = [fr for fr in page.fortran if fr.row.get("sizes") and fr.ftype.bits != int(fr.ftype.name)]
        if in_bytes:
            fr = in_bytes[-1]
            text += (f" In a Fortran name a size of {' or '.join(sorted({f.ftype.name for f in in_bytes}))} "
                     f"counts bytes (`{fr.name}` works on {fr.ftype.size}-byte elements); in a C name, and in "
                     "the other Fortran names, it counts bits.")
        out.append(rtext(text, params))
    return out


def see_also(page, pages_by_name, owner, replaced_by):
    out = []

    def add(name, section="3"):
        if name != page.name and (name, section) not in out:
            out.append((name, section))

    for e in page.entries:
        for n in e.doc.see_also:
            target = _lookup(n, owner, pages_by_name)
            if target is None:
                raise TableError(e.file, e.name, f"see_also names no page or routine: {n!r}")
            add(target.name)
        for n in _replacement_pages(e, owner, pages_by_name):
            add(n)
    for n in replaced_by.get(page.name, []):
        add(n)
    doc = page.fortran_doc
    for n in (doc.see_also if doc else []):
        target = _lookup(n, owner, pages_by_name)
        if target is None:
            raise TableError(FORTRAN_FILE, page.name.upper(), f"see_also names no page or routine: {n!r}")
        add(target.name)
    add("shoal", "7")
    return out


def _lookup(name, owner, pages_by_name):
    """The page a name opens: a C name, a Fortran name (any case), a page."""
    return owner.get(name) or owner.get(name.lower()) or pages_by_name.get(name) or pages_by_name.get(name.lower())


def _replacement_pages(e, owner, pages_by_name):
    """Pages the replacement text names (names or name patterns)."""
    out = []
    for word in re.findall(r"[A-Za-z_][\w{}]*", e.replacement or ""):
        stem = word.replace("{T}_", "").replace("_{T}", "").replace("{S}", "")
        target = owner.get(word) or pages_by_name.get(stem)
        if target is not None and target.name not in out:
            out.append(target.name)
    return out


def complete(api, pages, owner):
    """Fill in every section of every page."""
    by_name = {p.name: p for p in pages}
    replaced_by = {}
    for p in pages:
        for e in p.entries:
            for n in _replacement_pages(e, owner, by_name):
                replaced_by.setdefault(n, [])
                if p.name not in replaced_by[n]:
                    replaced_by[n].append(p.name)
    for p in pages:
        p.header = "shmemx.h" if any(e.version == "x" for e in p.entries) else p.header
        names = []
        for g in (e.generic for e in p.entries):
            if g and g not in names:
                names.append(g)
        for r in api.routines:
            if r.entry in p.entries and r.name not in names:
                names.append(r.name)
        names += [fr.name for fr in p.fortran if fr.name not in names]
        if p.name not in [n.lower() for n in names]:
            names.insert(0, p.name)
        p.names = names
        p.synopsis = synopsis(api, p)
        p.arguments = arguments(p)
        p.description = description(p)
        p.returns = return_values(p)
        p.checks, p.debug_checks = checks(api, p)
        p.notes = notes(api, p)
        p.see_also = see_also(p, by_name, owner, replaced_by)


# ---- the .so pages ------------------------------------------------------------
def links(api, pages, owner):
    """{file stem: page} for every name without a page of its own: the C
    names, their pshmem_ twins (and the twin of each page's name, so that
    `man pshmem_put` opens shmem_put), and the Fortran names in lower case
    (man-db finds SHMEM_INT8_FADD under shmem_int8_fadd)."""
    own = {p.name: p for p in pages}
    out = {}

    def add(name, page, file, entry):
        if name in own:
            if own[name] is not page:
                raise TableError(file, entry, f"{name} would open page {page.name}, but it has a page of its own")
            return
        if out.setdefault(name, page) is not page:
            raise TableError(file, entry, f"{name} would open both {out[name].name} and {page.name}")

    for r in api.routines:
        page = owner[r.name]
        add(r.name, page, r.entry.file, r.entry.name)
        add(r.pname, page, r.entry.file, r.entry.name)
    for p in pages:
        if p.entries:
            add("p" + p.name, p, p.doc_file, p.name)
        for n in p.names:
            if n.startswith("shmem") and n == n.lower():
                add(n, p, p.doc_file, p.name)
        for fr in p.fortran:
            add(fr.name.lower(), p, FORTRAN_FILE, fr.name)
    return dict(sorted(out.items()))


# ---- writing -------------------------------------------------------------------
FORTRAN_CHAPTER = ("fortran", "Fortran only")
TOOL_PAGES = [("oshrun", "1"), ("oshcc", "1"), ("shoal-info", "1"), ("shoal", "7")]
# The compiler wrappers that share oshcc(1).
OSHCC_NAMES = ["oshc++", "oshCC", "oshcxx", "oshfort"]


MAN_SUFFIXES = (".1", ".3", ".7")


def file_names(api):
    """Every file emit() writes, in order: what meson declares as the
    outputs (generate.py list man-pages, at configure time)."""
    pages, owner = build_pages(api)
    out = [f"{name}.{section}" for name, section in TOOL_PAGES]
    out += [f"{name}.1" for name in OSHCC_NAMES]
    out += [f"{p.name}.3" for p in pages]
    out += [f"{name}.3" for name in links(api, pages, owner)]
    return out


def _sync(outdir, files, write):
    """Write {name: text} into outdir (only what changed), and remove the
    pages of an earlier run that are not among them."""
    os.makedirs(outdir, exist_ok=True)
    for stale in sorted(set(os.listdir(outdir)) - set(files)):
        if stale.endswith(MAN_SUFFIXES):
            os.remove(os.path.join(outdir, stale))
    for name, text in files.items():
        write(os.path.join(outdir, name), text)


def emit(api, env, outdir, write, version, env_roff):
    """Every page, flat in outdir (NAME.SECTION); meson installs each into
    its section's directory."""
    pages, owner = build_pages(api)
    complete(api, pages, owner)
    alias = links(api, pages, owner)
    ctx = {"version": version}
    page_tpl = env.get_template("man/page.3.j2")
    so_tpl = env.get_template("man/so.j2")
    by_chapter = []
    titles = dict(api.chapter_titles, **dict([FORTRAN_CHAPTER]))
    for ch in api.chapters + [FORTRAN_CHAPTER[0]]:
        listed = [p for p in pages if p.chapter == ch]
        if listed:
            by_chapter.append((titles[ch], listed))
    files = {}
    for name, section in TOOL_PAGES:
        files[f"{name}.{section}"] = env.get_template(f"man/{name}.{section}.j2").render(
            env_roff=env_roff, chapters=by_chapter, fortran=api.fortran is not None, **ctx)
    for name in OSHCC_NAMES:
        files[f"{name}.1"] = so_tpl.render(section="1", target="oshcc")
    for p in pages:
        files[f"{p.name}.3"] = page_tpl.render(page=p, **ctx)
    for name, page in alias.items():
        files[f"{name}.3"] = so_tpl.render(section="3", target=page.name)
    if list(files) != file_names(api):
        raise TableError("(man pages)", outdir, "emit() and file_names() disagree on the pages")
    _sync(outdir, files, write)
    return files
