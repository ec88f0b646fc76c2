#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tests/kill/run.py — a killed job leaves nothing running (issue 44).

    python3 tests/kill/run.py BUILD_DIR [--filter REGEX] [--jobs N]
                              [--timeout-scale X] [--paths node-local,tcp]

Two 3-PE programs, built here against BUILD_DIR's library: hang.c (PE 0 in
shmem_long_wait_until on a flag nobody sets, the others in
shmem_barrier_all) and compute.c (every PE computing without calling the
library). Each is started with BUILD_DIR's oshrun, node-local and on tcp
(SHMEM_TRANSPORT=ofi FI_PROVIDER=tcp FI_TCP_IFACE=lo), and killed, once every
PE has said it waits or computes, in each of these ways:

  timeout     timeout -k 5 6 oshrun ...: status 124 (the 6 s times
              --timeout-scale, when more than 1)
  INT/TERM/HUP alone   the signal to oshrun alone: oshrun dies of it
  INT/TERM/HUP group   the signal to oshrun's process group (Ctrl-C, a
                       batch system): oshrun dies of it
  KILL oshrun          SIGKILL to oshrun alone
  KILL launcher        SIGKILL to the mpirun under oshrun (a launcher that
                       dies): status 137, and each PE prints
                       "shoal: PE n: the launcher is gone (mpirun, pid N): ending"
                       (its stderr is a file here: mpirun's pipe died with it)

Each case passes only if, 5 s after the kill at the latest, no process of
the job runs (found by the program's path, so a PE reparented to init
counts, and by a tag in the environment, for oshrun and the launcher) and
nothing of it is left in /dev/shm. Then, for a singleton (the program
started alone, one PE) killed by SIGTERM, SIGINT and SIGHUP: it dies of that
signal after its cleanup, and prints nothing. Last, a singleton on
libfabric's shm killed by SIGKILL, which nothing can clean up after: its
endpoint files stay, and the next PE to start on shm removes them, but not
a file of a dead pid that a process still holds locked (its owner alive in
another pid namespace).

The last line is "N passed, M failed"; the exit status is 1 if any failed.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import fcntl
import itertools
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent.parent
SHM = Path("/dev/shm")
TIMEOUT_S = 6          # timeout -k 5 6 oshrun ...
KILL_AFTER_S = 5       # timeout's -k
GONE_WITHIN_S = 5.0    # nothing of the job runs this long after the kill
PATHS = {
    "node-local": {},
    "tcp": {"SHMEM_TRANSPORT": "ofi", "FI_PROVIDER": "tcp", "FI_TCP_IFACE": "lo"},
}
SIGNALS = {"INT": signal.SIGINT, "TERM": signal.SIGTERM, "HUP": signal.SIGHUP}
FI_SHM_NAME = re.compile(r"(\d+):\d+:\d+")


@dataclass
class Case:
    path: str
    prog: str
    way: str               # "timeout", "INT alone", "TERM group", "KILL oshrun", "KILL launcher", "singleton TERM"

    @property
    def label(self) -> str:
        return f"kill/{self.prog} {self.way} [{self.path}]"


def processes(exe: Path, tag: str) -> dict[int, str]:
    """Live processes (zombies excluded) running exe or carrying the tag."""
    found = {}
    needle = b"\0KILL_TEST_TAG=" + tag.encode() + b"\0"
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            if stat.rsplit(")", 1)[1].split()[0] in "ZX":
                continue
            mine = os.readlink(f"/proc/{pid}/exe") == str(exe)
            if not mine:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    mine = needle in b"\0" + f.read()
        except OSError:
            continue
        if mine:
            found[pid] = stat[stat.index("(") + 1:stat.rindex(")")]
    return found


def kill_job(exe: Path, tag: str) -> None:
    """SIGKILL whatever of the job still runs."""
    for pid in processes(exe, tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def shm_in_use() -> set[str]:
    used = set()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/maps") as f:
                used.update(re.findall(r"/dev/shm/(\S+)", f.read()))
            for fd in os.scandir(f"/proc/{entry.name}/fd"):
                target = os.readlink(fd.path)
                if target.startswith("/dev/shm/"):
                    used.add(target[len("/dev/shm/"):].split(" ")[0])
        except OSError:
            continue
    return used


def shm_left(pids: set[int], records: Path) -> set[str]:
    """What the job left in /dev/shm: every name its PEs recorded for oshrun
    (base/cleanup.c: a record lives as long as its name, unless a PE was
    SIGKILLed or ended as it should not) that is still there, and libfabric
    regions named after one of the job's processes. Only names the job made:
    other jobs on the machine come and go in /dev/shm meanwhile."""
    now = set(os.listdir(SHM))
    left = {n for n in now if (m := FI_SHM_NAME.fullmatch(n)) and int(m.group(1)) in pids}
    for record in records.glob("shoal-cleanup.*/*"):
        if record.name in now:
            left.add(record.name)
    return left - shm_in_use()


def children(pid: int) -> list[tuple[int, str]]:
    out = []
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            kids = [int(p) for p in f.read().split()]
    except OSError:
        return out
    for kid in kids:
        try:
            with open(f"/proc/{kid}/comm") as f:
                out.append((kid, f.read().strip()))
        except OSError:
            pass
    return out


def launcher_of(oshrun: int) -> int | None:
    """The launcher oshrun started (not its sentinel: env, then cat)."""
    for pid, comm in children(oshrun):
        if comm not in ("bash", "cat", "env", "setpriv"):
            return pid
    return None


def wait_lines(path: Path, word: str, n: int, proc: subprocess.Popen, limit: float) -> bool:
    """Until the program has printed n lines "PE i <word>"."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            if len(re.findall(rf"^PE \d+ {word}$", path.read_text(errors="replace"), re.M)) >= n:
                return True
        except OSError:
            pass
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    return False


_tags = itertools.count(1)


def run_case(c: Case, build: Path, work: Path, scale: float) -> tuple[bool, str]:
    word = "waiting" if c.prog == "hang" else "computing"
    limit = TIMEOUT_S * max(1.0, scale)  # timeout's limit: the job should be up by then
    tag = f"{os.getpid()}-{next(_tags)}"
    env = dict(os.environ)
    env.update(PATHS[c.path])
    env["KILL_TEST_TAG"] = tag
    case_dir = Path(tempfile.mkdtemp(prefix="case-", dir=work))
    # A copy of its own: cases run side by side, and leftovers are found by path.
    exe = case_dir / c.prog
    shutil.copy2(work / c.prog, exe)
    env["TMPDIR"] = str(case_dir)          # mpirun's session files, oshrun's records
    out, err = case_dir / "out", case_dir / "err"
    pe_err = case_dir / "pe-err"
    oshrun = [str(build / "src/tools/oshrun"), "-n", "3"]
    singleton = c.way.startswith("singleton")
    if singleton:
        cmd = [str(exe)]
        env.pop("IPATH_NO_BACKTRACE", None)  # as a user's shell has it: libinfinipath's handlers in place
    elif c.way == "timeout":
        cmd = ["timeout", "-k", str(KILL_AFTER_S), f"{limit:g}", *oshrun, str(exe)]
    elif c.way == "KILL launcher":
        # The PEs' stderr is a file: mpirun's pipes die with it.
        cmd = [*oshrun, "sh", "-c", 'exec "$0" 2>>"$1"', str(exe), str(pe_err)]
    else:
        cmd = [*oshrun, str(exe)]
    seen: set[int] = set()
    t_start = time.monotonic()
    with open(out, "wb") as o, open(err, "wb") as e:
        # The signals sent here take their default action in the job, as in
        # a user's terminal: a harness started by nohup, or in the background
        # of a script, ignores HUP or INT, an ignored signal stays ignored
        # across exec (bash cannot even trap it), and every INT and HUP case
        # would fail by waiting out its limit. env execs: no extra process.
        proc = subprocess.Popen(["env", "--default-signal=" + ",".join(SIGNALS), *cmd], stdin=subprocess.DEVNULL,
                                stdout=o, stderr=e, env=env, start_new_session=True)
    problems = []
    note = ""
    try:
        npes = 1 if singleton else 3
        if c.way == "timeout":
            ready = wait_lines(out, word, npes, proc, limit)
            seen |= processes(exe, tag).keys()
            kill_at = t_start + limit   # timeout's SIGTERM
            try:
                proc.wait(timeout=limit + KILL_AFTER_S + 10)
            except subprocess.TimeoutExpired:
                problems.append("timeout itself did not return")
            ended_s = time.monotonic() - kill_at
            if proc.returncode != 124:
                problems.append(f"status {proc.returncode}, expected 124")
            if not ready:   # still a kill that must leave nothing, but say so
                note = f" (killed before every PE was {word}: a slow start)"
        else:
            if not wait_lines(out, word, npes, proc, 60 * scale):
                return False, f"did not start: {err.read_text(errors='replace')[-500:]}"
            seen |= processes(exe, tag).keys()
            target = proc.pid
            if c.way == "KILL launcher":
                target = launcher_of(proc.pid)
                if target is None:
                    return False, "no launcher under oshrun"
            kill_at = time.monotonic()
            if c.way.endswith(" group"):
                os.killpg(proc.pid, SIGNALS[c.way.split()[0]])
            elif c.way.startswith("KILL"):
                os.kill(target, signal.SIGKILL)
            else:
                os.kill(target, SIGNALS[c.way.split()[-1] if singleton else c.way.split()[0]])
            try:
                proc.wait(timeout=GONE_WITHIN_S * scale + 10)
            except subprocess.TimeoutExpired:
                problems.append(f"oshrun still running {GONE_WITHIN_S * scale + 10:g} s after the kill")
            ended_s = time.monotonic() - kill_at
            sig = c.way.split()[-1] if singleton else c.way.split()[0]
            expect = {"KILL oshrun": -9, "KILL launcher": 137}.get(c.way, -SIGNALS.get(sig, 0))
            if proc.returncode != expect:
                problems.append(f"status {proc.returncode}, expected {expect}")
        # Nothing of the job runs GONE_WITHIN_S after the kill.
        left: dict[int, str] = {}
        while True:
            left = processes(exe, tag)
            seen |= left.keys()
            if not left or time.monotonic() - kill_at > GONE_WITHIN_S * scale:
                break
            time.sleep(0.05)
        if left:
            problems.append(f"{len(left)} process(es) still running {GONE_WITHIN_S * scale:g} s after the kill: "
                            + ", ".join(f"{p} ({n})" for p, n in sorted(left.items())))
        gone_s = time.monotonic() - kill_at
        shm = shm_left(seen, case_dir)
        if shm:
            problems.append("left in /dev/shm (removed): " + " ".join(sorted(shm)))
            for name in shm:
                try:
                    (SHM / name).unlink()
                except OSError:
                    pass
        stderr = err.read_text(errors="replace")
        if singleton and stderr.strip():
            problems.append(f"a singleton killed by a signal printed: {stderr.strip()[:300]}")
        if c.way == "KILL launcher":
            lines = pe_err.read_text(errors="replace") if pe_err.exists() else ""
            for pe in range(3):
                if not re.search(rf"^shoal: PE {pe}: the launcher is gone \(mpirun, pid {target}\): ending$",
                                 lines, re.M):
                    problems.append(f"PE {pe} did not say the launcher is gone; its stderr: {lines.strip()[:300]!r}")
        if problems and stderr.strip():
            problems.append("stderr: " + stderr.strip()[-400:])
        return not problems, "; ".join(problems) or f"{'oshrun' if not singleton else 'the PE'} ended {ended_s:.1f} s, all gone {gone_s:.1f} s after the kill{note}"
    finally:
        kill_job(exe, tag)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        shutil.rmtree(case_dir, ignore_errors=True)


SWEEP_ENV = {"SHMEM_TRANSPORT": "ofi", "FI_PROVIDER": "shm", "SHMEM_OFI_PROVIDER": "shm"}
STALE_AFTER_S = 2   # src/transport/ofi_ep.c: younger files are never swept


def start_singleton(exe: Path, case_dir: Path, name: str, tag: str, scale: float) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, **SWEEP_ENV, KILL_TEST_TAG=tag)
    out = case_dir / f"{name}.out"
    with open(out, "wb") as o:
        proc = subprocess.Popen(["env", "--default-signal=" + ",".join(SIGNALS), str(exe)], stdin=subprocess.DEVNULL,
                                stdout=o, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    if not wait_lines(out, "waiting", 1, proc, 60 * scale):
        return proc, f"{name} did not start: {out.read_text(errors='replace')[-500:]}"
    return proc, ""


def run_sweep_case(build: Path, work: Path, scale: float) -> tuple[bool, str]:
    """A singleton on shm SIGKILLed leaves its endpoint files; the next start sweeps them."""
    tag = f"{os.getpid()}-{next(_tags)}"
    case_dir = Path(tempfile.mkdtemp(prefix="case-", dir=work))
    exe = case_dir / "hang"
    shutil.copy2(work / "hang", exe)
    procs: list[subprocess.Popen] = []
    held_fd = -1
    held = loose = None
    try:
        first, problem = start_singleton(exe, case_dir, "first", tag, scale)
        procs.append(first)
        if problem:
            return False, problem
        mine = re.compile(rf"shoal-{first.pid}-[0-9a-f]{{16}}-\d+")
        files = {n for n in os.listdir(SHM) if mine.fullmatch(n)}
        if not files:
            return False, f"the first PE (pid {first.pid}) has no endpoint file in /dev/shm: nothing to sweep"
        # Two files named for a process that is gone: one still locked, as
        # its owner in another pid namespace would hold it, one not.
        gone = subprocess.Popen(["true"])
        gone.wait()
        held, loose = (SHM / f"shoal-{gone.pid}-{k:016x}-0" for k in (0xfeed, 0xbeef))
        loose.write_bytes(b"x")
        held_fd = os.open(held, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(held_fd, fcntl.LOCK_SH)
        first.kill()
        first.wait()
        left = {n for n in os.listdir(SHM) if mine.fullmatch(n)}
        if left != files:
            return False, f"after SIGKILL {sorted(left)} of {sorted(files)} are still there: nothing to sweep"
        time.sleep(STALE_AFTER_S + 0.5)
        second, problem = start_singleton(exe, case_dir, "second", tag, scale)
        procs.append(second)
        if problem:
            return False, problem
        stale = files & set(os.listdir(SHM))
        held_kept, loose_kept = held.exists(), loose.exists()
        os.close(held_fd)
        held_fd = -1
        theirs = {n for n in os.listdir(SHM) if re.fullmatch(rf"shoal-{second.pid}-[0-9a-f]{{16}}-\d+", n)}
        second.terminate()
        second.wait(timeout=10 * scale)
        problems = []
        if stale:
            problems.append("the next start left the killed PE's files: " + " ".join(sorted(stale)))
        if not theirs:
            problems.append("the second PE had no endpoint file of its own")
        if not held_kept:
            problems.append(f"the next start removed {held.name}, which a live process held locked")
        if loose_kept:
            problems.append(f"the next start left {loose.name} (a dead pid's, unlocked)")
        if second.returncode != -signal.SIGTERM:
            problems.append(f"the second PE's status {second.returncode}, expected {-signal.SIGTERM}")
        mine2 = {n for n in os.listdir(SHM) if re.fullmatch(rf"shoal-{second.pid}-[0-9a-f]{{16}}-\d+", n)}
        if mine2:
            problems.append("the second PE, ended by SIGTERM, left " + " ".join(sorted(mine2)))
        for name in stale | mine2:
            try:
                (SHM / name).unlink()
            except OSError:
                pass
        return not problems, "; ".join(problems) or \
            f"{len(files)} file(s) of the SIGKILLed PE removed by the next one to start"
    finally:
        kill_job(exe, tag)
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
            p.wait()
        if held_fd >= 0:
            os.close(held_fd)
        for f in (held, loose):
            if f is not None:
                f.unlink(missing_ok=True)
        shutil.rmtree(case_dir, ignore_errors=True)


def build_programs(build: Path, work: Path) -> str | None:
    cc = os.environ.get("CC", "cc")
    for prog in ("hang", "compute"):
        r = subprocess.run([cc, "-std=c11", "-O1", "-I", str(build / "include"), "-I", str(SRC / "include"),
                            "-o", str(work / prog), str(SRC / "tests/kill" / f"{prog}.c"),
                            str(build / "src/libshmem.so"), f"-Wl,-rpath,{build / 'src'}"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return f"{prog}.c does not compile: {r.stderr.strip()}"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build", type=Path)
    ap.add_argument("--filter", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout-scale", type=float, default=1.0)
    ap.add_argument("--paths", default=",".join(PATHS))
    a = ap.parse_args()
    build = a.build.resolve()
    cases = []
    ways = ["timeout", *(f"{s} {to}" for to in ("alone", "group") for s in SIGNALS), "KILL oshrun", "KILL launcher"]
    for path in a.paths.split(","):
        for prog in ("hang", "compute"):
            cases += [Case(path, prog, w) for w in ways]
    cases += [Case("node-local", "hang", f"singleton {s}") for s in SIGNALS]
    cases = [c for c in cases if re.search(a.filter, c.label)]
    passed = failed = 0
    lock = threading.Lock()
    with tempfile.TemporaryDirectory(prefix="shoal-kill-") as tmp:
        work = Path(tmp)
        problem = build_programs(build, work)
        if problem:
            print(f"FAIL kill/build: {problem}")
            print("0 passed, 1 failed")
            return 1

        def one(c: Case) -> None:
            nonlocal passed, failed
            t0 = time.monotonic()
            ok, why = run_case(c, build, work, a.timeout_scale)
            with lock:
                print(f"{'PASS' if ok else 'FAIL'} {c.label} ({time.monotonic() - t0:.1f} s): {why}", flush=True)
                if ok:
                    passed += 1
                else:
                    failed += 1

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            list(pool.map(one, cases))
        label = "kill/hang singleton KILL, the next start sweeps [ofi-shm]"
        if re.search(a.filter, label):
            t0 = time.monotonic()
            ok, why = run_sweep_case(build, work, a.timeout_scale)
            print(f"{'PASS' if ok else 'FAIL'} {label} ({time.monotonic() - t0:.1f} s): {why}", flush=True)
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
