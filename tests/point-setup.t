#!/bin/bash
# SPDX-License-Identifier: MIT
#
# A load point whose own setup fails (the event loop's epoll or timer, the run's
# arrays: harness/point/point.c pt_run) is a named failure of that point, no agent
# started. The real path: an open-file limit just too small for the point's
# event loop. Before, pt_run drew a verdict over arrays it never allocated and
# rdmacap died of SIGSEGV. Loop topology over tcp: no namespace is made; run it
# under /tmp/rdmacap-host.lock like the other host tests. Prints TAP; RDMACAP
# overrides the binary.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

tap_init
tap_plan 2
# Below some limit rdmacap stops before the point (its libraries, its run id),
# above it the point runs: the first limit that reaches the point's setup is
# the one that fails it. A hang (124) or a crash (128 + signal) ends the search.
lim='' rc=''
for k in 4 5 6 7 8 9 10; do
	(ulimit -n "$k" && exec timeout 60 "$RDMACAP" run --topology loop --transport tcp \
		--clients 1 --msgs 1 --json "$T/p.json") >"$T/out" 2>"$T/err"
	rc=$?
	if grep -q "why=setup (" "$T/out" || [ "$rc" = 124 ] || [ "$rc" -ge 128 ]; then
		lim=$k
		break
	fi
done
tap_kv nofile "${lim:-none}"
tap_kv exit "$rc"
if [ -n "$lim" ] && [ "$rc" = 1 ] &&
   grep -qE '^  not ok 1 .*: setup \(event loop, timer, run state\): Too many open files$' "$T/out" &&
   grep -q '^not ok 1 run clients=1 ' "$T/out"; then
	tap_ok "a point whose setup fails is not ok, named (setup: EMFILE), rdmacap exits 1"
else
	sed "s/^/# /" "$T/out" | tail -n 20
	sed 's/^/# stderr: /' "$T/err" | tail -n 5
	tap_fail "a point whose setup fails is not ok, named (setup: EMFILE), rdmacap exits 1"
fi
if [ -n "$lim" ] && [ "$(jq -r '.points[0].why // empty' "$T/p.json" 2>/dev/null)" = \
	"setup (event loop, timer, run state): Too many open files" ]; then
	tap_ok "--json is written, with the point's why"
else
	tap_diag "json: $(head -c 300 "$T/p.json" 2>/dev/null)"
	tap_fail "--json is written, with the point's why"
fi
tap_finished
