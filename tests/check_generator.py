#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The generator refuses a bad table, naming the file, the entry and the reason.

Each case copies spec/ to a scratch directory, breaks one thing, runs
generator/generate.py and checks its exit status and message. It also checks
that the output is deterministic (two runs, same bytes).
"""
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GEN = [sys.executable, os.path.join(SRC, "generator", "generate.py"),
       "--templates", os.path.join(SRC, "templates")]

# (file, text to replace, replacement, expected message fragment)
CASES = [
    ("rma.toml", 'kernel = "rma"\n', 'kernel = "rma"\n', None),  # control: the table as it is
    ("rma.toml", '"size_t nelems : count", "int pe : pe"]\ngeneric = "shmem_put"',
     '"size_t nelems : count", "int pe : target"]\ngeneric = "shmem_put"',
     "rma.toml: put: parameter 'pe' has unknown kind 'target'"),
    ("amo.toml", 'types = "bitwise_amo"', 'types = "no_such_table"',
     "amo.toml: atomic_fetch_and: unknown type table 'no_such_table'"),
    ("amo.toml", 'op = "XOR"', 'op = "NAND"', "amo.toml: atomic_fetch_xor: op 'NAND' is not one of"),
    ("sync.toml", 'name = "test"\n', 'name = "test"\nflavour = "mint"\n',
     "sync.toml: test: unknown field(s) ['flavour']"),
    ("rma.toml", 'typed = "shmem_{T}_get"', 'typed = "shmem_{T}_put"',
     "rma.toml: get: routine shmem_float_put is also produced by rma.toml:put"),
    ("types.toml", 'name = "int8"\nc = "int8_t"\nclass = "sint"', 'name = "int8"\nc = "int8_t"\nclass = "signed"',
     "types.toml: int8: needs name, c and a class"),
    # Parameter flags: known ones only, and only on pointers.
    ("teams.toml", '"shmem_team_t *new_team : local_dest nonnull"', '"shmem_team_t *new_team : local_dest nonempty"',
     "teams.toml: shmem_team_split_strided: parameter 'new_team' has unknown flag(s) ['nonempty']"),
    ("teams.toml", '"int start : plain"', '"int start : plain nonnull"',
     "teams.toml: shmem_team_split_strided: parameter 'start': flags need a pointer"),
    ("teams.toml", '"shmem_team_t src_team : team_or_invalid"', '"shmem_team_t src_team : team_or_null"',
     "teams.toml: shmem_team_translate_pe: parameter 'src_team' has unknown kind 'team_or_null'"),
    # Inline twins of untyped routines: only fence/quiet-like ones, without parameters.
    ("order.toml", 'test = "order"\ninline = "order"', 'test = "order"\ninline = "put"',
     "order.toml: shmem_fence: inline 'put' needs a routine without parameters and one of ['order']"),
    # invalid_ctx: "noop" only, on void routines with ctx forms.
    ("order.toml", 'invalid_ctx = "noop"\nversion = "1.6"', 'invalid_ctx = "ignore"\nversion = "1.6"',
     "order.toml: shmem_pe_quiet: invalid_ctx 'ignore' needs a void routine with ctx forms and one of ['noop']"),
    # Operations (ops.toml): each row complete and consistent, and used
    # only on the type classes it names.
    ("ops.toml", 'name = "MAX"\nfi_op = "FI_MAX"', 'name = "MAX"\nfi_op = "MAX"',
     "ops.toml: MAX: fi_op 'MAX' is not a libfabric operation (FI_...)"),
    ("ops.toml", 'fi_op = "FI_MIN"\nfi_kind = "atomic"\ncpu = "cas"', 'fi_op = "FI_MIN"\nfi_kind = "atomic"\ncpu = "cas_loop"',
     "ops.toml: MIN: cpu 'cas_loop' is not one of"),
    ("ops.toml", 'cpu = "fetch_xor"\nexpr = "a ^ b"\nclasses = ["sint", "uint"]',
     'cpu = "fetch_xor"\nexpr = "a ^ b"\nclasses = ["sint", "uint", "float"]',
     "ops.toml: XOR: floating point AMOs preserve bits: cpu must be load, store or exchange"),
    ("ops.toml", 'oracle = "fold"\ntest_init = "5"\n', 'oracle = "fold"\n',
     "ops.toml: MIN: oracle 'fold' needs test_init and test_value"),
    ("ops.toml", 'name = "MIN"\nfi_op', 'name = "MAX"\nfi_op', "ops.toml: MAX: op listed twice"),
    ("ops.toml", 'oracle = "cswap"', 'oracle = "guess"', "ops.toml: CSWAP: oracle 'guess' is not one of"),
    ("ops.toml", 'name = "PROD"\nclasses = ["sint", "uint", "float", "complex"]\nint = "(T)((U)a * (U)b)"\n',
     'name = "PROD"\nclasses = ["sint", "uint", "float", "complex"]\n',
     "ops.toml: PROD: an int expression goes with the sint/uint classes"),
    ("amo.toml", 'typed = "shmemx_{T}_atomic_fetch_max"\ntypes = "std_amo"', 'typed = "shmemx_{T}_atomic_fetch_max"\ntypes = "ext_amo"',
     "amo.toml: x_atomic_fetch_max: op MAX is not defined on ['float', 'double']"),
    ("collectives.toml", 'op = "AND"', 'op = "NAND"', "op 'NAND' is not one of"),
    # A reduction op carries its generated test's oracle (templates/tests/reduce*.c.j2).
    ("ops.toml", 'test_contrib = "((T)((k) + 1 + (i)))"\n', '', "ops.toml: SUM: missing field 'test_contrib'"),
    # Parameter kinds (kinds.toml): known roles, and declarations that fit the kind.
    ("kinds.toml", 'name = "fetch"\nctype = "pointer"\nroles = ["data"]', 'name = "fetch"\nctype = "pointer"\nroles = ["data", "magic"]',
     "kinds.toml: fetch: roles must be a list from"),
    ("kinds.toml", 'check = "shmemi_check_cmp({R}, {name});"', 'check = "shmemi_check_cmp({R}, {value});"',
     "kinds.toml: cmp: check uses unknown placeholder(s) ['value']"),
    ("amo.toml", '"const TYPE *source : sym_src", "int pe : pe"]', '"const TYPE source : sym_src", "int pe : pe"]',
     "amo.toml: atomic_fetch: parameter 'source': kind sym_src needs a pointer declaration (kinds.toml)"),
    # Families joining one generic agree on every parameter and the return
    # type: C++ declares one function template per arity from them.
    ("amo.toml", 'generic = "shmem_atomic_fetch_and"', 'generic = "shmem_atomic_add"',
     "amo.toml: atomic_add: families joining generic shmem_atomic_add disagree on return type or parameters"),
    # Typed kernel variants: each kernel reads its own fields, with known values.
    ("rma.toml", 'op = "put"', 'op = "push"', "rma.toml: put: op 'push' is not one of ['get', 'put']"),
    ("collectives.toml", 'op = "broadcast"', 'op = "scatter"', "collectives.toml: broadcast: op 'scatter' is not one of"),
    ("amo.toml", 'op = "FETCH"\n', 'op = "FETCH"\nmode = "all"\n', "amo.toml: atomic_fetch: kernel 'amo' takes no field(s) ['mode']"),
    # The Fortran chapter (run through the fortran-bindings command).
    ("fortran.toml", 'c = "shmem_{C}_atomic_add"', 'c = "shmem_{C}_atomic_add"', None),
    ("fortran.toml", 'c = "shmem_{C}_atomic_add"', 'c = "shmem_{C}_atomic_plus"',
     "fortran.toml: SHMEM_INT4_ADD: no C routine shmem_{C}_atomic_plus for INT4"),
    ("fortran.toml", 'params = ["dest", "value", "pe"]\nop = "add"', 'params = ["dest", "pe"]\nop = "add"',
     "fortran.toml: SHMEM_INT4_ADD: 2 Fortran arguments for the 3 C parameters of shmem_int32_atomic_add"),
    ("fortran.toml", 'name = "SHMEM_MY_PE"', 'name = "MY_PE"',
     "fortran.toml: MY_PE: Fortran name MY_PE is produced twice"),
    ("fortran.toml", 'name = "SHMEM_FENCE"\n', 'name = "SHMEM_FENCE"\ncolour = "red"\n',
     "fortran.toml: SHMEM_FENCE: unknown field(s) ['colour']"),
    # Man page text: each row has its own, a chapter its title, every
    # parameter a text (its row's, its chapter's or its kind's).
    ("locks.toml", 'summary = "acquire a distributed lock"\n', '',
     "locks.toml: shmem_set_lock: missing field 'summary'"),
    ("locks.toml", 'description = """\nWaits until the calling PE holds', 'notes = """\nWaits until the calling PE holds',
     "locks.toml: shmem_set_lock: missing field 'description'"),
    ("locks.toml", 'return_value = "0 if the calling PE acquired the lock; 1 if another PE held it."\n', '',
     "locks.toml: shmem_test_lock: returns int: missing field 'return_value'"),
    ("locks.toml", 'title = "Distributed locks"\n', '', "locks.toml: (chapter): missing field 'title'"),
    ("setup.toml", 'arguments.npes = "Ignored (programs pass 0)."\n', '',
     "setup.toml: start_pes: parameter 'npes' (kind plain) has no text for the man page"),
    ("setup.toml", 'arguments.npes = ', 'arguments.count = ',
     "setup.toml: start_pes: arguments names no parameter: ['count']"),
    ("kinds.toml", 'check_doc = "`{arg}` must be one of the six `SHMEM_CMP_` constants."\n', '',
     "kinds.toml: cmp: a check needs a check_doc"),
]
# (file, text to replace, replacement, expected message): the man pages
# (generate.py man), which resolve names across rows and pages.
MAN_CASES = [
    ("locks.toml", 'see_also = ["shmem_quiet"]', 'see_also = ["shmem_quiete"]',
     "locks.toml: shmem_clear_lock: see_also names no page or routine: 'shmem_quiete'"),
    ("fortran.toml", 'summary = "release symmetric memory of a Cray pointer (Fortran)"\n', '',
     "fortran.toml: SHPDEALLC: missing field 'summary'"),
    ("collectives.toml", 'arguments.nelems = "The number of elements the calling PE contributes; it may differ between PEs."',
     'arguments.nelems = "The number of elements."',
     "collectives.toml: collect_as: argument 'nelems' reads differently on page shmem_collect"),
]
# (template, text to replace, replacement, expected message): a test recipe
# refuses a row it has no oracle for, at generation time.
TEMPLATE_CASES = [
    ("tests/amo.c.j2", "{% elif op.oracle == 'fold' %}", "{% elif op.oracle == 'fold_gone' %}",
     "amo.toml: atomic_fetch_inc: test recipe amo has no oracle fold for op ADD"),
    ("tests/amo.c.j2", "{% elif op.oracle == 'cswap' %}", "{% elif op.oracle == 'cswap_gone' %}",
     "amo.toml: atomic_compare_swap: test recipe amo has no oracle cswap for op CSWAP"),
    ("fortran/tests/amo.f90.j2", "{% elif how == 'swap' %}", "{% elif how == 'swap_gone' %}",
     "test recipe amo has no oracle for op swap"),
    # The bindings' C text: a check record without its C form is refused too.
    ("binding_body.j2", "{%- elif c.what == 'nonnull' %}", "{%- elif c.what == 'nonnull_gone' %}",
     "binding_body.j2 has no check nonnull"),
]
FORTRAN_SIZES = "integer=4,real=4,double=8,logical=4,complex=8,pointer=8,real16=16"


def run_man(spec, outdir, templates=os.path.join(SRC, "templates")):
    env_roff = os.path.join(outdir + ".roff")
    with open(env_roff, "w") as f:
        f.write(".TP\n.B SHMEM_EXAMPLE\nAn example.\n")
    return subprocess.run([sys.executable, GEN[1], "--templates", templates, "--spec", spec,
                           "--fortran-sizes", FORTRAN_SIZES, "--env-roff", env_roff, "--project-version", "0",
                           "man", outdir], capture_output=True, text=True)


def run(spec, outdir, file=""):
    what = ["--fortran-sizes", FORTRAN_SIZES, "fortran-bindings"] if file == "fortran.toml" else ["headers"]
    return subprocess.run(GEN + ["--spec", spec, *what, outdir], capture_output=True, text=True)


def broken_copy(tree, copy, file, old, new):
    """tree copied to copy with the first `old` in file replaced; None if absent."""
    shutil.copytree(tree, copy)
    path = os.path.join(copy, file)
    text = open(path).read()
    if old not in text:
        return None
    open(path, "w").write(text.replace(old, new, 1))
    return copy


def verdict(label, res, want):
    """want None: the generator must succeed; else fail with `want` in its message."""
    ok = res.returncode == 0 if want is None else res.returncode != 0 and want in res.stderr
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {want or 'unchanged table generates'}")
    if not ok:
        print("     got:", res.returncode, res.stderr.strip()[-300:])
    return ok


def main():
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        # Broken tables: refused by every output, and by the man pages'.
        for label, cases, generate in (("case", CASES, lambda spec, out, file: run(spec, out, file)),
                                       ("man case", MAN_CASES, lambda spec, out, file: run_man(spec, out))):
            for i, (file, old, new, want) in enumerate(cases):
                tag = f"{label.split()[0]}{i}"
                spec = broken_copy(os.path.join(SRC, "spec"), os.path.join(tmp, f"spec-{tag}"), file, old, new)
                if spec is None:
                    print(f"{label} {i}: {file} no longer contains {old!r}; update the case")
                    failed += 1
                    continue
                failed += not verdict(f"{label} {i}", generate(spec, os.path.join(tmp, f"out-{tag}"), file), want)
        for i, (tpl, old, new, want) in enumerate(TEMPLATE_CASES):
            tdir = broken_copy(os.path.join(SRC, "templates"), os.path.join(tmp, f"templates{i}"), tpl, old, new)
            if tdir is None:
                print(f"template case {i}: {tpl} no longer contains {old!r}; update the case")
                failed += 1
                continue
            what = (["--fortran-sizes", FORTRAN_SIZES, "fortran-tests"] if tpl.startswith("fortran/")
                    else ["tests"] if tpl.startswith("tests/") else ["bindings"])
            res = subprocess.run([sys.executable, GEN[1], "--templates", tdir, "--spec", os.path.join(SRC, "spec"),
                                  *what, os.path.join(tmp, f"tout{i}")], capture_output=True, text=True)
            failed += not verdict(f"template case {i}", res, want)
        # Every generated launch names the line that proves values were
        # checked (the C++ builds of the programs too).
        tests = os.path.join(tmp, "tests")
        res = subprocess.run(GEN + ["--spec", os.path.join(SRC, "spec"), "--cxx-tests", "c++11,c++17",
                                    "tests", tests],
                             capture_output=True, text=True)
        entries = json.load(open(os.path.join(tests, "manifest.json")))["tests"] if res.returncode == 0 else []
        bare = [e["name"] for e in entries if not e.get("expect_stdout")]
        ok = res.returncode == 0 and entries and not bare
        print(f"{'ok  ' if ok else 'FAIL'} every generated launch has expect_stdout ({len(entries)} entries)")
        if not ok:
            print("     without:", bare[:5], res.stderr.strip()[-300:])
            failed += 1
        a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        for d in (a, b):
            if run(os.path.join(SRC, "spec"), d).returncode != 0:
                failed += 1
        names = sorted(os.listdir(a))
        same = filecmp.cmpfiles(a, b, names, shallow=False)[0] == names
        print(f"{'ok  ' if same else 'FAIL'} deterministic output ({len(names)} files)")
        failed += not same
        # The man pages too.
        ma, mb = os.path.join(tmp, "man_a"), os.path.join(tmp, "man_b")
        ok = all(run_man(os.path.join(SRC, "spec"), d).returncode == 0 for d in (ma, mb))
        pages = sorted(os.listdir(ma)) if ok else []
        same = ok and bool(pages) and sorted(os.listdir(mb)) == pages and \
            filecmp.cmpfiles(ma, mb, pages, shallow=False)[0] == pages
        print(f"{'ok  ' if same else 'FAIL'} deterministic man pages ({len(pages)} files)")
        failed += not same
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
