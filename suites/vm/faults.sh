#!/bin/bash
# SPDX-License-Identifier: MIT
#
# faults.sh: --fault on rc (and tcp's netem faults) inside the rxe VM, driven
# through build/rdmacap:
#
#   vm/run --share $PWD -- suites/vm/faults.sh
#
# Each fault once on rc (pair, FLT_CLIENTS clients over 2 agents, FLT_MSGS round
# trips FLT_THINK ms apart; the fault strikes at a third of the traffic): the
# point ends within its deadline (kill-server: 10 s of traffic), names its cause,
# every connection survived (all its round trips verified) or failed with a
# named record, and afterwards the
# RDMA counters are at baseline (no QP left), no rdc namespace, no netem qdisc
# and no agent process remain. rc under loss:5 keeps every connection with its
# payloads verified; so does tcp under each netem fault. rc --srq link-down is
# noticed through the device's async events (an SRQ receive is not flushed with
# its QP). Last, no fault but a starved SRQ (--rx-depth 1): the cause names the
# RNR NAKs the port counters saw. uc, which neither acknowledges nor
# retransmits, rides a link-down and loss:5 on its client's resends: every
# connection it loses is named within the bound (uc_retry, or its QP's flush),
# and under loss every one survives with the resends counted (retried).
#
# TAP 13 on stdout, figures as "# key=value"; exit 0 pass, 1 fail, 4 skip.
#
#   FLT_CLIENTS (20)  FLT_MSGS (30)  FLT_THINK (100)  FLT_ONLY: run only faults matching it
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

CLIENTS=${FLT_CLIENTS:-20}
MSGS=${FLT_MSGS:-30}
THINK=${FLT_THINK:-100}
ONLY=${FLT_ONLY:-}
W=

log() { echo "faults.sh: $*" >&2; }

# point OUT ERR KEYS ARGS...: rdmacap run ARGS on pair with FLT_CLIENTS clients
# over 2 agents, TAP to OUT and stderr to ERR; the figures whose keys match the
# ERE KEYS echoed. Returns rdmacap's status.
point() {
	local out=$1 err=$2 keys=$3 rc

	shift 3
	rdc_timeout 600 "$RDMACAP" run "$@" --topology pair --clients "$CLIENTS" --agents 2 \
		--msgs "$MSGS" >"$out" 2>"$err"
	rc=$?
	grep -E "^ *# ($keys)" "$out" | cut -c1-400 | sed -E 's/^ *#? ?/# /'
	return "$rc"
}

# verdict OK DESC OUT ERR: one TAP result, OK (0) unless the point left
# something behind
verdict() {
	local ok=$1 left

	left=$(rdc_leftovers)
	[ -z "$left" ] || { tap_diag "left: $left"; ok=1; }
	rdc_result "$ok" "$2" "$3" "$4"
}

# one_fault TR SPEC MAXS WANT [OPTION...]: run it with the options; WANT is "all"
# (every connection survives, payloads verified) or "named" (what failed is named,
# the cause names the fault)
one_fault() {
	local tr=$1 spec=$2 maxs=$3 want=$4 out err json rc ok=0 t0 dt desc name
	local -a opts=("${@:5}")

	[ -n "$ONLY" ] && [[ "$tr:$spec" != *$ONLY* ]] && return 0
	name=$tr${opts[*]:+${opts[*]// /}}-$spec
	out=$W/$name.tap err=$W/$name.err json=$W/$name.json
	desc="$tr${opts[*]:+ ${opts[*]}} --fault $spec"
	log "$desc"
	t0=$(date +%s%N)
	point "$out" "$err" 'fault|cause=|failures|lat_us|msgs=|wire_|qp_states' \
		--transport "$tr" "${opts[@]}" --think-ms "$THINK" --fault "$spec" --json "$json"
	rc=$?
	dt=$((($(date +%s%N) - t0) / 1000000))
	tap_kv "${name//[:-]/_}_wall_ms" "$dt"
	[ "$rc" = 0 ] || { tap_diag "exit $rc"; ok=1; }
	grep -qE '^  ok [0-9]+ fault ' "$out" || { tap_diag "the fault check did not pass"; ok=1; }
	(($(echo "$(rdc_word t_traffic_s "$out") <= $maxs" | bc))) ||
		{ tap_diag "traffic took $(rdc_word t_traffic_s "$out") s > $maxs s"; ok=1; }
	if [ "$want" = all ]; then
		[ "$(rdc_word fault_survived "$out")" = "$CLIENTS" ] || ok=1
		[ "$(rdc_word verified "$out")" = $((CLIENTS * MSGS)) ] || ok=1
	else
		[ "$(rdc_word fault_named "$out")" = "$(rdc_word fault_failed "$out")" ] ||
			{ tap_diag "not every failed connection is named"; ok=1; }
		grep -qE '^ *# cause=.*--fault' "$out" || { tap_diag "cause does not name the fault"; ok=1; }
		# the survivors: each did all its round trips, and every one that came
		# back was verified
		if ! { [ "$(rdc_word bad "$out")" = 0 ] &&
			[ "$(rdc_word verified "$out")" = "$(rdc_word msgs "$out")" ] &&
			[ "$(rdc_word verified "$out")" -ge $(($(rdc_word fault_survived "$out") * MSGS)) ]; }; then
			tap_diag "survivors not verified: $(rdc_word fault_survived "$out") survived," \
				"$(rdc_word verified "$out") of $(rdc_word msgs "$out") verified"
			ok=1
		fi
	fi
	if [ "$tr" = uc ] && [[ $spec == loss:* ]] && ! [ "$(rdc_word retried "$out")" -gt 0 ]; then
		tap_diag "uc under loss resent nothing: retried=$(rdc_word retried "$out")"
		ok=1
	fi
	if [ "$tr" != tcp ]; then
		grep -qE '^  ok [0-9]+ RDMA resources back to baseline' "$out" ||
			{ tap_diag "RDMA counters not at baseline"; ok=1; }
	fi
	verdict "$ok" "$desc: within ${maxs}s, $want accounted, nothing left" "$out" "$err"
}

# one_rnr: no fault, a starved SRQ (--rx-depth 1, FLT_CLIENTS clients sending at
# once): the receivers answer RNR NAKs and the senders retry (rnr_retry is
# unlimited), so every round trip completes; the cause names the RNR NAKs from
# the port counters with the rx depth
one_rnr() {
	local out=$W/rnr.tap err=$W/rnr.err rc ok=0 desc="rc --srq --rx-depth 1: RNR NAKs named"

	[ -n "$ONLY" ] && [[ "rnr" != *$ONLY* ]] && return 0
	log "$desc"
	point "$out" "$err" 'cause=|msgs=|lat_us|wire_' --transport rc --srq --rx-depth 1
	rc=$?
	[ "$rc" = 0 ] || { tap_diag "exit $rc"; ok=1; }
	[ "$(rdc_word verified "$out")" = $((CLIENTS * MSGS)) ] || ok=1
	grep -qE '^ *# cause=.*RNR NAKs: [0-9,]+ \(receive queue ran dry.*; rx depth 1, SRQ\)' "$out" ||
		{ tap_diag "cause does not name the RNR NAKs and the rx depth"; ok=1; }
	verdict "$ok" "$desc" "$out" "$err"
}

main() {
	rdc_rxe_suite faults "rdma_rxe sch_netem" tc
	local -a runs=(
		# transport fault bound(s) want; traffic is MSGS x THINK ms plus the
		# round trips, a dead peer adds its bound (common/deadline.h)
		"rc kill-client:1 30 named" "rc kill-server 10 named" "rc stop-server:1500 30 all"
		# rxe fails a QP that sends while its link is down (the client's
		# own, or the server's, which tells it with a DOWN); one that does
		# not send in the outage survives: which ones is a race, so both
		# parts are checked whatever their numbers
		"rc link-down:2000 30 named"
		# the server's own link: its echoes in the outage fail, so its QPs
		# die while their clients wait for nothing; the DOWN tells them
		"rc link-down:2000:server 30 named"
		# an SRQ's receives are not the dead QP's: the async event must tell
		"rc link-down:1500 30 named --srq" "rc loss:5 60 all" "rc delay:20:5 60 all"
		"rc reorder:25 60 all" "tcp loss:5 60 all" "tcp delay:20:5 60 all"
		"tcp reorder:25 60 all"
		# uc: what the outage took is resent (agents/rto.h) or named
		# (uc_retry) within the bound; --qp-share tells late echoes by
		# their imm_data
		"uc link-down:2000:server 30 named" "uc link-down:1500 30 named --qp-share 2 --op write"
		"uc loss:5 60 all"
	)
	local n=0 r a

	for r in "${runs[@]}"; do
		read -ra a <<<"$r"
		[ -z "$ONLY" ] || [[ "${a[0]}:${a[1]}" == *$ONLY* ]] && n=$((n + 1))
	done
	[ -z "$ONLY" ] || [[ "rnr" == *$ONLY* ]] && n=$((n + 1))
	tap_plan "$n"
	tap_kv kernel "$(uname -r)"
	tap_kv load "$(cut -d' ' -f1-3 /proc/loadavg)"
	for r in "${runs[@]}"; do
		read -ra a <<<"$r"
		one_fault "${a[@]}"
	done
	one_rnr
}

main
tap_finished
