# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tests/lib.sh: the start every host test (tests/*.t) shares. Source it first
# (works under set -u and set -eu):
#
#   # shellcheck source=lib.sh
#   . "$(dirname "$0")/lib.sh"
#
#   ROOT      the repository (physical path)
#   RDMACAP   the rdmacap under test: the environment's, else build/rdmacap
#   tap_*     tap/tap.sh, the TAP writer
#   T         a folder of the test's own, /tmp/NAME.XXXXXX, removed at exit
#   tl_cleanup  when the test defines it, run at exit before T goes (what the
#             test started: kill those by their pids)
#   KEEP=1    keep T and skip tl_cleanup, to look at what a failing test left;
#             "# kept T" is the last line
#
# Only bash and coreutils; no namespace, no process of its own.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
RDMACAP=${RDMACAP:-$ROOT/build/rdmacap}
# shellcheck source=../tap/tap.sh
. "$ROOT/tap/tap.sh"

T=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0").XXXXXX") || {
	echo "$0: mktemp: cannot make a temporary folder" >&2
	exit 1
}

# The exit status stays the test's: a trap that does not call exit keeps it.
tl__exit() {
	if [ -n "${KEEP-}" ]; then
		echo "# kept $T"
		return
	fi
	if declare -F tl_cleanup >/dev/null; then
		tl_cleanup || true
	fi
	rm -rf "$T"
}
trap tl__exit EXIT
