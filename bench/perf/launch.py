# SPDX-License-Identifier: BSD-3-Clause
"""Launching processes: every command runs in its own session under a
timeout that ends its whole process tree, and what a finished launch left
in /dev/shm is removed, so a crashed PE cannot fail the next launch."""

import os
import signal
import subprocess
import sys
import time


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def descendants(root):
    """Every live process below `root` (read from /proc), deepest last."""
    children = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(d))
    out, pending = [], [root]
    while pending:
        p = pending.pop()
        for c in children.get(p, []):
            out.append(c)
            pending.append(c)
    return out


def kill_tree(proc):
    """End a launch we started: its process group, then any descendant that
    left the group (launchers may start PEs in their own sessions)."""
    tree = descendants(proc.pid)
    for sig, pause in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 0.0)):
        try:
            os.killpg(proc.pid, sig)
        except OSError:
            pass
        for pid in tree:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        if pause:
            try:
                proc.wait(timeout=pause)
            except subprocess.TimeoutExpired:
                pass


def run(cmd, timeout, env=None, cwd=None):
    """Run `cmd` in its own session; returns (status, stdout, stderr, seconds)
    with status 'ok', 'failed (rc=N)' or 'timeout'."""
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True, env=env, cwd=cwd)
    except OSError as e:
        return f"failed ({e})", "", str(e), 0.0
    try:
        out, err = proc.communicate(timeout=timeout)
        status = "ok" if proc.returncode == 0 else f"failed (rc={proc.returncode})"
    except subprocess.TimeoutExpired:
        kill_tree(proc)
        out, err = proc.communicate()
        status = "timeout"
    return status, out, err, time.monotonic() - t0


def shm_names():
    """/dev/shm names owned by this user (another user's segments on a
    shared machine are never this run's to judge or remove)."""
    names = set()
    try:
        for name in os.listdir("/dev/shm"):
            try:
                if os.lstat(os.path.join("/dev/shm", name)).st_uid == os.getuid():
                    names.add(name)
            except OSError:
                continue
    except OSError:
        pass
    return names


def shm_in_use():
    """/dev/shm names some live process has mapped or open."""
    used = set()
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/maps") as f:
                for line in f:
                    i = line.find("/dev/shm/")
                    if i >= 0:
                        used.add(line[i + 9:].split(" (deleted)")[0].strip())
            fd_dir = f"/proc/{d}/fd"
            for fd in os.listdir(fd_dir):
                t = os.readlink(os.path.join(fd_dir, fd))
                if t.startswith("/dev/shm/"):
                    used.add(t[9:])
        except OSError:
            continue
    return used


def remove_leftovers(before):
    """Remove what a finished launch left in /dev/shm: names of this user
    that appeared during it and that no live process has mapped or open. A PE that
    crashed or was killed may leave its segments or its provider's queues
    behind, and a later launch of the same library can fail on them.
    Returns the names removed."""
    left = shm_names() - before
    if left:
        left = sorted(left - shm_in_use())
    for name in left:
        try:
            os.unlink(os.path.join("/dev/shm", name))
        except OSError:
            pass
    return left

