# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# host.sh: what the host holds that a suite must find as it was: RDMA resource
# counters, rdc objects, agents. Sourced by common.sh (after tap/tap.sh);
# needs rdma, jq, ip, tc and find.
#
#   rdc_res                    every RDMA device's resource counters, a line
#                              each, sorted: "DEV pd=N cq=N qp=N cm_id=N mr=N
#                              ctx=N srq=N" (compare two of them as strings)
#   rdc_res_back BASE          one TAP result: the counters a second after the
#                              last point equal BASE, an rdc_res of before
#   rdc_agents                 the PIDs of every running rdmacap-agent, found
#                              by its executable (/proc/PID/exe), wherever it
#                              was started from and whatever its path holds
#   rdc_leftovers [PREFIX]     what a run left, a line each: "netns NAME",
#                              "link NAME", "rxe NAME" named PREFIX... (rdc by
#                              default), "agent PID" of any agent, "qdisc ..."
#                              for a netem qdisc in this namespace; nothing
#                              when the host is clean

rdc_res() {
	rdma -j resource show 2>/dev/null |
		jq -r '.[] | "\(.ifname) pd=\(.pd) cq=\(.cq) qp=\(.qp) cm_id=\(.cm_id) mr=\(.mr) ctx=\(.ctx) srq=\(.srq)"' |
		sort
}

rdc_res_back() {
	local now

	sleep 1
	now=$(rdc_res)
	if [ "$now" = "$1" ]; then
		tap_ok "RDMA counters after the suite equal those before it"
	else
		tap_fail "RDMA counters after the suite" \
			"before $(tr '\n' ';' <<<"$1") after $(tr '\n' ';' <<<"$now")"
	fi
}

# One find over /proc, not a readlink per process: a fork costs ~15 ms under
# TCG. An agent whose file is gone (a pushed copy removed) reads "(deleted)".
rdc_agents() {
	find /proc -mindepth 2 -maxdepth 2 -name exe \
		\( -lname '*/rdmacap-agent' -o -lname '*/rdmacap-agent (deleted)' \) 2>/dev/null |
		cut -d/ -f3
}

rdc_leftovers() {
	local p=${1:-rdc} pid

	ip netns list 2>/dev/null | awk -v p="$p" 'index($1, p) == 1 { print "netns " $1 }'
	ip -o link show 2>/dev/null |
		awk -F': ' -v p="$p" '{ sub(/@.*/, "", $2) } index($2, p) == 1 { print "link " $2 }'
	rdma link show 2>/dev/null |
		awk -v p="$p" '{ sub(/\/.*/, "", $2) } index($2, p) == 1 { print "rxe " $2 }'
	for pid in $(rdc_agents); do
		echo "agent $pid"
	done
	tc qdisc show 2>/dev/null | grep netem | sed 's/^/qdisc /'
	return 0
}
