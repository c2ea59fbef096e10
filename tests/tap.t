#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Unit tests of tap/tap.sh: each case writes a stream in a subshell and compares
# the exact text (the same streams tests/test_tap.c expects from the C writer);
# the last cases feed streams to prove, which must accept good and reject broken
# ones. Reports in TAP; runs under set -eu like the suites that source tap.sh.
set -eu

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# tt_expect NAME WANT GOT: one result, with a diff on mismatch.
tt_expect() {
	if [ "$2" = "$3" ]; then
		tap_ok "$1"
		return 0
	fi
	printf '%s\n' "$2" >"$T/want"
	printf '%s\n' "$3" >"$T/got"
	tap_diag "$(diff -u "$T/want" "$T/got" || true)"
	tap_fail "$1"
}

# tt_rc CMD...: exit status of CMD run in a subshell with fresh tap state.
tt_rc() {
	local rc=0
	("$@") >/dev/null || rc=$?
	echo "$rc"
}

w_flat() {
	tap_init
	tap_plan 3
	tap_kv clients 10
	tap_ok "connect 10"
	tap_fail "connect 50"
	tap_skip storm "no rxe"
	tap_totals
}

w_directives() {
	tap_init
	tap_plan 6
	tap_xfail "netns rxe" "needs 7.1"
	tap_xpass "old bug" "fixed?"
	tap_timeout "ramp 1000" "30 seconds"
	tap_error agents "fork: EAGAIN"
	tap_skip "bare skip"
	tap_fail parse "skipped 3 records"
	tap_totals
}

w_sanitize() {
	tap_init
	tap_plan 2
	tap_ok "a #1"$'\n'"two"$'\r'
	tap_skip "" "line"$'\n'"break # kept"
	tap_kv "bad key=x" "v1"$'\n'"v2"
	tap_diag "first"$'\n'"second"$'\n'
	tap_diag ""
}

w_nested() {
	tap_init
	tap_plan 5
	tap_sub_begin
	tap_plan 2
	tap_kv qp 10
	tap_ok connect
	tap_xfail "old kernel"
	tap_sub_end clients=10
	tap_sub_begin
	tap_plan 2
	tap_ok connect
	tap_sub_begin
	tap_plan 1
	tap_fail "leak check"
	tap_sub_end counters
	tap_sub_end clients=50
	tap_sub_begin
	tap_skip_all "no rxe"
	tap_sub_end clients=100
	tap_sub_begin
	tap_plan 2
	tap_ok connect
	tap_sub_end clients=500
	tap_sub_begin
	tap_xpass surprise
	tap_sub_end clients=1000
	tap_totals
}

w_pass() { tap_init; tap_plan 2; tap_ok a; tap_xfail b; tap_finished; }
w_allskip() { tap_init; tap_plan 2; tap_skip a x; tap_skip b y; tap_finished; }
w_skipall() { tap_init; tap_skip_all "not root"; tap_finished; }
w_short() { tap_init; tap_plan 3; tap_ok a; tap_finished; }
w_noplan() { tap_init; tap_ok a; tap_skip b; tap_finished; }
w_bail() { tap_init; tap_plan 2; tap_ok a; tap_sub_begin; tap_bail "lost agent 7"; tap_exit; }

w_run() {
	tap_init
	tap_plan 3
	tap_run yes true
	tap_run skipped sh -c 'exit 4'
	tap_run broken sh -c 'exit 3'
}

w_embed() {
	tap_init
	tap_plan 3
	printf 'TAP version 13\n1..1\n\nok 1 x' | tap_embed
	tap_ok inner
	printf '\n1..1\nok 1 y\n' >"$T/plain"
	tap_sub_begin
	tap_plan 1
	tap_embed "$T/plain" "a/b #1"
	tap_ok plain
	tap_sub_end outer
	tap_embed /dev/null name
	printf 'ok 1 z\n1..1\n' | tap_embed "" late
	tap_ok empty
}

t_flat() {
	tt_expect "flat stream, numbering, kv, totals" "TAP version 13
1..3
# clients=10
ok 1 connect 10
not ok 2 connect 50
ok 3 storm # SKIP no rxe
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0" "$(w_flat)"
}

t_directives() {
	tt_expect "directives" "TAP version 13
1..6
ok 1 netns rxe # XFAIL needs 7.1
ok 2 old bug # XPASS fixed?
not ok 3 ramp 1000 # TIMEOUT 30 seconds
not ok 4 agents # ERROR fork: EAGAIN
ok 5 bare skip # SKIP
# skipped 3 records
not ok 6 parse
# Totals: pass:0 fail:2 xfail:1 xpass:1 skip:1 error:1" "$(w_directives)"
}

t_sanitize() {
	tt_expect "sanitized descriptions and diagnostics" "TAP version 13
1..2
ok 1 a _1 two 
ok 2 # SKIP line break # kept
# bad_key_x=v1 v2
# first
# second
#" "$(w_sanitize)"
}

t_nested() {
	tt_expect "nested subtests and parent results" "TAP version 13
1..5
  KTAP version 1
  1..2
  # qp=10
  ok 1 connect
  ok 2 old kernel # XFAIL
ok 1 clients=10
  KTAP version 1
  1..2
  ok 1 connect
    KTAP version 1
    1..1
    not ok 1 leak check
  not ok 2 counters
not ok 2 clients=50
  KTAP version 1
  1..0 # SKIP no rxe
ok 3 clients=100 # SKIP
  KTAP version 1
  1..2
  ok 1 connect
  # Planned tests != run tests (2 != 1)
not ok 4 clients=500
  KTAP version 1
  ok 1 surprise # XPASS
  1..1
not ok 5 clients=1000
# Totals: pass:1 fail:3 xfail:0 xpass:0 skip:1 error:0" "$(w_nested)"
}

t_exit_codes() {
	local got

	got="$(tt_rc w_pass) $(tt_rc w_allskip) $(tt_rc w_skipall) $(tt_rc w_short)"
	got="$got $(tt_rc w_noplan) $(tt_rc w_bail)"
	tt_expect "exit codes: pass allskip skipall short noplan bail" "0 4 4 1 0 1" "$got"
}

t_plan_notes() {
	tt_expect "plan mismatch note, trailing plan, skip-all, bail" "TAP version 13
1..3
ok 1 a
# Planned tests != run tests (3 != 1)
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0
TAP version 13
ok 1 a
ok 2 b # SKIP
1..2
# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:1 error:0
TAP version 13
1..0 # SKIP not root
# Totals: pass:0 fail:0 xfail:0 xpass:0 skip:0 error:0
TAP version 13
1..2
ok 1 a
  KTAP version 1
Bail out! lost agent 7" "$( (w_short) || true; (w_noplan) || true; (w_skipall) || true; (w_bail) || true)"
}

t_run() {
	tt_expect "tap_run maps exit codes" "TAP version 13
1..3
ok 1 yes
ok 2 skipped # SKIP
# exit=3
not ok 3 broken" "$(w_run)"
}

t_embed() {
	tt_expect "tap_embed: a KTAP subtest one level down, version line made or added, a late plan hoisted" "TAP version 13
1..3
  KTAP version 1
  1..1

  ok 1 x
ok 1 inner
  KTAP version 1
  1..1

    KTAP version 1
    # Subtest: a/b _1
    1..1
    ok 1 y
  ok 1 plain
ok 2 outer
  KTAP version 1
  # Subtest: late
  1..1
  ok 1 z
ok 3 empty" "$(w_embed)"
}

# tt_prove NAME WANT_OK WRITER: prove's verdict on the writer's stream.
tt_prove() {
	local rc=0

	("$3") >"$T/s.tap" || true
	prove -e cat "$T/s.tap" >"$T/prove.out" 2>&1 || rc=$?
	if { [ "$2" = yes ] && [ "$rc" -eq 0 ]; } || { [ "$2" = no ] && [ "$rc" -ne 0 ]; }; then
		tap_ok "$1"
	else
		tap_diag "$(cat "$T/s.tap" "$T/prove.out")"
		tap_fail "$1" "prove exit=$rc"
	fi
}

w_good() {
	tap_init
	tap_plan 4
	tap_kv n 1
	tap_sub_begin
	tap_plan 1
	tap_ok inner
	tap_sub_end sub
	tap_skip s why
	tap_xfail x known
	tap_ok "desc with # hash"
	tap_totals
}

w_timeout() { tap_init; tap_plan 1; tap_timeout slow "5 seconds"; }
w_failreason() { tap_init; tap_plan 1; tap_fail "must stay a failure" "skip me"; }

t_prove() {
	if ! command -v prove >/dev/null; then
		for _ in 1 2 3 4 5; do
			tap_skip "prove" "prove not found"
		done
		return 0
	fi
	tt_prove "prove accepts a nested stream" yes w_good
	tt_prove "prove accepts skip-all" yes w_skipall
	tt_prove "prove rejects a plan mismatch" no w_short
	tt_prove "prove rejects a timeout" no w_timeout
	tt_prove "prove rejects a fail whose reason starts with skip" no w_failreason
}

tap_init
tap_plan 13
t_flat
t_directives
t_sanitize
t_nested
t_exit_codes
t_plan_notes
t_run
t_embed
t_prove
tap_finished
