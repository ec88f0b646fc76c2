# SPDX-License-Identifier: BSD-3-Clause
"""Load the table, expand it, and render the templates into build outputs."""
import json
import os

import jinja2

from . import SPDX
from .expand import expand_generics, expand_routines, expand_tests
from .load import TableError, load_constants, load_entries, load_kinds, load_ops, load_types
from .lower import forward_decls, lower
from .model import Api


def load_api(spec_dir, fortran_sizes=None, version=""):
    """The one model: the C table, and with the Fortran compiler's sizes
    ('integer=4,...') the Fortran chapter attached to it (api.fortran).
    `version` (meson.build's, the one place it is written) replaces
    @VERSION@ in the constants' values (SHMEM_VENDOR_STRING)."""
    types, tables, sizes = load_types(spec_dir)
    constants = load_constants(spec_dir)
    for c in constants:
        c.value = c.value.replace("@VERSION@", version)
    ops = load_ops(spec_dir)
    kinds = load_kinds(spec_dir)
    titles = {}
    chapters, entries = load_entries(spec_dir, types, tables, sizes, ops, kinds, titles)
    api = Api(types=types, tables=tables, sizes=sizes, constants=constants,
              chapters=chapters, entries=entries, ops=ops, kinds=kinds, chapter_titles=titles)
    expand_routines(api)
    lower(api)
    expand_generics(api)
    expand_tests(api)
    if fortran_sizes is not None:
        from . import fortran
        api.fortran = fortran.load_fortran(spec_dir, api, fortran.parse_sizes(fortran_sizes))
    return api


def listing(api, what):
    if what == "chapters":
        return api.chapters
    if what == "tests":
        return [t.name for t in api.tests]
    if what == "tests-cxx":
        return [t.name for t in api.tests if t.calls_generics]
    if what == "man-pages":      # the files `man` writes (meson's outputs)
        from . import man
        return man.file_names(api)
    raise SystemExit(f"generate.py: nothing to list as {what!r}")


def _decl(ctype, name):
    """'void *' + 'f' -> 'void *f'; 'int' + 'f' -> 'int f'."""
    return f"{ctype}{'' if ctype.endswith('*') else ' '}{name}"


def _env(template_dir):
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(template_dir),
                             undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True,
                             extensions=["jinja2.ext.do"])
    env.filters["decl"] = _decl
    env.globals["refuse"] = _refuse
    return env


def _refuse(entry, reason):
    """Called by a test recipe for a row it has no oracle for: generation fails.
    `entry` is a C table row (file, name) or a Fortran routine (fortran.toml)."""
    raise TableError(getattr(entry, "file", "fortran.toml"), entry.name, reason)


# Every generated program prints this line from PE 0 once it has compared
# at least one value (templates/tests/prelude.c.j2), and the runner requires
# it: a program that checks nothing cannot pass.
def expect_line(name):
    return f"^OK {name}: .* checked [1-9][0-9]* values$"


def _write(path, text):
    """Rewrite only on change, so an unchanged output does not trigger rebuilds."""
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _algorithm_runs(unit):
    runs = []
    for e in unit.entries:
        for var, values in e.algorithms.items():
            runs += [(var, v) for v in values if (var, v) not in runs]
    return runs


# The PE count the C++ builds of the tests run at: the same program as the
# C one, so one count shows the C++ overloads reach the right routines; the
# C runs cover the others.
CXX_TEST_NPES = [2]


def cxx_exe(unit_name, std):
    return f"test_{unit_name}_{std.replace('+', 'x')}"


def emit(api, template_dir, what, outdir, cxx_stds=()):
    env = _env(template_dir)
    os.makedirs(outdir, exist_ok=True)
    if what == "headers":
        for name in ("shmem.h", "shmemx.h", "pshmem.h", "shmemi_forward.h", "shmemi_ops.h", "shmemi_ops_fi.h"):
            _write(os.path.join(outdir, name),
                   env.get_template(name + ".j2").render(api=api, forwards=forward_decls(api)))
    elif what == "bindings":
        tpl = env.get_template("bindings.c.j2")
        for ch in api.chapters:
            _write(os.path.join(outdir, f"bindings_{ch}.c"),
                   tpl.render(api=api, chapter=ch, routines=api.chapter_routines(ch)))
        _write(os.path.join(outdir, "exported-names.txt"),
               env.get_template("names.txt.j2").render(api=api))
    elif what == "tests":
        manifest = []
        for unit in api.tests:
            tpl = env.get_template(f"tests/{unit.recipe}.c.j2")
            _write(os.path.join(outdir, f"test_{unit.name}.c"),
                   tpl.render(api=api, unit=unit, routines=unit.routines))
            expect = expect_line(unit.name)
            manifest.append({"name": unit.name, "exe": f"test_{unit.name}",
                             "npes": unit.npes, "timeout": 120, "env": {}, "expect_stdout": expect})
            # Again with the checked, out-of-line paths (SHMEM_DEBUG turns the
            # inline fast paths off and the costly argument checks on).
            manifest.append({"name": f"{unit.name}/debug", "exe": f"test_{unit.name}",
                             "npes": unit.npes[:1], "timeout": 120, "env": {"SHMEM_DEBUG": "1"},
                             "expect_stdout": expect})
            # The same program built as C++ (through a .cpp that includes
            # it), where its generic calls reach the C++ overloads.
            if cxx_stds and unit.calls_generics:
                _write(os.path.join(outdir, f"test_{unit.name}.cpp"),
                       env.get_template("tests/as_cxx.cpp.j2").render(unit=unit))
                for std in cxx_stds:
                    manifest.append({"name": f"{unit.name}/{std}", "exe": cxx_exe(unit.name, std),
                                     "npes": CXX_TEST_NPES, "timeout": 120, "env": {},
                                     "expect_stdout": expect})
            # Each algorithm the table names, forced, at every PE count
            # above 1 (powers of two or not, oversubscribed at 4).
            for var, value in _algorithm_runs(unit):
                manifest.append({"name": f"{unit.name}/{value}", "exe": f"test_{unit.name}",
                                 "npes": [n for n in unit.npes if n >= 2], "timeout": 120,
                                 "env": {var: value}, "expect_stdout": expect})
        _write(os.path.join(outdir, "manifest.json"),
               json.dumps({"SPDX": SPDX, "tests": manifest}, indent=1) + "\n")


def emit_man(api, template_dir, outdir, version, env_roff):
    """The man pages (generator/shoalgen/man.py, templates/man/), flat in
    outdir as NAME.SECTION. env_roff: the environment variables as roff,
    printed by `shoal-info --env-roff` from the library's own table."""
    from . import man
    env = _env(template_dir)
    env.filters["roff"] = man.roff_escape
    return man.emit(api, env, outdir, _write, version, env_roff)


def emit_fortran(api, template_dir, what, outdir):
    """The Fortran binding (spec/fortran.toml, templates/fortran/): api.fortran."""
    from . import fortran
    fortran.emit(api.fortran, _env(template_dir), what, outdir, _write)
