#!/bin/bash
# SPDX-License-Identifier: MIT
#
# faults-soak.sh: SOAK_POINTS (30) consecutive points in one rxe VM boot, each
# with a random --fault and a random resource model, run by the ASan+UBSan build
# of both programs (build/san, `make san`). `make soak` boots the VM and runs it:
#
#   vm/run --share $PWD -- suites/soak/faults-soak.sh
#
# Every point must end within its bound (no hang), exit 0 (its checks, the fault's
# included, pass), log no sanitizer report and no leak (LeakSanitizer on), and
# leave no rdc namespace and no agent process. One TAP result per point.
#
# Not in `make check` (about 15 s per point under TCG: 8-10 min).
#   SOAK_POINTS (30)  SOAK_SEED (the date)
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

POINTS=${SOAK_POINTS:-30}
SEED=${SOAK_SEED:-$(date +%s)}
SAN=$RDC_ROOT/build/san
W=

FAULTS=(kill-client:1 kill-server stop-server:1000 link-down:1500 loss:5 delay:10:2 reorder:20)
MODELS=("" "--cq shared" "--srq" "--cm rdmacm" "--server-model thread" "--op write")

cleanup() {
	[ -n "$W" ] && rm -rf "$W"
	return 0
}

one() {
	local k=$1 f m tr out err rc ok=0 t0 dt desc left

	f=${FAULTS[RANDOM % ${#FAULTS[@]}]}
	m=${MODELS[RANDOM % ${#MODELS[@]}]}
	tr=rc
	((RANDOM % 4 == 0)) && tr=tcp m=""
	desc="soak $k: $tr $m --fault $f"
	out=$W/$k.tap err=$W/$k.err
	t0=$SECONDS
	# shellcheck disable=SC2086 # m is one option or none
	rdc_timeout 120 "$SAN/rdmacap" run --transport $tr $m --topology pair --clients 10 \
		--agents 2 --msgs 20 --think-ms 100 --fault "$f" >"$out" 2>"$err"
	rc=$?
	dt=$((SECONDS - t0))
	tap_kv "point_$k" "exit=$rc wall_s=$dt $(grep -m1 -oE 'fault_survived=[0-9]+ fault_failed=[0-9]+' "$out")"
	[ "$rc" = 0 ] || ok=1
	[ "$rc" = 124 ] && tap_diag "hang: killed at 120 s"
	if grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$err"; then
		grep -m3 -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$err" | sed 's/^/# san: /'
		ok=1
	fi
	left=$(rdc_leftovers)
	[ -z "$left" ] || { tap_diag "left: $left"; ok=1; }
	rdc_result "$ok" "$desc" "$out" "$err"
}

main() {
	tap_init
	rdc_need rdc_have_root
	rdc_need rdc_have_rxe
	[ -x "$SAN/rdmacap" ] || { tap_skip_all "$SAN/rdmacap not built (make san)"; exit 4; }
	modprobe -a rdma_rxe sch_netem || { tap_skip_all "modprobe rdma_rxe sch_netem failed"; exit 4; }
	W=$(mktemp -d /tmp/soak.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT TERM
	export RDMACAP_AGENT=$SAN/rdmacap-agent
	export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
	RANDOM=$SEED
	tap_plan "$POINTS"
	tap_kv seed "$SEED"
	for ((k = 1; k <= POINTS; k++)); do
		one "$k"
	done
}

main
tap_finished
