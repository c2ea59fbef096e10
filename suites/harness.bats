#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
#
# The orchestrator's own guarantees, on the loop topology (no namespace, no
# rxe): an agent that dies is named whatever the point was waiting for, and
# every finished point is in the --json file even when the run is cut short;
# the memory floor ends a point and names it, and the OOM killer's choice
# spares rdmacap, not its agents.

# shellcheck disable=SC2154 # bats' run sets output, stderr and status
load lib/common

setup() {
	rdc_require_rdmacap
	RDC_DIR=$(mktemp -d /tmp/rdc-harness.XXXXXX)
}

teardown() {
	rdc_bg_kill
	rm -rf "$RDC_DIR"
}

# waits up to 30 s for a line of $RDC_DIR/out matching $1
out_wait() {
	local n

	for ((n = 0; n < 300; n++)); do
		grep -q "$1" "$RDC_DIR/out" && return 0
		sleep 0.1
	done
	return 1
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
	local pid

	RDC_BG_LOG="$RDC_DIR/err" rdc_bg sh -c "exec '$RDMACAP' ramp --transport tcp --topology loop \
		--clients 2,3,4 --msgs 3 --think-ms 1000 --json '$RDC_DIR/r.json' >'$RDC_DIR/out'"
	pid=$RDC_BG_PID
	out_wait '^ok 1 ramp'
	kill -KILL "$pid"
	wait "$pid" || true
	run perl -MJSON::PP -e 'local $/; my $d = decode_json(<>); my $p = $d->{points};
		print scalar(@$p), " ", $p->[0]{clients}, " ", $p->[0]{traffic}{verified}, "\n"' \
		"$RDC_DIR/r.json"
	[ "$status" -eq 0 ]
	[ "$output" = "1 2 6" ]
}

@test "limit: a point cut by SIGTERM is no limit; the search is said incomplete" {
	local pid

	RDC_BG_LOG="$RDC_DIR/err" rdc_bg sh -c "exec '$RDMACAP' limit --transport tcp --topology loop \
		--start 2 --max 64 --agents 1 --msgs 3 --think-ms 1000 >'$RDC_DIR/out'"
	pid=$RDC_BG_PID
	out_wait '^ok 1 limit'
	sleep 1
	kill -TERM "$pid"
	wait "$pid" || true
	grep -q '^not ok 3 limit at 100% success: >= 2 clients, search incomplete' "$RDC_DIR/out"
	! grep -q '^# first_below=' "$RDC_DIR/out" || false
}

@test "--mem-floor above MemAvailable: the point ends at once, named memory, the JSON holds it" {
	# a floor of 1 TiB: MemAvailable is below it at the first reading, long
	# before the second client's 3 s stagger is over
	local t0=$SECONDS

	rdc_run run --transport tcp --topology loop --clients 2 --agents 1 --stagger-ms 3000 \
		--msgs 2 --mem-floor 1048576 --json "$RDC_DIR/r.json"
	[ "$status" -eq 1 ]
	[ $((SECONDS - t0)) -lt 3 ]
	grep -qE '^# mem_floor=1073741824 KiB \(--mem-floor 1048576\)$' <<<"$output"
	grep -qE '^  # cause=memory: MemAvailable fell to [0-9]+ KiB \(floor 1073741824 KiB\) with [0-9]+ of 2 connected; -?[0-9]+ bytes per connection in use \(user -?[0-9]+, kernel -?[0-9]+\)$' <<<"$output"
	grep -qE '^  # why=memory: MemAvailable fell' <<<"$output"
	grep -q 'below the floor of 1073741824 KiB' <<<"$stderr"
	run perl -MJSON::PP -e 'local $/; my $p = decode_json(<>)->{points}[0];
		print "$p->{memory}{floor_kb} ", ($p->{memory}{floor_hit_avail_kb} > 0 ? 1 : 0),
		" $p->{clients}\n"' "$RDC_DIR/r.json"
	[ "$output" = "1073741824 1 2" ]
}

@test "--mem-floor 0: not watched, the same point passes" {
	rdc_run run --transport tcp --topology loop --clients 2 --agents 1 --msgs 2 --mem-floor 0
	[ "$status" -eq 0 ]
	grep -qE '^# mem_floor=0 KiB \(off \(--mem-floor 0\)\)$' <<<"$output"
	! grep -q 'mem_floor_hit_avail_kb' <<<"$output" || false
}

@test "limit: a point the memory floor ended is a failure, its cause memory" {
	rdc_run limit --transport tcp --topology loop --start 2 --max 4 --agents 1 --msgs 3 \
		--think-ms 200 --threshold 50 --mem-floor 1048576
	grep -qE '^# limit=0$' <<<"$output"
	grep -qE '^# cause=memory: MemAvailable fell to [0-9]+ KiB \(floor 1073741824 KiB\)' <<<"$output"
}

@test "oom_score_adj: rdmacap -1000 as root, its agents what it started with; env says whether it can" {
	local pid agent own ag orig

	[ "$(id -u)" -eq 0 ] || skip "not root: lowering oom_score_adj needs CAP_SYS_RESOURCE"
	orig=$(cat /proc/self/oom_score_adj)
	RDC_BG_LOG="$RDC_DIR/err" rdc_bg sh -c "exec '$RDMACAP' run --transport tcp --topology loop \
		--clients 2 --agents 1 --stagger-ms 2000 --msgs 1 >'$RDC_DIR/out'"
	pid=$RDC_BG_PID
	agent=$(agent_pid "$pid" 0)
	own=$(cat "/proc/$pid/oom_score_adj")
	ag=$(cat "/proc/$agent/oom_score_adj")
	wait "$pid"
	[ "$ag" = "$orig" ]
	# a run never warns about it: `rdmacap env` says it once
	[ "$(grep -c oom_score_adj "$RDC_DIR/err")" -eq 0 ]
	run "$RDMACAP" env
	if grep -qE '^ok [0-9]+ OOM protection: .* # SKIP oom_score_adj -1000: ' <<<"$output"; then
		# no CAP_SYS_RESOURCE (a container): nothing changed
		[ "$own" = "$orig" ]
	else
		grep -qE '^ok [0-9]+ OOM protection: [^#]*$' <<<"$output"
		[ "$own" = -1000 ]
	fi
}
