#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# The TCP path end to end: the orchestrator, real agents, real sockets, every
# echo checked. Runs on any Linux host; the namespace topologies need root.

# shellcheck disable=SC2154 # bats' run sets output, stderr and status
load lib/common

setup() {
	rdc_require_rdmacap
	RDC_JSON=$(mktemp /tmp/rdc-tcp.XXXXXX.json)
}

teardown() {
	rdc_bg_kill
	rm -f "$RDC_JSON"
	# a test's own namespace, left when it failed half-way
	if [ -n "${RDC_LQ_NS:-}" ]; then ip netns del "$RDC_LQ_NS" 2>/dev/null || true; fi
}


no_rdc_left() {
	! ip netns list | grep -q '^rdc' && ! ip -o link show | grep -qE '^[0-9]+: rdc'
}

@test "bad command lines exit 2, name the bad part, create nothing" {
	local before after
	before=$(ip netns list 2>/dev/null | grep -c '^rdc' || true)

	run --separate-stderr "$RDMACAP" run --frob 3
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--frob"* ]]
	[[ "$stderr" == *"usage: rdmacap run"* ]]
	[ -z "$output" ]

	run --separate-stderr "$RDMACAP" ramp --clients 10,,x
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--clients"* ]]

	run --separate-stderr "$RDMACAP" run --topology star:0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"star:0"* ]]

	run --separate-stderr "$RDMACAP" frobnicate
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"frobnicate"* ]]

	run --separate-stderr "$RDMACAP" run --msgs
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--msgs"* ]]

	after=$(ip netns list 2>/dev/null | grep -c '^rdc' || true)
	[ "$before" -eq "$after" ]
}

@test "loop: 100 clients, 100% connected, every payload verified (no root needed)" {
	rdc_run run --transport tcp --topology loop --clients 100 --msgs 10 --json "$RDC_JSON"
	assert_success
	[ "$(rdc_out_word connected)" -eq 100 ]
	[ "$(rdc_out_word verified)" -eq 1000 ]
	[ "$(rdc_out_word bad)" -eq 0 ]
	# the JSON side file is valid JSON and agrees with the TAP
	run perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); my $p = $d->{points}[0];
		print "$p->{connected} $p->{traffic}{verified} $p->{ok}\n"' "$RDC_JSON"
	assert_success
	[ "$output" = "100 1000 1" ]
}

@test "pair: 100 clients reach 100% with payloads verified" {
	rdc_require_root
	rdc_run run --transport tcp --topology pair --clients 100 --msgs 10 --size 512
	assert_success
	[ "$(rdc_out_word connected)" -eq 100 ]
	[ "$(rdc_out_word verified)" -eq 1000 ]
	[ "$(rdc_out_word connect_pct)" = "100.00" ]
	# latency percentiles and server memory are reported
	[ -n "$(rdc_out_word lat_us_p99)" ]
	[ -n "$(rdc_out_word srv_bytes_per_conn)" ]
	no_rdc_left
}

@test "star:4: 100 clients over 4 client namespaces reach 100%, workers multiplexed" {
	rdc_require_root
	rdc_run run --transport tcp --topology star:4 --clients 100 --msgs 10 --workers 8
	assert_success
	[ "$(rdc_out_word connected)" -eq 100 ]
	[ "$(rdc_out_word verified)" -eq 1000 ]
	[ "$(rdc_out_word agents)" -eq 4 ]
	no_rdc_left
}

@test "pair and star:2 over IPv6 (--family 6): 100 clients reach 100%, verified, server fd7a:222::1" {
	rdc_require_root
	rdc_run run --transport tcp --topology pair --family 6 --clients 100 --msgs 10
	assert_success
	[ "$(rdc_out_word connected)" -eq 100 ]
	[ "$(rdc_out_word verified)" -eq 1000 ]
	[ "$(rdc_out_word server)" = "fd7a:222::1" ]
	rdc_run run --transport tcp --topology star:2 --family 6 --clients 100 --msgs 10
	assert_success
	[ "$(rdc_out_word verified)" -eq 1000 ]
	[ "$(rdc_out_word agents)" -eq 2 ]
	no_rdc_left
}

@test "--server-addr ::1 on the host topology: tcp over IPv6 loopback" {
	rdc_run run --transport tcp --topology host --server-addr ::1 --clients 20 --msgs 5
	assert_success
	[ "$(rdc_out_word verified)" -eq 100 ]
	[ "$(rdc_out_word server)" = "::1" ]
}

@test "ramp output is valid TAP for prove, one subtest per load point" {
	rdc_run ramp --transport tcp --topology loop --clients 10,50 --msgs 2
	assert_success
	[ "$(grep -c '^ok [0-9]* ramp clients=' <<<"$output")" -eq 2 ]
	run prove -e cat /dev/stdin <<<"$output"
	assert_success
}

@test "--repeat 2: a subtest per repeat, figures as min/median/max, the verdict counts repeats" {
	rdc_require_root
	rdc_run run --transport tcp --topology pair --clients 50 --msgs 5 --repeat 2 \
		--json "$RDC_JSON"
	assert_success
	[ "$(grep -c '^  ok [12] repeat [12]/2 clients=50 connected=50' <<<"$output")" -eq 2 ]
	[[ "$output" == *"  ok 3 2 of 2 repeats passed"* ]]
	[[ "$output" == *"ok 1 run clients=50 repeats=2 passed=2/2"* ]]
	# the last values are the spread over both repeats
	[ "$(rdc_out_word connected)" = "50/50/50" ]
	[ "$(rdc_out_word verified)" = "250/250/250" ]
	local lo mid hi
	IFS=/ read -r lo mid hi <<<"$(rdc_out_word lat_us_p50)"
	[ -n "$hi" ]
	awk -v a="$lo" -v b="$mid" -v c="$hi" 'BEGIN { exit !(a > 0 && a <= b && b <= c) }'
	run prove -e cat /dev/stdin <<<"$output"
	assert_success
	# JSON: one point, medians at the figures' paths, min and max beside them
	run jq -r '.points | length, (.[0] | .repeat.n, .repeat.passed, .ok,
		(.repeat.min.traffic.lat_us.p50 <= .traffic.lat_us.p50 and
		 .traffic.lat_us.p50 <= .repeat.max.traffic.lat_us.p50))' "$RDC_JSON"
	assert_success
	[ "$(tr '\n' ' ' <<<"$output")" = "1 2 2 true true " ]
	no_rdc_left
}

@test "--repeat 2 of a point that fails: not ok, 0 of 2 repeats passed" {
	rdc_require_root
	# the fd-limit point below, twice: every repeat fails on EMFILE
	run --separate-stderr setpriv --bounding-set -sys_resource \
		prlimit --nofile=1100:1100 -- "$RDMACAP" run --transport tcp \
		--topology pair --clients 1500 --agents 1 --msgs 1 --timeout 20 --repeat 2
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok 3 0 of 2 repeats passed"* ]]
	[[ "$output" == *"not ok 1 run clients=1500 repeats=2 passed=0/2"* ]]
	no_rdc_left
}

@test "thread server model passes like the event model" {
	rdc_run run --transport tcp --topology loop --clients 50 --msgs 5 --server-model thread
	assert_success
	[ "$(rdc_out_word connected)" -eq 50 ]
	[ "$(rdc_out_word srv_threads)" -gt 50 ]
}

@test "think time longer than --timeout: the plan's think time is allowed, not cut" {
	# 100 round trips 100 ms apart take 10 s: one deadline rule (common/deadline.h)
	# gives the agent --timeout plus the think time, and the orchestrator waits longer
	rdc_run run --transport tcp --topology loop --clients 10 --msgs 100 --think-ms 100 \
		--timeout 5
	assert_success
	[ "$(rdc_out_word verified)" -eq 1000 ]
	[ "$(rdc_out_word lost)" -eq 0 ]
}

@test "a load point beyond the fd limit is not ok with the cause, and cleans up" {
	rdc_require_root
	# 1500 clients in one agent under a hard limit of 1100 fds that nobody may
	# raise (CAP_SYS_RESOURCE dropped): EMFILE is the cause
	run --separate-stderr setpriv --bounding-set -sys_resource \
		prlimit --nofile=1100:1100 -- "$RDMACAP" run --transport tcp \
		--topology pair --clients 1500 --agents 1 --msgs 1 --timeout 20
	[ "$status" -eq 1 ]
	[[ "$output" == *"cause="*"EMFILE"* ]]
	[[ "$output" == *"RLIMIT_NOFILE"* ]]
	no_rdc_left
}

@test "SIGKILLed orchestrator: rdmacap down removes every rdc namespace and veth" {
	rdc_require_root
	RDC_BG_LOG=/dev/null rdc_bg "$RDMACAP" run --transport tcp --topology star:2 \
		--clients 200 --msgs 100000 --think-ms 50 --timeout 60
	local pid=$RDC_BG_PID n
	# wait until its namespaces exist, then kill it without a chance to clean up
	for ((n = 0; n < 100; n++)); do
		ip netns list | grep -q '^rdc' && break
		sleep 0.1
	done
	ip netns list | grep -q '^rdc'
	sleep 1
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	ip netns list | grep -q '^rdc'

	rdc_run down
	assert_success
	[ "$(rdc_out_word removed)" -gt 0 ]
	no_rdc_left
}

@test "a listen queue that overflows is named by the kernel's counter in the cause" {
	rdc_require_root
	# loop runs in the caller's namespace: one of our own, whose somaxconn of 4
	# caps the server's backlog, so 2,000 clients released at once overflow it
	RDC_LQ_NS=rdc-lq-$$
	ip netns add "$RDC_LQ_NS"
	ip netns exec "$RDC_LQ_NS" ip link set lo up
	ip netns exec "$RDC_LQ_NS" sysctl -qw net.core.somaxconn=4
	run --separate-stderr ip netns exec "$RDC_LQ_NS" "$RDMACAP" run --transport tcp \
		--topology loop --clients 2000 --msgs 1 --timeout 2
	ip netns del "$RDC_LQ_NS"
	unset RDC_LQ_NS
	assert_failure 1
	rdc_kv_parse "$output"
	[[ "$output" == *"# cause="*"wire: listen queue overflows: "* ]]
	[[ "$output" == *"# wire_srv "*"TcpExtListenOverflows="* ]]
}
