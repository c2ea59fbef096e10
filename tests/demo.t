#!/bin/bash
# SPDX-License-Identifier: MIT
#
# The demo's answer, without the VM: suites/demo-check on the published run
# (docs/results/demo) accepts it, and refuses it when the limit point's cause no
# longer names the knob (JSON or TAP), when the limit did not move with the
# knob, or when a search's files are missing; the published report is what
# `rdmacap report` renders from the published JSON, with each run of one design
# named by its file. TAP on stdout.
set -u

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
RES=$ROOT/docs/results/demo
CHECK=$ROOT/suites/demo-check
MAPS="1000 2000"

# check DESC WANT_EXIT WANT_STDERR DIR MAPS...: one result from a demo-check run
check() {
	local desc=$1 want=$2 msg=$3 got
	shift 3
	# shellcheck disable=SC2086 # MAPS is a list
	"$CHECK" "$@" >"$T/out" 2>"$T/err"
	got=$?
	if [ $got = "$want" ] && grep -qF -- "$msg" "$T/err"; then
		tap_ok "$desc"
	else
		tap_fail "$desc" "exit $got (want $want), stderr: $(head -c 400 "$T/err")"
	fi
}

# copy of the published run, in T/NAME
fixture() {
	rm -rf "${T:?}/$1"
	cp -r "$RES" "$T/$1"
}

checks() {
	local first

	# shellcheck disable=SC2086
	if "$CHECK" "$RES" $MAPS >"$T/out" 2>"$T/err" &&
		[ "$(grep -c ' clients at 100%, [0-9]* at 95%$' "$T/out")" = 2 ]; then
		tap_ok "demo-check: the published run answers (a limit per knob, cause named, moving)"
	else
		tap_fail "demo-check: the published run answers" "$(cat "$T/out" "$T/err")"
	fi

	# the limit point: the first point below 100% of the first search
	fixture nocause
	first=$(jq '[.points | to_entries[] | select(.value.success_pct < 100)] | min_by(.value.clients) | .key' \
		"$RES/limit-maps-1000.json")
	jq --argjson i "$first" '.points[$i].cause = ""' "$RES/limit-maps-1000.json" \
		>"$T/nocause/limit-maps-1000.json"
	# shellcheck disable=SC2086
	check "demo-check: the JSON's limit point without its cause is refused" 1 \
		"limit-maps-1000.json: the first point below 100% has cause 'none'" "$T/nocause" $MAPS

	fixture othercause
	sed -i -E '/limit at 100% success/s/vm\.max_map_count=1000/fs.file-max=1000/' \
		"$T/othercause/limit-maps-1000.tap"
	# shellcheck disable=SC2086
	check "demo-check: a TAP limit naming another knob is refused" 1 \
		"no limit at 100% whose cause names vm.max_map_count=1000" "$T/othercause" $MAPS

	check "demo-check: a limit that did not move with the knob is refused" 1 \
		"vm.max_map_count=1000: limit" "$RES" 2000 1000

	fixture missing
	rm "$T/missing/limit-maps-2000.tap" "$T/missing/limit-maps-2000.json"
	# shellcheck disable=SC2086
	check "demo-check: a search that left no files is refused" 1 \
		"no limit at 100% whose cause names vm.max_map_count=2000" "$T/missing" $MAPS

	check "demo-check: no knob values is a usage error" 2 "usage" "$RES"
}

report() {
	if [ ! -x "$RDMACAP" ]; then
		tap_skip "rdmacap report renders the published report" "$RDMACAP not built"
		tap_skip "rdmacap report: one file per design keeps the plain name" "$RDMACAP not built"
		return
	fi
	# as suites/demo renders it: every JSON of the folder, in glob order
	(cd "$RES" && "$RDMACAP" report --md "$T/r.md" --svg "$T/r.svg" ./*.json) 2>"$T/err"
	if cmp -s "$T/r.md" "$RES/report.md" && cmp -s "$T/r.svg" "$RES/report.svg" &&
		grep -q '^| rc (limit-maps-1000) | [0-9]* | .*vm\.max_map_count=1000' "$T/r.md" &&
		grep -q '^| rc (ramp) | 10 |' "$T/r.md" && grep -q '^| tcp | 10 |' "$T/r.md"; then
		tap_ok "rdmacap report renders the published report; rc runs named by file, the cause in its column"
	else
		tap_fail "rdmacap report renders the published report" \
			"$(diff "$RES/report.md" "$T/r.md" | head -n 10) $(cat "$T/err")"
	fi
	"$RDMACAP" report --md "$T/one.md" "$RES/limit-maps-1000.json" "$RES/tcp.json" 2>"$T/err"
	if grep -q '^| rc | [0-9]* |' "$T/one.md" && ! grep -q '^| rc (' "$T/one.md"; then
		tap_ok "rdmacap report: one file per design keeps the plain name"
	else
		tap_fail "rdmacap report: one file per design keeps the plain name" "$(head -n 4 "$T/one.md")"
	fi
}

tap_init
if [ ! -d "$RES" ] || ! command -v jq >/dev/null; then
	tap_skip_all "needs $RES and jq"
	exit "$TAP_EXIT_SKIP"
fi
tap_plan 8
checks
report
tap_finished
