#!/bin/bash
# SPDX-License-Identifier: MIT
#
# faults-soak.sh: SOAK_POINTS (100) points in one rxe VM boot, each a random design
# under a random --fault, run by the ASan+UBSan build of both programs (build/san,
# `make san`). `make soak` boots the VM and runs it:
#
#   vm/run --mem 4G --share $PWD -- suites/soak/faults-soak.sh
#
# A point draws: --transport tcp|rc|uc|ud; for the RDMA ones --cm oob-tls|rdmacm,
# --op send|write|read|atomic, --cq per-conn|shared, --srq, --qp-share 0|2|4, and
# for ud --ah cache|wc|lru|peer; --server-model event|thread; --topology
# pair|star:2; and one --fault of every kind with random figures. A draw the tool
# refuses (exit 2 from its command-line checks, before anything exists) is drawn
# again and counted, never run: the refusals are printed by reason at the end.
#
# A point passes when it ends within its bound (no hang), exits 0 (its checks,
# the fault's included), wrote its JSON with the point's figures, has its device
# counters back at the baseline (resources.leak false), logged no sanitizer
# report and no leak (LeakSanitizer on), and left nothing: no rdc namespace,
# link or rxe device, no agent, no netem qdisc. A failing point names what broke
# and the cause the run gave.
#
# The seed is printed first. Each point draws from its own generator (seeded from
# SOAK_SEED and its number), so SOAK_ONLY=K with the same SOAK_SEED re-runs point
# K alone, with the same design and fault.
#
# Not in `make check`: about 15-20 s per point under TCG.
#   SOAK_POINTS (100)  SOAK_SEED (the date)  SOAK_ONLY (every point)
#   SOAK_BOUND (120 s per point)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

POINTS=${SOAK_POINTS:-100}
SEED=${SOAK_SEED:-$(date +%s)}
ONLY=${SOAK_ONLY:-}
BOUND=${SOAK_BOUND:-120}
SAN=$RDC_ROOT/build/san
# redraws of one point before it is called a failure: 8 refusals in a row of a
# generator that mostly draws valid designs means the checks refuse too much
REDRAWS=8
W=
declare -A REFUSED=()
NREFUSED=0

cleanup() {
	[ -n "$W" ] && rm -rf "$W"
	return 0
}

# pick WORD...: one of the words in P, from the point's generator (no subshell:
# bash reseeds RANDOM in each one, and the point would not draw the same again)
pick() {
	P=${*:RANDOM % $# + 1:1}
}

# draw: one point's options in ARGS (an array), from the point's generator
draw() {
	local tr

	pick tcp rc uc ud
	tr=$P
	ARGS=(--transport "$tr")
	pick pair pair pair star:2
	ARGS+=(--topology "$P")
	pick event thread
	ARGS+=(--server-model "$P")
	if [ "$tr" != tcp ]; then
		pick oob-tls oob-tls rdmacm
		ARGS+=(--cm "$P")
		pick send write read atomic
		ARGS+=(--op "$P")
		pick per-conn shared
		ARGS+=(--cq "$P")
		((RANDOM % 3 == 0)) && ARGS+=(--srq)
		pick 2 4
		((RANDOM % 3 == 0)) && ARGS+=(--qp-share "$P")
		pick cache wc lru peer
		[ "$tr" = ud ] && ARGS+=(--ah "$P")
	fi
	pick kill-client kill-server stop-server link-down loss delay reorder
	case $P in
	kill-client) P=kill-client:$((1 + RANDOM % 3)) ;;
	stop-server) P=stop-server:$((500 + RANDOM % 1500)) ;;
	link-down)
		P=link-down:$((500 + RANDOM % 1500))
		((RANDOM % 2)) && P+=:server
		;;
	loss) pick loss:1 loss:5 loss:10 ;;
	delay) P=delay:$((1 + RANDOM % 20)):$((RANDOM % 5)) ;;
	reorder) pick reorder:10 reorder:20 reorder:50 ;;
	esac
	ARGS+=(--fault "$P")
}

# refused ERRFILE SECS: the run's exit 2 is a refusal by design: the command-line
# checks' one "rdmacap run: " line, in under 10 s, nothing created
refused() {
	local why

	why=$(head -n 1 "$1")
	[[ $why == "rdmacap run: "* ]] && [ "$2" -lt 10 ] && [ -z "$(rdc_leftovers)" ] || return 1
	why=${why#rdmacap run: }
	REFUSED[$why]=$((${REFUSED[$why]:-0} + 1))
	NREFUSED=$((NREFUSED + 1))
}

# json_why JSON: what the point's JSON says is wrong ("" when nothing)
json_why() {
	jq -r '.points[0] as $p | if $p == null then "no point in the JSON" else
		[ (if $p.ok != true then "verdict \($p.verdict): \($p.why // "")" else empty end),
		  (if $p.resources.leak == true then "counters not back: \($p.resources.leak_what)"
		   else empty end),
		  (if ($p.clients // 0) < 1 then "no figures" else empty end) ] | join("; ")
		end' "$1" 2>/dev/null || echo "JSON unreadable"
}

one() {
	local k=$1 out=$W/$1.tap err=$W/$1.err json=$W/$1.json rc t0 dt why='' left tries=0 desc

	RANDOM=$(((SEED + k * 7919) & 0x7fffffff))
	while :; do
		draw
		desc="soak $k: ${ARGS[*]}"
		rm -f "$json"
		t0=$SECONDS
		rdc_timeout "$BOUND" "$SAN/rdmacap" run "${ARGS[@]}" --clients 10 --agents 2 \
			--msgs 20 --think-ms 100 --json "$json" >"$out" 2>"$err"
		rc=$?
		dt=$((SECONDS - t0))
		[ "$rc" = 2 ] && refused "$err" "$dt" && ((++tries < REDRAWS)) && continue
		break
	done
	tap_kv "point_$k" "exit=$rc wall_s=$dt redrawn=$tries $(grep -m1 -oE \
		'fault_survived=[0-9]+ fault_failed=[0-9]+' "$out")"
	if [ "$rc" = 4 ]; then
		tap_result skip "$desc" "$(grep -m1 -oE 'SKIP.*' "$out" | cut -c6-)"
		return
	fi
	case $rc in
	0) ;;
	2) why+=" refused $tries times in a row: $(head -n 1 "$err")" ;;
	124 | 137) why+=" hang: killed at $BOUND s" ;;
	*) why+=" exit $rc" ;;
	esac
	[ "$rc" = 2 ] || why+=" $(json_why "$json")"
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$err"; then
		grep -m3 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$err" | sed 's/^/# san: /'
		why+=" sanitizer report"
	fi
	left=$(rdc_leftovers | tr '\n' ' ')
	[ -z "$left" ] || why+=" left: $left"
	why=${why## }
	why=${why%% }
	[ -z "$why" ] || tap_diag "failed: $why; cause: $(jq -r '.points[0].cause // ""' \
		"$json" 2>/dev/null)"
	rdc_result "$([ -z "$why" ] && echo 0 || echo 1)" "$desc" "$out" "$err"
}

main() {
	local k r

	tap_init
	rdc_need rdc_have_root
	rdc_need rdc_have_rxe
	rdc_need rdc_have_cmd jq
	[ -x "$SAN/rdmacap" ] || { tap_skip_all "$SAN/rdmacap not built (make san)"; exit 4; }
	modprobe -a rdma_rxe rdma_ucm sch_netem ||
		{ tap_skip_all "modprobe rdma_rxe rdma_ucm sch_netem failed"; exit 4; }
	W=$(mktemp -d /tmp/soak.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	export RDMACAP_AGENT=$SAN/rdmacap-agent
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
	tap_kv seed "$SEED"
	tap_diag "re-run one point: SOAK_SEED=$SEED SOAK_ONLY=K suites/soak/faults-soak.sh"
	if [ -n "$ONLY" ]; then
		tap_plan 1
		one "$ONLY"
	else
		tap_plan "$POINTS"
		for ((k = 1; k <= POINTS; k++)); do
			one "$k"
		done
	fi
	tap_kv refused "$NREFUSED"
	for r in "${!REFUSED[@]}"; do
		tap_diag "refused ${REFUSED[$r]}x: $r"
	done
}

main
tap_finished
