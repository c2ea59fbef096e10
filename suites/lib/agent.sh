# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# agent.sh: rdmacap-agent processes driven over their pipes as the
# orchestrator drives them (common/proto.h): a FIFO on stdin we keep open, the
# records on stdout in a file. Source after common.sh; files live in W.
#
#   ap_start NAME NS ARGS...   RDMACAP_AGENT ARGS in namespace NS, under the
#                              command in AP_WRAP (setpriv, prlimit) if set;
#                              reads W/NAME.in, writes W/NAME.out and .err
#   ap_send NAME LINE          one command line to it (go, run, stop)
#   ap_wait NAME ERE SECS      until a record of NAME matches ERE; fails at
#                              the deadline, or at once when the agent died
#   ap_count NAME ERE          how many of its records match
#   ap_stop NAME               "stop", its "bye" within 60 s, its exit within
#                              10 s (else KILL); 0 if it ended cleanly
#   ap_diag NAME               the last lines of its records and stderr as
#                              TAP diagnostics
#   ap_kill_all                TERM, 5 s, KILL: every agent still started here

declare -gA AP_FD=() AP_PID=()
AP_WRAP=()

ap_start() {
	local name=$1 ns=$2 fd
	shift 2

	rm -f "$W/$name.in" "$W/$name.out" "$W/$name.err"
	mkfifo "$W/$name.in"
	exec {fd}<>"$W/$name.in"
	AP_FD[$name]=$fd
	ip netns exec "$ns" "${AP_WRAP[@]}" "$RDMACAP_AGENT" "$@" <"$W/$name.in" >"$W/$name.out" \
		2>"$W/$name.err" {fd}>&- 3>&- &
	AP_PID[$name]=$!
}

ap_send() {
	echo "$2" >&"${AP_FD[$1]}"
}

# Polls at 0.2 s (rdc_wait_for's rule) and checks the agent is alive each time.
ap_wait() {
	local name=$1 re=$2 n=$(($3 * 5))

	while [ $n -gt 0 ]; do
		grep -Eq -- "$re" "$W/$name.out" 2>/dev/null && return 0
		kill -0 "${AP_PID[$name]}" 2>/dev/null || {
			grep -Eq -- "$re" "$W/$name.out" 2>/dev/null
			return
		}
		sleep 0.2
		n=$((n - 1))
	done
	return 1
}

ap_count() {
	grep -Ec -- "$2" "$W/$1.out" 2>/dev/null
}

ap_stop() {
	local name=$1 pid=${AP_PID[$1]} fd=${AP_FD[$1]} rc=0

	ap_send "$name" stop 2>/dev/null
	ap_wait "$name" '^bye$' 60 || rc=1
	exec {fd}>&-
	if ! rdc_wait_gone "$pid" 10; then
		kill -KILL "$pid" 2>/dev/null
		rc=1
	fi
	wait "$pid" || rc=1
	unset "AP_PID[$name]" "AP_FD[$name]"
	return $rc
}

ap_diag() {
	local f

	for f in "$W/$1.out" "$W/$1.err"; do
		[ -s "$f" ] && tail -n 5 "$f" | cut -c1-200 | sed 's/^/# /'
	done
	return 0
}

ap_kill_all() {
	local name pid

	for name in "${!AP_PID[@]}"; do
		pid=${AP_PID[$name]}
		kill -TERM "$pid" 2>/dev/null && rdc_wait_gone "$pid" 5
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	AP_PID=() AP_FD=()
}
