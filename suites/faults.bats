#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# --fault on the tcp transport, on this host (pair topology, root): each fault
# once, each ends within its deadline, names its cause, accounts for every
# connection and leaves no namespace, qdisc or process behind. netem faults
# SKIP where the kernel has no sch_netem (they run in suites/vm/faults.sh).

# shellcheck disable=SC2154 # bats' run sets output, stderr and status
load lib/common

# 20 clients over 2 agents, 30 round trips 100 ms apart: 3 s of traffic, the
# fault strikes at 1 s (a third of it, the default)
LOAD=(--transport tcp --topology pair --clients 20 --agents 2 --msgs 30 --think-ms 100)

setup() {
	rdc_require_root
	rdc_require_rdmacap
	RDC_JSON=$(mktemp /tmp/rdc-faults.XXXXXX.json)
}

teardown() {
	rdc_bg_kill
	rm -f "$RDC_JSON"
}

# nothing of the run left: its namespaces (their agents, links and qdiscs go with them)
clean_after() {
	[ -n "$(rdc_kv run)" ] && ! ip netns list | grep -q "^rdc$(rdc_kv run)"
}

# survives SPEC WORDS: every connection survived SPEC with its payloads
# verified, and fault_did tells the undo (WORDS)
survives() {
	rdc_run run "${LOAD[@]}" --fault "$1" --json "$RDC_JSON"
	[ "$status" -eq 0 ]
	[ "$(rdc_kv fault_survived)" -eq 20 ]
	[[ "$(rdc_kv fault_did)" == *"$2"* ]]
	[ "$(rdc_kv verified)" -eq 600 ]
	clean_after
}

@test "bad --fault specs exit 2 before anything is created" {
	for spec in bogus kill-client:0 stop-server delay:10:20 loss:0 loss:101 \
		link-down:x reorder:5:5 kill-server:1; do
		run --separate-stderr "$RDMACAP" run --fault "$spec"
		[ "$status" -eq 2 ]
		[[ "$stderr" == *"--fault"* ]]
		[ -z "$output" ]
	done
	run --separate-stderr "$RDMACAP" run --topology loop --fault loss:5
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"pair or star"* ]]
	run --separate-stderr "$RDMACAP" run --fault-at 5
	[ "$status" -eq 2 ]
	run --separate-stderr "$RDMACAP" limit --fault kill-server
	[ "$status" -eq 2 ]
}

@test "kill-client:1 costs exactly that agent's connections" {
	rdc_run run "${LOAD[@]}" --fault kill-client:1 --json "$RDC_JSON"
	[ "$status" -eq 0 ]
	[ "$(rdc_kv fault_survived)" -eq 10 ]
	[ "$(rdc_kv fault_failed)" -eq 10 ]
	[ "$(rdc_kv fault_named)" -eq 10 ]
	[[ "$(rdc_kv cause)" == *"client agent killed (SIGKILL"* ]]
	[[ "$(rdc_kv fault_did)" == *"10 connections"* ]]
	[ "$(jq '.points[0].fault.survived' "$RDC_JSON")" -eq 10 ]
	clean_after
}

@test "kill-server ends the point within 10 s, cause named, every client accounted" {
	local t0=$SECONDS

	rdc_run run "${LOAD[@]}" --fault kill-server --json "$RDC_JSON"
	[ "$status" -eq 0 ]
	[ $((SECONDS - t0)) -le 15 ] # 10 s for the point, the rest is the topology
	(($(echo "$(rdc_kv t_traffic_s) <= 10" | bc)))
	[[ "$(rdc_kv cause)" == "server agent killed (SIGKILL"* ]]
	[ "$(rdc_kv fault_failed)" -eq 20 ]
	[ "$(rdc_kv fault_named)" -eq 20 ]
	[ "$(rdc_kv fault_detect_ms)" -ge 0 ]
	clean_after
}

@test "stop-server:1500 costs latency, not connections" {
	survives stop-server:1500 "SIGCONT after"
}

@test "link-down:2000 on the client's veth: every connection recovers" {
	survives link-down:2000 "link up after"
}

# A server stopped past the phase deadline: its clients, waiting for echoes,
# learn of it only at that deadline; their failures are named ("timeout"), but
# nothing noticed the fault, so the fault check fails and says so.
@test "a fault noticed only at the phase deadline fails the fault check" {
	rdc_run run "${LOAD[@]}" --fault stop-server:20000 --timeout 6
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok 4 fault stop-server:20000"* ]]
	[[ "$(rdc_kv why)" == *"20 connections learned of it only at the phase deadline"* ]]
	clean_after
}

@test "netem faults SKIP with the reason where the kernel has no sch_netem" {
	[ -e /sys/module/sch_netem ] && skip "this kernel has sch_netem"
	modprobe -q sch_netem 2>/dev/null && skip "sch_netem loaded"
	rdc_run run "${LOAD[@]}" --fault loss:5
	[ "$status" -eq 4 ]
	[[ "$output" == *"SKIP"*"sch_netem"* ]]
}
