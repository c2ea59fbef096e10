#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# The orchestrator's own guarantees, on the loop topology (no namespace, no
# rxe): an agent that dies is named whatever the point was waiting for, and
# every finished point is in the --json file even when the run is cut short.

load lib/common

setup() {
	rdc_require_rdmacap
	RDC_DIR=$(mktemp -d /tmp/rdc-harness.XXXXXX)
}

teardown() {
	rdc_bg_kill
	rm -rf "$RDC_DIR"
}

# the PID of the client agent of rdmacap PID $1 whose first client id is $2
agent_pid() {
	local n pid

	for ((n = 0; n < 100; n++)); do
		pid=$(pgrep -P "$1" -f -- "--role=client.*--first-id=$2( |$)" | head -n 1)
		[ -n "$pid" ] && { echo "$pid"; return 0; }
		sleep 0.1
	done
	return 1
}

@test "a client agent killed after it connected, before traffic, is named as the cause" {
	local pid agent

	# 2 agents: the second (id 2) connects at once, the first's second client
	# waits 3 s, so the point is still in its connect phase when we kill it
	RDC_BG_LOG="$RDC_DIR/err" rdc_bg sh -c "exec '$RDMACAP' run --transport tcp --topology loop \
		--clients 3 --agents 2 --stagger-ms 3000 --msgs 2 >'$RDC_DIR/out'"
	pid=$RDC_BG_PID
	agent=$(agent_pid "$pid" 2)
	sleep 1
	kill -KILL "$agent"
	wait "$pid" || true
	output=$(cat "$RDC_DIR/out")
	grep -q '^not ok 1 run' <<<"$output"
	grep -qE '^  # failures call=agent err=signal_9_KILL count=1$' <<<"$output"
	grep -qE '^  # cause=agent process ended early \(signal_9_KILL' <<<"$output"
}

@test "--json holds every finished point when the run is killed later" {
	local pid n

	RDC_BG_LOG="$RDC_DIR/err" rdc_bg sh -c "exec '$RDMACAP' ramp --transport tcp --topology loop \
		--clients 2,3,4 --msgs 3 --think-ms 1000 --json '$RDC_DIR/r.json' >'$RDC_DIR/out'"
	pid=$RDC_BG_PID
	for ((n = 0; n < 300; n++)); do
		grep -q '^ok 1 ramp' "$RDC_DIR/out" && break
		sleep 0.1
	done
	grep -q '^ok 1 ramp' "$RDC_DIR/out"
	kill -KILL "$pid"
	wait "$pid" || true
	run perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); my $p = $d->{points};
		print scalar(@$p), " ", $p->[0]{clients}, " ", $p->[0]{traffic}{verified}, "\n"' \
		"$RDC_DIR/r.json"
	[ "$status" -eq 0 ]
	[ "$output" = "1 2 6" ]
}
