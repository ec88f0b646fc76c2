#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run Shoal's test suite against a meson build directory.

    python3 tests/run_tests.py BUILD_DIR [--filter REGEX] [--jobs N]
                               [--env KEY=VALUE ...] [--label-suffix TEXT]

Three sections, each run counted as one test:

  generated  BUILD_DIR/tests/generated/manifest.json: one conformance program
             per routine family, run at each PE count it lists.
  manual     tests/manual/manifest.toml (source tree): hand-written programs
             with their expected exit status, stdout and stderr.
  checks     steps that launch nothing: the public headers compile as C11,
             C11 with -DSHMEM_NO_INLINE, C99 and C++17 (and a C++ program
             links and runs); an unsupported type given to a generic routine
             fails to compile with an error naming the routine; every routine
             of the table is exported with its pshmem_ twin
             (tests/check_exports.py).

Every launch goes through the build tree's oshrun (never /usr/bin/oshrun, which
is Open MPI's), in a new session, with SHOAL_TEST_TAG set to a unique id;
except that a generated test at 1 PE is started alone, as a singleton (a
launcher costs most of a short test's time, and "a program started alone is
one PE" is then covered by every family; manual tests still run 1 PE under
oshrun).  On a
timeout the whole process group is killed; after every launch any process
still carrying the tag is killed too, and /dev/shm must hold no new shoal-*
entry and no libfabric shm region ("<pid>:<n>:<n>") of a process that carried
the tag.  After the whole run a final check asserts /dev/shm is clean.

--env KEY=VALUE (repeatable) sets a variable for every launch (a test's own
env in the manifest wins); with --label-suffix the same suite can run once per
path mode (SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp, ...) with telling labels.

A manual test meson did not build because the build lacks what it needs
(BUILD_DIR/tests/manual/NAME.skip says why) is reported as SKIP, not run.

The last line is "N passed, M failed"; the exit status is 1 if anything failed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

SRC_DIR = Path(__file__).resolve().parent.parent
SHM_DIR = Path("/dev/shm")
SHM_PREFIX = "shoal-"
# libfabric's shm provider names its regions "<pid>:<n>:<n>" (one per endpoint).
FI_SHM_NAME = re.compile(r"(\d+):\d+:\d+")
PID_POLL_S = 0.25
KILL_GRACE_S = 3.0
SHM_RECHECK_S = 0.5
TAIL_LINES = 25
COMPILE_TIMEOUT_S = 120


# ---- results --------------------------------------------------------------

@dataclass
class Outcome:
    ok: bool
    message: str = ""          # why it failed (one line)
    stdout: str = ""
    stderr: str = ""
    notes: list[str] = field(default_factory=list)   # printed even on success
    skipped: str = ""          # why the test did not run (a build without what it needs)


@dataclass
class Job:
    label: str                 # "rma_put np=2", "manual/x np=3", "check/headers-c11"
    run: Callable[[], Outcome]
    program: Path | None = None  # what a launch runs


class Reporter:
    """Prints one line per finished job; thread-safe; counts the results."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.passed = 0
        self.skipped = 0
        self.failed: list[str] = []

    def report(self, label: str, outcome: Outcome, seconds: float) -> None:
        with self.lock:
            if outcome.skipped:
                self.skipped += 1
                print(f"SKIP {label}: {outcome.skipped}")
            elif outcome.ok:
                self.passed += 1
                print(f"PASS {label} ({seconds:.1f} s)")
            else:
                self.failed.append(label)
                print(f"FAIL {label} ({seconds:.1f} s): {outcome.message}")
                for name, text in (("stdout", outcome.stdout), ("stderr", outcome.stderr)):
                    lines = text.rstrip("\n").splitlines()
                    if not lines:
                        continue
                    shown = lines[-TAIL_LINES:]
                    more = f", last {len(shown)} of {len(lines)} lines" if len(lines) > len(shown) else ""
                    print(f"    --- {name}{more} ---")
                    for line in shown:
                        print(f"    | {line}")
            for note in outcome.notes:
                print(f"    {note}")
            sys.stdout.flush()


# Launches slower than this, or failed, are told how many TCP connection
# requests this host resent meanwhile: on loopback a lost SYN is one way a
# launch waits whole seconds for a peer that is alive (five cost 31 s, the
# length of the stalls CI still sees now and then; docs/providers.md).
SLOW_LAUNCH_S = 10.0


# TcpExt counters read around each launch: SYNs resent, and SYNs refused
# because a TIME_WAIT socket of the same addresses and ports holds a newer
# timestamp (PAWS), a lead for why a SYN is lost.
SYN_COUNTERS = ("TCPSynRetrans", "PAWSTimewait")


def tcp_syn_counters() -> tuple:
    """SYN_COUNTERS of this network namespace (zeros if unreadable)."""
    try:
        with open("/proc/net/netstat") as f:
            lines = f.read().splitlines()
    except OSError:
        return (0,) * len(SYN_COUNTERS)
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            fields = dict(zip(names.split()[1:], values.split()[1:]))
            return tuple(int(fields.get(k, 0)) for k in SYN_COUNTERS)
    return (0,) * len(SYN_COUNTERS)


def note(text: str) -> None:
    """A remark about the run, on stderr: stdout carries the results and
    the --list outputs other scripts read (.ci/run's sanitizer builds)."""
    print(f"note: {text}", file=sys.stderr, flush=True)


# ---- processes ------------------------------------------------------------

def processes_with_tag(tag: str) -> list[int]:
    """PIDs whose initial environment holds SHOAL_TEST_TAG=<tag>."""
    needle = b"\0SHOAL_TEST_TAG=" + tag.encode() + b"\0"
    me = os.getpid()
    pids = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                environ = b"\0" + f.read()
        except OSError:
            continue           # gone, or not ours to read
        if needle in environ:
            pids.append(int(entry.name))
    return pids


def describe_pid(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        cmd = "?"
    return f"{pid} ({cmd[:80]})"


def kill_tagged(tag: str, settle_s: float = 0.0) -> list[str]:
    """Kill every process carrying the tag: SIGTERM, then SIGKILL after a grace
    period.  settle_s first gives processes that are exiting anyway a moment.
    Returns a description of each process found."""
    deadline = time.monotonic() + settle_s
    pids = processes_with_tag(tag)
    while pids and time.monotonic() < deadline:
        time.sleep(0.05)
        pids = processes_with_tag(tag)
    if not pids:
        return []
    found = [describe_pid(p) for p in pids]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + KILL_GRACE_S
        while pids and time.monotonic() < deadline:
            time.sleep(0.05)
            pids = processes_with_tag(tag)
        if not pids:
            break
    return found


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGTERM)
    except OSError:
        return
    deadline = time.monotonic() + KILL_GRACE_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except OSError:
            return
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


@dataclass
class Finished:
    status: int | None         # None: timed out
    stdout: str
    stderr: str
    leftovers: list[str]       # processes still alive after the launcher ended
    pids: set[int] = field(default_factory=set)  # every tagged process seen


_tag_counter = itertools.count(1)
_active_lock = threading.Lock()
_active: dict[str, subprocess.Popen] = {}


def new_tag(label: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", label)
    return f"{os.getpid()}-{next(_tag_counter)}-{safe}"


def run_tagged(cmd: list[str], env_extra: dict[str, str], timeout: float, tag: str,
               cwd: Path | None = None) -> Finished:
    """Run cmd in a new session with SHOAL_TEST_TAG=tag.  Output goes to files,
    not pipes, so a PE that escapes the group cannot keep us waiting.
    Each launch has a TMPDIR of its own: mpirun keeps its session files in
    $TMPDIR/ompi.<host>.<uid>, which the last job to end removes, and a
    launch creating it meanwhile fails ("mkdir ... File exists")."""
    env = dict(os.environ)
    env.update(env_extra)
    env["SHOAL_TEST_TAG"] = tag
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory(prefix="shoal-launch-") as tmp:
        if "TMPDIR" not in env_extra:
            env["TMPDIR"] = tmp
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    env=env, cwd=cwd, start_new_session=True)
        except OSError as e:
            return Finished(127, "", f"cannot start {cmd[0]}: {e}", [])
        with _active_lock:
            _active[tag] = proc
        pids: set[int] = set()
        try:
            status = wait_noting_pids(proc, tag, timeout, pids)
            if status is None:
                kill_group(proc.pid)
                proc.wait()
            # Always: PEs may have left the group (setsid, double fork, a daemon).
            leftovers = kill_tagged(tag, settle_s=1.0 if status is not None else 0.0)
        except BaseException:          # Ctrl-C: leave nothing running
            kill_group(proc.pid)
            kill_tagged(tag)
            raise
        finally:
            with _active_lock:
                _active.pop(tag, None)
        out.seek(0)
        err.seek(0)
        return Finished(status, out.read().decode(errors="replace"),
                        err.read().decode(errors="replace"), leftovers, pids)


def wait_noting_pids(proc: subprocess.Popen, tag: str, timeout: float,
                     pids: set[int]) -> int | None:
    """proc's exit status (None on timeout), adding to pids every process
    that carries the tag meanwhile: libfabric names its /dev/shm files after
    them, and a killed PE's files must be told apart from other jobs'."""
    deadline = time.monotonic() + timeout
    while True:
        pids.update(processes_with_tag(tag))
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        try:
            return proc.wait(timeout=min(PID_POLL_S, left))
        except subprocess.TimeoutExpired:
            continue


def kill_everything_active() -> None:
    with _active_lock:
        active = dict(_active)
    for tag, proc in active.items():
        kill_group(proc.pid)
        kill_tagged(tag)


def status_text(status: int) -> str:
    if status < 0:
        try:
            return f"killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"killed by signal {-status}"
    return f"exit status {status}"


# ---- /dev/shm -------------------------------------------------------------

def shm_all_names() -> set[str]:
    try:
        return set(os.listdir(SHM_DIR))
    except OSError:
        return set()


def shm_entries(pids: set[int] | None = None) -> set[str]:
    """shoal-* entries, plus libfabric shm regions of the given processes."""
    try:
        names = os.listdir(SHM_DIR)
    except OSError:
        return set()
    ours = {n for n in names if n.startswith(SHM_PREFIX)}
    for n in names:
        m = FI_SHM_NAME.fullmatch(n)
        if m and pids and int(m.group(1)) in pids:
            ours.add(n)
    return ours


def shm_in_use() -> set[str]:
    """shoal-* and libfabric names that some live process has open or mapped."""
    used = set()
    pattern = re.compile(r"/dev/shm/(" + re.escape(SHM_PREFIX) + r"[^\s/]*|\d+:\d+:\d+)")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/maps") as f:
                used.update(pattern.findall(f.read()))
            for fd in os.scandir(f"/proc/{entry.name}/fd"):
                used.update(pattern.findall(os.readlink(fd.path)))
        except OSError:
            continue
    return used


def remove_shm(names: set[str]) -> None:
    for name in names:
        path = SHM_DIR / name
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        except FileNotFoundError:
            pass
        except OSError as e:
            note(f"cannot remove {path}: {e}")


class ShmWatch:
    """Finds what a launch left in /dev/shm: shoal-* entries that appeared
    during the launch, and libfabric shm regions named after one of the
    launch's processes, that no live process has open or mapped, now or a
    moment later (so entries of launches still running, with --jobs > 1, are
    not counted; the final check catches anything this misses)."""

    def __init__(self, preexisting: set[str]) -> None:
        self.ignore = set(preexisting)
        self.lock = threading.Lock()
        self.pids: set[int] = set()    # every PE of the run, for the final check

    def leftovers(self, before: set[str], pids: set[int] | None = None) -> set[str]:
        with self.lock:
            self.pids |= pids or set()
            pids = pids if pids is not None else self.pids
            # Held by a live process: a launch still running here, or someone
            # else's job on this machine.  Never ours to remove.
            new = shm_entries(pids) - before - self.ignore - shm_in_use()
            if new:
                # A job that is finishing may hold nothing for an instant
                # between unmapping and unlinking; ask again a little later.
                time.sleep(SHM_RECHECK_S)
                new = (new & shm_entries(pids)) - shm_in_use()
            remove_shm(new)
            return new


# ---- launches -------------------------------------------------------------

@dataclass
class Launch:
    section: str               # "generated" | "manual"
    name: str
    npes: int
    exe: Path
    args: list[str]
    env: dict[str, str]
    timeout: float
    expect_status: str | int = "zero"
    expect_stdout: str | None = None
    expect_stderr: str | None = None
    launcher: bool = True      # False: run the program alone (a singleton PE)

    @property
    def label(self) -> str:
        prefix = "manual/" if self.section == "manual" else ""
        # One program may back several entries that differ only in args.
        args = "".join(f" {a}" for a in self.args)
        return f"{prefix}{self.name}{args} np={self.npes}"


def check_expectations(t: Launch, done: Finished) -> str | None:
    """The failure message, or None if the run is as expected."""
    if done.status is None:
        return f"timed out after {t.timeout:g} s (process group killed)"
    expected = t.expect_status
    if expected == "zero" and done.status != 0:
        return f"{status_text(done.status)}, expected 0"
    if expected == "nonzero" and done.status == 0:
        return "exit status 0, expected nonzero"
    if isinstance(expected, int) and done.status != expected:
        return f"{status_text(done.status)}, expected {expected}"
    if t.expect_stdout is not None and not re.search(t.expect_stdout, done.stdout, re.M):
        return f"stdout does not match /{t.expect_stdout}/"
    if t.expect_stderr is not None and not re.search(t.expect_stderr, done.stderr, re.M):
        return f"stderr does not match /{t.expect_stderr}/"
    return None


def launch_job(t: Launch, oshrun: Path, shm: ShmWatch, timeout_scale: float,
               env_all: dict[str, str] | None = None) -> Job:
    def run() -> Outcome:
        if not t.exe.is_file():
            # meson leaves NAME.skip, saying why, for a test it could not
            # build in this configuration (tests/manual/meson.build).
            skip = t.exe.with_name(t.exe.name + ".skip")
            if skip.is_file():
                why = [l for l in skip.read_text().splitlines() if not l.startswith("#")]
                return Outcome(True, skipped="\n".join(why).strip() or "not built")
            return Outcome(False, f"executable not found: {t.exe}")
        # Every name, not only ours: a libfabric region left by someone
        # else's process whose PID one of our PEs now reuses is not ours.
        before = shm_all_names()
        launch = [str(oshrun), "-n", str(t.npes)] if t.launcher else []
        cmd = [*launch, str(t.exe), *t.args]
        scaled = dataclasses.replace(t, timeout=t.timeout * timeout_scale)
        done = run_tagged(cmd, {**(env_all or {}), **t.env}, scaled.timeout, new_tag(t.label),
                          cwd=t.exe.parent)
        problems = []
        failure = check_expectations(scaled, done)
        if failure:
            problems.append(failure)
        if done.leftovers and done.status is not None:
            problems.append(f"{len(done.leftovers)} process(es) outlived the launcher: "
                            + ", ".join(done.leftovers))
        notes = []
        if done.leftovers and done.status is None:
            notes.append("killed after the timeout: " + ", ".join(done.leftovers))
        left = shm.leftovers(before, done.pids)
        if left:
            problems.append("left in /dev/shm (removed): " + " ".join(sorted(left)))
        return Outcome(not problems, "; ".join(problems), done.stdout, done.stderr, notes)
    return Job(t.label, run, t.exe)


def as_env(raw: object, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: env must be a table of NAME = value")
    return {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in raw.items()}


def as_npes(raw: object, where: str) -> list[int]:
    values = raw if isinstance(raw, list) else [raw]
    if not values or not all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in values):
        raise ValueError(f"{where}: npes must be a list of positive integers, not {raw!r}")
    return values


def load_generated(build: Path, subdir: str = "generated") -> list[Launch]:
    path = build / "tests" / subdir / "manifest.json"
    if not path.is_file():
        note(f"{path} not found: no generated tests")
        return []
    data = json.loads(path.read_text())
    launches = []
    for i, entry in enumerate(data.get("tests", [])):
        where = f"{path}: tests[{i}] ({entry.get('name', '?')})"
        if "name" not in entry or "exe" not in entry:
            raise ValueError(f"{where}: needs name and exe")
        # The line a program prints only after it has compared values: a
        # generated launch without one could pass having checked nothing.
        expect = entry.get("expect_stdout")
        if not expect:
            raise ValueError(f"{where}: needs expect_stdout (the line that proves values were checked)")
        try:
            re.compile(expect)
        except re.error as e:
            raise ValueError(f"{where}: expect_stdout is not a valid regex: {e}") from None
        for n in as_npes(entry.get("npes", [2]), where):
            launches.append(Launch(
                section="generated", name=entry["name"], npes=n,
                exe=path.parent / entry["exe"], args=[str(a) for a in entry.get("args", [])],
                env=as_env(entry.get("env"), where), timeout=float(entry.get("timeout", 120)),
                expect_stdout=expect, launcher=n > 1))
    return launches


def load_manual(build: Path, path: Path) -> list[Launch]:
    if not path.is_file():
        note(f"{path} not found: no manual tests")
        return []
    with open(path, "rb") as f:
        data = tomllib.load(f)
    known = {"name", "npes", "env", "expect_status", "expect_stderr", "expect_stdout",
             "timeout", "args", "description", "launcher"}
    launches = []
    for i, entry in enumerate(data.get("test", [])):
        where = f"{path}: [[test]] #{i + 1} ({entry.get('name', '?')})"
        if "name" not in entry:
            raise ValueError(f"{where}: needs a name")
        unknown = set(entry) - known
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        status = entry.get("expect_status", "zero")
        if not (status in ("zero", "nonzero") or (isinstance(status, int) and not isinstance(status, bool))):
            raise ValueError(f"{where}: expect_status must be \"zero\", \"nonzero\" or an integer")
        for key in ("expect_stdout", "expect_stderr"):
            if key in entry:
                try:
                    re.compile(entry[key])
                except re.error as e:
                    raise ValueError(f"{where}: {key} is not a valid regex: {e}") from None
        for n in as_npes(entry.get("npes", [2]), where):
            launches.append(Launch(
                section="manual", name=entry["name"], npes=n,
                exe=build / "tests" / "manual" / entry["name"],
                args=[str(a) for a in entry.get("args", [])],
                env=as_env(entry.get("env"), where), timeout=float(entry.get("timeout", 60)),
                expect_status=status, expect_stdout=entry.get("expect_stdout"),
                expect_stderr=entry.get("expect_stderr"),
                launcher=bool(entry.get("launcher", True))))
    return launches


# ---- checks ---------------------------------------------------------------

C11_SOURCE = r"""
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

/* Never called: it only has to compile, cleanly. */
void shoal_header_check(long *dest, const long *src, int pe);
void shoal_header_check(long *dest, const long *src, int pe)
{
    shmem_put(dest, src, 1, pe);
    shmem_put(SHMEM_CTX_DEFAULT, dest, src, 1, pe);
    shmem_long_put(dest, src, 1, pe);
    long old = shmem_atomic_fetch_add(dest, 1L, pe);
    shmem_p(dest, old, pe);
    shmem_barrier_all();
}
"""

C99_SOURCE = r"""
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>

/* Typed API only: the C11 generic names are hidden before C11. */
void shoal_header_check(long *dest, const long *src, int pe);
void shoal_header_check(long *dest, const long *src, int pe)
{
    shmem_long_put(dest, src, 1, pe);
    shmem_ctx_long_put(SHMEM_CTX_DEFAULT, dest, src, 1, pe);
    long old = shmem_long_atomic_fetch_add(dest, 1L, pe);
    shmem_long_p(dest, old, pe);
    shmem_barrier_all();
}
"""

CXX_SOURCE = r"""
#include <shmem.h>
#include <shmemx.h>
#include <pshmem.h>
#include <cstdio>

// The _Complex routines are declared for C++ too (g++ takes _Complex as an
// extension), since C++ programs of public suites call them.
static double _Complex zsrc[2], zdst[2];

int main()
{
    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();
    zsrc[0] = 1.5;
    zsrc[1] = 2.0;
    int rc = shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zdst, zsrc, 2);
    int sum_ok = rc == 0 && zdst[0] == zsrc[0] && zdst[1] == zsrc[1];
    shmem_barrier_all();
    shmem_finalize();
    std::printf("C++ singleton: PE %d of %d, complexd_sum_reduce %s\n", me, npes,
                sum_ok ? "ok" : "wrong");
    return me == 0 && npes == 1 && sum_ok ? 0 : 1;
}
"""

# The generic names from C++ (function templates generated from the same
# rows as the C11 selections), run as a singleton on its own PE: every
# value is checked, and the program prints how many.
CXX_GENERICS_SOURCE = r"""
#include <shmem.h>
#include <shmemx.h>
#include <complex.h> // defines the macro I: the header's templates must not care
#include <cstdio>

static long lv, la[4];
static int iv;
static int32_t i32;
static unsigned long long ullv;
static double dv[3];
static uint64_t sig;
static long lsrc_data[4] = {1, 2, 3, 4};
static const long *const lsrc = lsrc_data;

int main()
{
    int bad = 0, checked = 0;
#define EXPECT(c) (checked++, bad += !(c) ? (std::printf("wrong: %s\n", #c), 1) : 0)
    shmem_init();
    int me = shmem_my_pe();
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_put(la, lsrc, 4, me);                      // const long * source
    shmem_put(ctx, la, la, 2, me);                   // ctx form, long * source
    EXPECT(la[3] == 4);
    shmem_p(&lv, 7, me);                              // int 7 converts to long
    EXPECT(shmem_g(&lv, me) == 7);
    EXPECT(shmem_g(ctx, &lv, me) == 7);
    shmem_atomic_add(&iv, 5, me);
    shmem_atomic_add(ctx, &iv, 1, me);
    EXPECT(shmem_atomic_fetch_inc(&iv, me) == 6);
    EXPECT(shmem_atomic_fetch(&iv, me) == 7);
    i32 = 12;
    shmem_atomic_and(&i32, 10, me);                   // bitwise: int32_t only, by its typedef
    EXPECT(i32 == 8);
    EXPECT(shmem_atomic_compare_swap(&ullv, 0ULL, 3ULL, me) == 0 && ullv == 3);
    EXPECT(shmem_swap(&lv, 9L, me) == 7);             // the 1.4 C function shmem_swap(long *, ...)
    EXPECT(shmem_swap(&iv, 1, me) == 7);              // the generic, for int
    double dsrc[3] = {0.5, 1.5, 2.5};
    shmem_put(dv, dsrc, 3, me);
    shmem_quiet();
    EXPECT(dv[2] == 2.5);
    shmem_wait_until(&lv, SHMEM_CMP_EQ, 9);           // the 1.4 C function
    shmem_wait_until(&iv, SHMEM_CMP_EQ, 1);           // the generic, for int
    EXPECT(shmem_test(&iv, SHMEM_CMP_NE, 0) == 1);
    shmem_put_signal(la, lsrc, 4, &sig, 5, SHMEM_SIGNAL_SET, me);
    shmem_signal_add(&sig, 2, me);
    shmem_signal_add(ctx, &sig, 1, me);
    EXPECT(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 8) == 8);
    EXPECT(shmem_sum_reduce(SHMEM_TEAM_WORLD, la, lsrc, 4) == 0 && la[0] == 1);
    EXPECT(shmem_sync(SHMEM_TEAM_WORLD) == 0);
    shmem_finalize();
    if (!bad)
        std::printf("C++ generics: %d values checked\n", checked);
    return bad || checked != 14;
}
"""

NEGATIVE_PUT_SOURCE = r"""
#include <shmem.h>
struct s { int x; };
void shoal_negative(struct s *dest, const struct s *src, int pe);
void shoal_negative(struct s *dest, const struct s *src, int pe)
{
    shmem_put(dest, src, 1, pe);
}
"""

NEGATIVE_ADD_SOURCE = r"""
#include <shmem.h>
void shoal_negative(double *dest, int pe);
void shoal_negative(double *dest, int pe)
{
    shmem_atomic_add(dest, 1.0, pe);
}
"""

FORTRAN_SOURCE = """\
program shoal_header_check
  implicit none
  include 'shmem.fh'
end program shoal_header_check
"""

# Fixed form (columns 7-72): shmem.fh must read the same in both forms. It
# declares SHMEM_PE_ACCESSIBLE, SHMEM_ADDR_ACCESSIBLE and SHMEM_PTR, as
# Sandia OpenSHMEM's and Open MPI's do, and leaves every other function's
# type to the program, which declares it after the include as the spec's
# synopses do (a second declaration would not compile).
FORTRAN_FIXED_SOURCE = """\
      PROGRAM SHOALF
      IMPLICIT NONE
      INCLUDE 'shmem.fh'
      INTEGER SHMEM_MY_PE, MY_PE, SHMEM_N_PES, NUM_PES, SHMEM_TEST_LOCK
      INTEGER*8 SHMEM_INT8_FADD
      INTEGER ME, N, PSYNC(SHMEM_BCAST_SYNC_SIZE)
      LOGICAL OK
      INTEGER*8 IV
      DATA PSYNC /SHMEM_BCAST_SYNC_SIZE*SHMEM_SYNC_VALUE/
      CALL START_PES(0)
      ME = SHMEM_MY_PE() + MY_PE()
      N = SHMEM_N_PES() + NUM_PES()
      OK = SHMEM_PE_ACCESSIBLE(0) .AND. SHMEM_ADDR_ACCESSIBLE(N, 0)
      IV = SHMEM_INT8_FADD(IV, IV, 0) + SHMEM_PTR(N, 0)
      IF (OK .AND. SHMEM_TEST_LOCK(N) .EQ. SHMEM_CMP_EQ) STOP
      CALL SHMEM_INT8_WAIT_UNTIL(IV, SHMEM_CMP_NE, IV)
      PRINT *, ME, N, SHMEM_VENDOR_STRING, SHMEM_MAJOR_VERSION, PSYNC(1)
      END
"""

FORTRAN_FREE_SOURCE = FORTRAN_FIXED_SOURCE.replace("      ", "  ")

# Module shmem's interfaces check the calls: a default INTEGER given where
# SHMEM_INT8_FADD takes an INTEGER*8 value must not compile, and the error
# names the argument.
FORTRAN_MODULE_MISMATCH_SOURCE = """\
program shoal_module_mismatch
  use shmem
  implicit none
  integer*8, save :: counter
  integer*8 :: old
  old = SHMEM_INT8_FADD(counter, 1, 0)
end program shoal_module_mismatch
"""


def run_quiet(cmd: list[str], timeout: float = COMPILE_TIMEOUT_S) -> tuple[int | None, str]:
    """Run a short command; returns (status or None on timeout, combined output)."""
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    except OSError as e:
        return 127, f"cannot run {cmd[0]}: {e}"
    return p.returncode, p.stdout.decode(errors="replace")


def compile_job(label: str, compiler: list[str], flags: list[str], source: str, suffix: str,
                link: list[str] | None = None, run_it: bool = False) -> Job:
    """A TU that must compile (and, with link, link; with run_it, run as a singleton)."""
    def run() -> Outcome:
        with tempfile.TemporaryDirectory(prefix="shoal-check-") as tmp:
            src = Path(tmp) / f"check{suffix}"
            src.write_text(source)
            out = Path(tmp) / ("check" if link is not None else "check.o")
            cmd = [*compiler, *flags, str(src), "-o", str(out)]
            cmd += link if link is not None else ["-c"]
            status, output = run_quiet(cmd)
            if status != 0:
                what = "did not compile" if link is None else "did not compile and link"
                return Outcome(False, what if status is not None else output,
                               stderr=" ".join(cmd) + "\n" + output)
            if not run_it:
                return Outcome(True)
            done = run_tagged([str(out)], {}, 60, new_tag(label))
            if done.status != 0:
                why = "timed out" if done.status is None else status_text(done.status)
                return Outcome(False, f"the program {why}", done.stdout, done.stderr)
            return Outcome(True, notes=[done.stdout.strip()] if done.stdout.strip() else [])
    return Job(label, run)


def negative_compile_job(label: str, compiler: list[str], flags: list[str], source: str,
                         routine: str, suffix: str = ".c", one_error: bool = False) -> Job:
    """A TU that must NOT compile, with an error line naming the routine
    (with one_error, as its only error line). Carets are off so echoed source
    lines cannot supply the name; -Werror is off so a silent fallback that
    only warns counts as compiling."""
    def run() -> Outcome:
        with tempfile.TemporaryDirectory(prefix="shoal-check-") as tmp:
            src = Path(tmp) / f"negative{suffix}"
            src.write_text(source)
            cmd = [*compiler, *flags, "-fno-diagnostics-show-caret", "-c", str(src),
                   "-o", str(Path(tmp) / "negative.o")]
            status, output = run_quiet(cmd)
            if status is None:
                return Outcome(False, output)
            if status == 0:
                return Outcome(False, f"compiled, but an unsupported type given to {routine} "
                                      "must be a compile-time error", stderr=output)
            errors = [l for l in output.splitlines() if "error" in l.lower()]   # gfortran: "Error:"
            if not any(routine in l for l in errors):
                return Outcome(False, f"failed to compile, but no error line names {routine}",
                               stderr=output)
            if one_error and len(errors) != 1:
                return Outcome(False, f"{len(errors)} error lines, not one", stderr=output)
            return Outcome(True)
    return Job(label, run)


def cxx_wrappers_job(build: Path) -> Job:
    """oshc++ is installed as oshCC and oshcxx too (public Makefiles use
    both), and each compiles, links and runs a C++ program calling generic
    names. Installed with --destdir into a scratch directory: the wrappers
    name the real prefix, so the scratch copies of the headers and the
    library are named ahead of it (-I, -L, LD_LIBRARY_PATH)."""
    def run() -> Outcome:
        with tempfile.TemporaryDirectory(prefix="shoal-check-") as tmp:
            dest = Path(tmp) / "destdir"
            status, output = run_quiet(["meson", "install", "-C", str(build), "--no-rebuild",
                                        "--destdir", str(dest)])
            if status != 0:
                return Outcome(False, "meson install --destdir failed", stderr=output)
            bins = list(dest.rglob("bin/oshc++"))
            if len(bins) != 1:
                return Outcome(False, "oshc++ is not installed")
            bindir = bins[0].parent
            inc = next(dest.rglob("include/shmem.h"), None)
            lib = next(dest.rglob("libshmem.so"), None)
            if inc is None or lib is None:
                return Outcome(False, "shmem.h or libshmem.so is not installed")
            src = Path(tmp) / "generics.cpp"
            src.write_text(CXX_GENERICS_SOURCE)
            notes = []
            for alias in ("oshCC", "oshcxx"):
                path = bindir / alias
                if not path.exists() or path.resolve() != bins[0].resolve():
                    return Outcome(False, f"{alias} is not installed beside oshc++ as the same wrapper")
                exe = Path(tmp) / alias.lower()
                cmd = [str(path), "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I", str(inc.parent),
                       "-L", str(lib.parent), str(src), "-o", str(exe)]
                status, output = run_quiet(cmd)
                if status != 0:
                    return Outcome(False, f"{alias} did not compile and link", stderr=" ".join(cmd) + "\n" + output)
                done = run_tagged([str(exe)], {"LD_LIBRARY_PATH": str(lib.parent)}, 60, new_tag(alias))
                if done.status != 0:
                    why = "timed out" if done.status is None else status_text(done.status)
                    return Outcome(False, f"the program {alias} built {why}", done.stdout, done.stderr)
                notes.append(f"{alias}: {done.stdout.strip()}")
            return Outcome(True, notes=notes)
    return Job("check/cxx-wrappers-oshCC-oshcxx", run)


def exports_job(build: Path) -> Job:
    def run() -> Outcome:
        cmd = [sys.executable, str(SRC_DIR / "tests" / "check_exports.py"), str(build)]
        status, output = run_quiet(cmd)
        lines = output.strip().splitlines()
        if status != 0:
            return Outcome(False, lines[-1] if lines else "check_exports.py failed", stderr=output)
        return Outcome(True, notes=[l for l in lines if l.startswith(("exports:", "generics:"))])
    return Job("check/exports", run)


def fortran_exports_job(build: Path) -> Job:
    """Every name of fortran-names.txt, in every promised spelling (tests/check_fortran_exports.py)."""
    def run() -> Outcome:
        cmd = [sys.executable, str(SRC_DIR / "tests" / "check_fortran_exports.py"), str(build)]
        status, output = run_quiet(cmd)
        lines = output.strip().splitlines()
        if status != 0:
            return Outcome(False, lines[-1] if lines else "check_fortran_exports.py failed", stderr=output)
        return Outcome(True, notes=[l for l in lines if l.startswith("fortran-exports:")])
    return Job("check/fortran-exports", run)


def generator_job() -> Job:
    """A bad spec table is refused with file, entry and reason; output is deterministic."""
    def run() -> Outcome:
        cmd = [sys.executable, str(SRC_DIR / "tests" / "check_generator.py")]
        status, output = run_quiet(cmd)
        if status != 0:
            return Outcome(False, "check_generator.py failed", stderr=output)
        return Outcome(True)
    return Job("check/generator-refuses-bad-tables", run)


def man_pages_job(build: Path) -> Job:
    """The man pages, installed into a scratch --destdir: every exported C and
    Fortran name found by man -w, groff silent, whatis/apropos after mandb
    (tests/check_man.py)."""
    def run() -> Outcome:
        cmd = [sys.executable, str(SRC_DIR / "tests" / "check_man.py"), str(build)]
        status, output = run_quiet(cmd, timeout=900)
        lines = output.strip().splitlines()
        if status != 0:
            return Outcome(False, lines[-1] if lines else "check_man.py failed", stderr=output)
        return Outcome(True, notes=[l for l in lines if l.startswith("man:")])
    return Job("check/man-pages", run)


def check_jobs(build: Path) -> list[Job]:
    cc = (os.environ.get("CC") or "cc").split()
    cxx = (os.environ.get("CXX") or "g++").split()
    inc = ["-I", str(build / "include"), "-I", str(SRC_DIR / "include")]
    strict = ["-pedantic-errors", "-Wall", "-Wextra", "-Werror"]
    lib = build / "src" / "libshmem.so"
    jobs = [
        compile_job("check/headers-c11", cc, ["-std=c11", *strict, *inc], C11_SOURCE, ".c"),
        compile_job("check/headers-c11-no-inline", cc, ["-std=c11", *strict, "-DSHMEM_NO_INLINE", *inc],
                    C11_SOURCE, ".c"),
        compile_job("check/headers-c99", cc, ["-std=c99", *strict, *inc], C99_SOURCE, ".c"),
        compile_job("check/headers-c++17", cxx, ["-std=c++17", "-Wall", "-Wextra", "-Werror", *inc],
                    CXX_SOURCE, ".cpp",
                    link=[str(lib), f"-Wl,-rpath,{lib.parent}"], run_it=True),
        compile_job("check/generics-c++11", cxx, ["-std=c++11", *strict, *inc],
                    CXX_GENERICS_SOURCE, ".cpp",
                    link=[str(lib), f"-Wl,-rpath,{lib.parent}"], run_it=True),
        compile_job("check/generics-c++17-no-inline", cxx,
                    ["-std=c++17", *strict, "-DSHMEM_NO_INLINE", *inc], CXX_GENERICS_SOURCE, ".cpp",
                    link=[str(lib), f"-Wl,-rpath,{lib.parent}"], run_it=True),
        negative_compile_job("check/c++-generic-put-rejects-struct", cxx,
                             ["-std=c++11", "-Wall", "-Wextra", *inc],
                             NEGATIVE_PUT_SOURCE, "shmem_put", suffix=".cpp", one_error=True),
        negative_compile_job("check/c++-generic-atomic-add-rejects-double", cxx,
                             ["-std=c++17", "-Wall", "-Wextra", *inc],
                             NEGATIVE_ADD_SOURCE, "shmem_atomic_add", suffix=".cpp", one_error=True),
        cxx_wrappers_job(build),
        negative_compile_job("check/generic-put-rejects-struct", cc,
                             ["-std=c11", "-pedantic-errors", "-Wall", "-Wextra", *inc],
                             NEGATIVE_PUT_SOURCE, "shmem_put"),
        negative_compile_job("check/generic-atomic-add-rejects-double", cc,
                             ["-std=c11", "-pedantic-errors", "-Wall", "-Wextra", *inc],
                             NEGATIVE_ADD_SOURCE, "shmem_atomic_add"),
        exports_job(build),
        generator_job(),
        man_pages_job(build),
    ]
    if (build / "include" / "shmem.fh").is_file() and shutil.which("gfortran"):
        # The three functions shmem.fh declares, as Sandia OpenSHMEM's and
        # Open MPI's do, are unused variables to -Wall in a program that
        # does not call them, as with those libraries.
        jobs.append(compile_job("check/fortran-header", ["gfortran"],
                                ["-Wall", "-Wno-unused-variable", "-Werror", "-I", str(build / "include")],
                                FORTRAN_SOURCE, ".f90"))
        finc = ["-fimplicit-none", "-fcray-pointer", "-Wall", "-Werror",
                "-I", str(build / "include")]
        jobs.append(compile_job("check/fortran-header-fixed-form", ["gfortran"],
                                ["-ffixed-form", "-ffixed-line-length-72", *finc], FORTRAN_FIXED_SOURCE, ".f"))
        jobs.append(compile_job("check/fortran-header-free-form", ["gfortran"],
                                ["-ffree-form", *finc], FORTRAN_FREE_SOURCE, ".f90",
                                link=[str(lib), f"-Wl,-rpath,{lib.parent}"]))
        if (build / "include" / "shmem.mod").is_file():
            jobs.append(negative_compile_job("check/fortran-module-checks-arguments", ["gfortran"],
                                             ["-I", str(build / "include")],
                                             FORTRAN_MODULE_MISMATCH_SOURCE, "value", suffix=".f90"))
        jobs.append(fortran_exports_job(build))
    return jobs


# ---- main -----------------------------------------------------------------

def widest_only(jobs: list[Job]) -> list[Job]:
    """Of the jobs whose labels differ only in "np=N", the one with the
    largest N: a path stage checks what a path changes, which more PEs
    exercise no less than fewer (the node-local stage runs every count)."""
    def key(label: str) -> tuple[str, int]:
        m = re.search(r" np=(\d+)", label)
        return (label[:m.start()] + label[m.end():], int(m.group(1))) if m else (label, 0)
    most: dict[str, int] = {}
    for j in jobs:
        rest, n = key(j.label)
        most[rest] = max(most.get(rest, n), n)
    return [j for j in jobs if key(j.label)[1] == most[key(j.label)[0]]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir", type=Path, help="a meson build directory")
    ap.add_argument("--filter", metavar="REGEX", help="run only tests whose label matches "
                    "(labels: 'rma_put np=2', 'manual/NAME np=3', 'check/exports')")
    ap.add_argument("--jobs", type=int, default=1, help="tests run at once (default 1)")
    ap.add_argument("--only", metavar="SECTIONS", default="generated,manual,checks",
                    help="comma-separated subset of generated,manual,checks")
    ap.add_argument("--timeout-scale", type=float, default=1.0,
                    help="multiply every launch timeout (slow machines)")
    ap.add_argument("--manual-manifest", type=Path,
                    default=SRC_DIR / "tests" / "manual" / "manifest.toml",
                    help="the manual tests' manifest (default: the source tree's)")
    ap.add_argument("--env", metavar="KEY=VALUE", action="append", default=[],
                    help="set a variable for every launch (repeatable)")
    ap.add_argument("--label-suffix", default="", metavar="TEXT",
                    help="appended to every label, e.g. ' [ofi-tcp]'")
    ap.add_argument("--widest", action="store_true",
                    help="of a test selected at several PE counts, run only the one at the most PEs")
    ap.add_argument("--list", action="store_true", help="print the test labels and exit")
    ap.add_argument("--list-programs", action="store_true",
                    help="print the programs the selected launches run, as meson targets "
                         "(paths in the build directory), and exit")
    opts = ap.parse_args()

    build = opts.build_dir.resolve()
    if not build.is_dir():
        print(f"run_tests.py: {opts.build_dir} is not a directory", file=sys.stderr)
        return 2
    sections = {s.strip() for s in opts.only.split(",") if s.strip()}
    bad = sections - {"generated", "manual", "checks"}
    if bad:
        print(f"run_tests.py: unknown section(s): {', '.join(sorted(bad))}", file=sys.stderr)
        return 2
    select = re.compile(opts.filter) if opts.filter else None

    preexisting = shm_entries()
    if preexisting:
        note(f"/dev/shm already holds {len(preexisting)} shoal-* entries before the run "
             f"(left alone, not counted): {' '.join(sorted(preexisting))}")
    shm = ShmWatch(shm_all_names())
    oshrun = build / "src" / "tools" / "oshrun"
    if "generated" in sections or "manual" in sections:
        if not oshrun.is_file():
            note(f"{oshrun} not found: every launch will fail")

    try:
        launches = []
        if "generated" in sections:
            launches += load_generated(build)
            if (build / "tests" / "fortran" / "manifest.json").is_file():
                launches += load_generated(build, "fortran")   # the Fortran binding's tests
        if "manual" in sections:
            launches += load_manual(build, opts.manual_manifest)
    except (ValueError, json.JSONDecodeError, tomllib.TOMLDecodeError) as e:
        print(f"run_tests.py: bad manifest: {e}", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1

    jobs = check_jobs(build) if "checks" in sections else []
    env_all = {}
    for item in opts.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            print(f"run_tests.py: --env wants KEY=VALUE, not {item!r}", file=sys.stderr)
            return 2
        env_all[key] = value
    jobs += [launch_job(t, oshrun, shm, opts.timeout_scale, env_all) for t in launches]
    # A name listed twice (say with different env) gets "#2", "#3" ... so that
    # every line of the report points at one run.
    seen: dict[str, int] = {}
    for j in jobs:
        seen[j.label] = seen.get(j.label, 0) + 1
        if seen[j.label] > 1:
            j.label += f" #{seen[j.label]}"
    if opts.label_suffix:
        for j in jobs:
            j.label += opts.label_suffix
    if select:
        jobs = [j for j in jobs if select.search(j.label)]
    if opts.widest:
        jobs = widest_only(jobs)
    if opts.list:
        for j in jobs:
            print(j.label)
        return 0
    if opts.list_programs:
        for program in sorted({j.program.relative_to(build) for j in jobs if j.program}):
            print(program)
        return 0

    reporter = Reporter()

    def execute(job: Job) -> None:
        start = time.monotonic()
        syn_before = tcp_syn_counters()
        try:
            outcome = job.run()
        except Exception as e:  # a runner bug must not hide the other results
            outcome = Outcome(False, f"runner error: {type(e).__name__}: {e}")
        seconds = time.monotonic() - start
        syn, paws = (after - before for after, before in zip(tcp_syn_counters(), syn_before))
        if syn > 0 and (not outcome.ok or seconds > SLOW_LAUNCH_S):
            outcome.notes.append(f"this host's TCP SYN retransmissions while it ran: {syn} (a lost connection "
                                 f"request is retried after 1, 2, 4, 8, 16 s: 31 s for five); SYNs refused by a "
                                 f"TIME_WAIT socket (PAWSTimewait): {paws}")
        reporter.report(job.label, outcome, seconds)

    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs))
    try:
        if opts.jobs <= 1:
            for job in jobs:
                execute(job)
        else:
            for f in [pool.submit(execute, j) for j in jobs]:
                f.result()
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        kill_everything_active()
        print("interrupted", file=sys.stderr)
        return 130
    pool.shutdown()

    # The whole run must leave /dev/shm as it found it.  Every process of ours
    # is gone by now, so a segment someone still holds is not ours.
    start = time.monotonic()
    left = shm.leftovers(set())
    reporter.report("check/no-leftover-shm",
                    Outcome(not left, "left in /dev/shm after the run (removed): "
                            + " ".join(sorted(left))),
                    time.monotonic() - start)

    if reporter.failed:
        print("\nfailed:")
        for label in reporter.failed:
            print(f"  {label}")
    if reporter.skipped:
        print(f"{reporter.skipped} skipped (SKIP lines above say why)")
    print(f"{reporter.passed} passed, {len(reporter.failed)} failed")
    return 1 if reporter.failed else 0


if __name__ == "__main__":
    sys.exit(main())
