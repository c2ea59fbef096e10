# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# wait.sh: the bounded waits of the suites. Sourced by common.sh; bash only.
#
#   rdc_wait_for SECS CMD...   CMD until it succeeds, at most SECS seconds;
#                              status 1 at the deadline
#   rdc_wait_gone PID SECS     until PID has exited, at most SECS seconds;
#                              status 1 if it still runs (nothing is killed)
#
# Both poll every 0.2 s: each poll forks, and a fork costs ~15 ms under the
# VM's TCG, so polling faster only slows the thing waited for.

rdc_wait_for() {
	local n=$(($1 * 5))

	shift
	while :; do
		"$@" && return 0
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 0.2
	done
}

rdc__alive() { kill -0 "$1" 2>/dev/null; }
rdc__gone() { ! rdc__alive "$1"; }

rdc_wait_gone() {
	rdc_wait_for "$2" rdc__gone "$1"
}
