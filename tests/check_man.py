#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The man pages: installed, found by name, well formed, indexed.

    python3 tests/check_man.py BUILD_DIR

Installs the pages (`meson install --tags man`) into a scratch --destdir and,
with MANPATH pointing at the installed tree, checks that
  - `man -w` finds every exported C name (BUILD_DIR/exported-names.txt), its
    pshmem_ profiling twin and every Fortran name (BUILD_DIR/fortran-names.txt,
    in upper case as Fortran spells it, and in lower case), and that the page
    it opens lists the name in its NAME section (a twin opens its name's page);
  - the tools' pages open: oshrun, oshcc, oshc++, oshCC, oshcxx, oshfort,
    shoal-info (section 1) and shoal (section 7);
  - `groff -man -ww -z` reports nothing for any page, and every .so page
    names a page that is installed;
  - after mandb (a scratch configuration, user databases only), `whatis`
    finds shmem_put, shmem_int_put and SHMEM_INT8_FADD, and
    `apropos shmem_put` lists shmem_put.
Needs man-db and groff (.ci/install-deps). Exit status 0 when all hold.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

TOOLS = [("oshrun", "1"), ("oshcc", "1"), ("oshc++", "1"), ("oshCC", "1"), ("oshcxx", "1"),
         ("oshfort", "1"), ("shoal-info", "1"), ("shoal", "7")]
CHUNK = 400     # names per `man -w` call


def fail(msg: str) -> int:
    print(f"check_man: FAIL: {msg}")
    return 1


def read_names(path: Path) -> list[str]:
    return [l.split()[0] for l in path.read_text().splitlines() if l.strip() and not l.startswith("#")]


def run(cmd: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env, timeout=600)


def man_env(mandir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAN", "LANG", "LC_"))}
    env.update(MANPATH=str(mandir), LC_ALL="C", MANWIDTH="80")
    return env


def locate(names: list[str], section: str, env: dict) -> tuple[dict, list[str]]:
    """{name: the page file `man -w` opens} and the names it does not find."""
    found, missing = {}, []
    for i in range(0, len(names), CHUNK):
        chunk = names[i:i + CHUNK]
        res = run(["man", "-S", section, "-w", *chunk], env)
        absent = set(re.findall(r"No manual entry for (\S+)", res.stderr))
        present = [n for n in chunk if n not in absent]
        paths = res.stdout.split()
        if len(paths) != len(present):
            raise RuntimeError(f"man -w printed {len(paths)} paths for {len(present)} names: {res.stderr[-300:]}")
        found.update(zip(present, paths))
        missing += [n for n in chunk if n in absent]
    return found, missing


def name_section(page: Path) -> set[str]:
    """The names a page's NAME section lists, in lower case."""
    text = page.read_text()
    m = re.search(r"^\.SH NAME\n(.*?)^\.SH ", text, re.M | re.S)
    if not m:
        return set()
    names = m.group(1).split("\\-")[0]
    return {n.strip().lower() for n in names.replace("\n", " ").split(",") if n.strip()}


def check_names(mandir: Path, build: Path, env: dict) -> list[str]:
    errors = []
    c_names = read_names(build / "exported-names.txt")
    fortran = build / "fortran-names.txt"
    f_names = read_names(fortran) if fortran.is_file() else []
    twins = ["p" + n for n in c_names]
    asked = list(dict.fromkeys(c_names + twins + f_names + [n.lower() for n in f_names]))
    found, missing = locate(asked, "3", env)
    for n in missing:
        errors.append(f"man -w finds no page for {n}")
    listed = {}
    for n, path in found.items():
        page = Path(path)
        if mandir not in page.parents:
            errors.append(f"{n} opens {page}, outside the installed tree")
            continue
        names = listed.setdefault(page, name_section(page))
        want = n[1:] if n in twins else n
        if want.lower() not in names:
            errors.append(f"{n} opens {page.name}, whose NAME section does not list {want}")
        if n in twins and want in found and found[want] != path:
            errors.append(f"{n} opens {page.name}, not the page of {want} ({Path(found[want]).name})")
    tools, missing = {}, []
    for name, section in TOOLS:
        got, miss = locate([name], section, env)
        tools.update(got)
        missing += miss
    errors += [f"man -w finds no page for {n}" for n in missing]
    print(f"man: {len(c_names)} C names, {len(twins)} pshmem_ twins, {len(f_names)} Fortran names "
          f"(upper and lower case), {len(TOOLS)} tool names: {len(found) + len(tools)} of "
          f"{len(asked) + len(TOOLS)} distinct names found by man -w, opening {len(listed)} section 3 pages")
    return errors


def check_groff(mandir: Path) -> list[str]:
    errors, pages, links = [], 0, 0
    for page in sorted(mandir.glob("man*/*")):
        text = page.read_text()
        m = re.match(r"\.so (\S+)\n?$", text)
        if m:
            links += 1
            if not (mandir / m.group(1)).is_file() or (mandir / m.group(1)).read_text().startswith(".so"):
                errors.append(f"{page.relative_to(mandir)}: .so names {m.group(1)}, which is not an installed page")
            continue
        pages += 1
        res = run(["groff", "-man", "-ww", "-z", str(page)])
        if res.returncode or res.stderr.strip():
            errors.append(f"groff -man -ww -z {page.relative_to(mandir)}: {res.stderr.strip()[:300]}")
    print(f"man: groff -man -ww -z on {pages} pages: {sum('groff' in e for e in errors)} with warnings; "
          f"{links} .so pages")
    return errors


def check_index(mandir: Path, tmp: Path, env: dict) -> list[str]:
    """mandb on the installed tree (a scratch configuration: nothing outside
    tmp is written), then whatis and apropos."""
    errors = []
    cache = tmp / "cache"
    cache.mkdir()
    conf = tmp / "man_db.conf"
    conf.write_text(f"MANDATORY_MANPATH {mandir}\nMANDB_MAP {mandir} {cache}\n")
    res = run(["mandb", "-C", str(conf), "-u", "-q"], env)
    if res.returncode:
        return [f"mandb failed ({res.returncode}): {res.stderr.strip()[:300]}"]
    for name, want in (("shmem_put", "shmem_put (3)"), ("shmem_int_put", "shmem_int_put (3)"),
                       ("SHMEM_INT8_FADD", "shmem_int8_fadd (3)"), ("shoal", "shoal (7)")):
        res = run(["whatis", "-C", str(conf), name], env)
        if want not in res.stdout:
            errors.append(f"whatis {name}: no line for {want}: {(res.stdout + res.stderr).strip()[:200]}")
    res = run(["apropos", "-C", str(conf), "shmem_put"], env)
    lines = res.stdout.splitlines()
    if not any(l.startswith("shmem_put (3)") for l in lines):
        errors.append(f"apropos shmem_put does not list shmem_put (3): {(res.stdout + res.stderr).strip()[:200]}")
    print(f"man: mandb indexed the tree; whatis finds 4 names; apropos shmem_put lists {len(lines)} pages")
    return errors


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = Path(sys.argv[1]).resolve()
    for tool in ("man", "mandb", "whatis", "apropos", "groff"):
        if not shutil.which(tool):
            return fail(f"{tool} is not installed (Debian: man-db, groff-base; .ci/install-deps)")
    with tempfile.TemporaryDirectory(prefix="shoal-man-") as tmpdir:
        tmp = Path(tmpdir)
        dest = tmp / "destdir"
        res = run(["meson", "install", "-C", str(build), "--no-rebuild", "--tags", "man", "--destdir", str(dest)])
        if res.returncode:
            return fail(f"meson install --tags man failed: {(res.stdout + res.stderr).strip()[-500:]}")
        shoal7 = list(dest.rglob("man7/shoal.7"))
        if len(shoal7) != 1:
            return fail("the install holds no man7/shoal.7 (is the man-pages target built?)")
        mandir = shoal7[0].parent.parent
        env = man_env(mandir)
        errors = check_names(mandir, build, env) + check_groff(mandir) + check_index(mandir, tmp, env)
    for e in errors[:40]:
        print(f"check_man: {e}")
    if errors:
        return fail(f"{len(errors)} problem(s)" + (" (first 40 shown)" if len(errors) > 40 else ""))
    print("check_man: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
