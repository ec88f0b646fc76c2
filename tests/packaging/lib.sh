# SPDX-License-Identifier: BSD-3-Clause
# Sourced by deb.sh and dist.sh: PASS/FAIL lines and the closing
# "N passed, M failed" that .ci/run's run_counted adds up.

passed=0
failed=0
stage_t0=$SECONDS

# check LABEL COMMAND...: runs COMMAND, its output in $last_log (under
# $work), shown on failure. Returns COMMAND's status.
check() {
    local label=$1 log t0=$SECONDS status=0
    shift
    log="$work/$(printf '%s' "$label" | tr -c 'A-Za-z0-9._-' _).log"
    last_log=$log
    "$@" >"$log" 2>&1 || status=$?
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "PASS $label ($((SECONDS - t0)) s)"
    else
        failed=$((failed + 1))
        echo "FAIL $label ($((SECONDS - t0)) s, status $status):"
        tail -n 30 "$log" | sed 's/^/    /'
    fi
    return "$status"
}

# The last line .ci/run reads; the exit status says whether all passed.
summary() {
    echo "$(basename "$0"): $((SECONDS - stage_t0)) s"
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
}

# Runs as root, or through sudo (as .ci/install-deps does).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The version meson.build declares: the one place it is written.
meson_version() {
    sed -n "s/^ *version : '\([^']*\)',.*/\1/p" "$1/meson.build" | head -n 1
}

# spdx_missing GLOB...: the files the globs match whose
# first three lines lack the SPDX identifier, .so man page links aside;
# fails if there are any.
spdx_missing() {
    python3 - "$@" <<'PY'
import glob, sys
bad = []
for pattern in sys.argv[1:]:
    for f in sorted(glob.glob(pattern)):
        try:
            with open(f, errors="replace") as fh:
                head = fh.read(4096)
        except IsADirectoryError:
            continue
        if not head.startswith(".so ") and "SPDX-License-Identifier: BSD-3-Clause" not in "\n".join(head.split("\n")[:3]):
            bad.append(f)
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}
