# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# tap.sh: TAP 13 / KTAP writer for shell suites, the counterpart of tap.h and of
# kselftest's ktap_helpers.sh. Source it from bash (works under set -eu):
#
#   . tap/tap.sh
#   tap_init; tap_plan 3
#   tap_kv clients 10
#   tap_ok "connect 10"
#   tap_fail "connect 50" "exit=1"        # the reason goes on a "# " line before
#   tap_skip "storm" "no rxe"             # ok 3 storm # SKIP no rxe
#   tap_finished                          # Totals, then exit 0/1/4
#
# Nesting: tap_sub_begin indents by two spaces (TAP_INDENT) and opens a level
# with its own "KTAP version 1" line and plan (KTAP; the top level stays
# "TAP version 13" as in kselftest); tap_sub_end "desc" closes it and writes the
# parent's result, computed from the level's results like tap_sub_end() in C.
# Only the outermost level counts into Totals. Timeouts count as fail in Totals.

TAP_EXIT_PASS=0
TAP_EXIT_FAIL=1
# shellcheck disable=SC2034 # for the programs that source this
TAP_EXIT_USAGE=2
TAP_EXIT_SKIP=4

TAP_INDENT=${TAP_INDENT-}
TAP_STACK=()

tap__reset() {
	TAP_N=0 TAP_PLAN=-1
	TAP_PASS=0 TAP_FAIL=0 TAP_XFAIL=0 TAP_XPASS=0
	TAP_SKIP=0 TAP_TIMEOUT=0 TAP_ERROR=0
}

tap__line() {
	printf '%s%s\n' "$TAP_INDENT" "$1"
}

# Newlines would end the line early; '#' in a description starts a directive.
tap__clean() {
	local s=${1//$'\n'/ }
	s=${s//$'\r'/ }
	if [ "${2-}" = desc ]; then
		s=${s//#/_}
	fi
	printf '%s' "$s"
}

tap_init() {
	tap__reset
	TAP_STACK=()
	TAP_BAILED=0
	tap__line "TAP version 13"
}

tap_plan() {
	TAP_PLAN=$1
	tap__line "1..$1"
}

tap_skip_all() {
	TAP_PLAN=0
	tap__line "1..0 # SKIP $(tap__clean "$*")"
}

tap_diag() {
	local line msg=$*

	msg=${msg%$'\n'}
	if [ -z "$msg" ]; then
		tap__line "#"
		return 0
	fi
	while IFS= read -r line; do
		tap__line "# $line"
	done <<<"$msg"
}

tap_kv() {
	local key=$1
	shift
	key=${key//[=#[:space:]]/_}
	tap__line "# $key=$(tap__clean "$*")"
}

# tap_result pass|fail|skip|xfail|xpass|timeout|error DESC [REASON]
tap_result() {
	local res=$1 desc reason=${3-} word="" not=""

	desc=$(tap__clean "${2-}" desc)
	reason=$(tap__clean "$reason")
	case $res in
	pass) TAP_PASS=$((TAP_PASS + 1)) ;;
	fail) TAP_FAIL=$((TAP_FAIL + 1)) not="not " ;;
	skip) TAP_SKIP=$((TAP_SKIP + 1)) word=SKIP ;;
	xfail) TAP_XFAIL=$((TAP_XFAIL + 1)) word=XFAIL ;;
	xpass) TAP_XPASS=$((TAP_XPASS + 1)) word=XPASS ;;
	timeout) TAP_TIMEOUT=$((TAP_TIMEOUT + 1)) word=TIMEOUT not="not " ;;
	*) TAP_ERROR=$((TAP_ERROR + 1)) word=ERROR not="not " ;;
	esac
	TAP_N=$((TAP_N + 1))
	[ -n "$desc" ] && desc=" $desc"
	if [ -z "$word" ]; then
		# Inline, "# skip..." would read as a directive: own line instead.
		[ -n "$reason" ] && tap__line "# $reason"
		tap__line "${not}ok $TAP_N$desc"
	else
		tap__line "${not}ok $TAP_N$desc # $word${reason:+ $reason}"
	fi
	return 0
}

tap_ok() { tap_result pass "$@"; }
tap_fail() { tap_result fail "$@"; }
tap_skip() { tap_result skip "$@"; }
tap_xfail() { tap_result xfail "$@"; }
tap_xpass() { tap_result xpass "$@"; }
tap_timeout() { tap_result timeout "$@"; }
tap_error() { tap_result error "$@"; }

# tap_run DESC CMD...: one result from a command's kselftest exit code.
tap_run() {
	local desc=$1 rc=0
	shift
	"$@" || rc=$?
	case $rc in
	0) tap_ok "$desc" ;;
	4) tap_skip "$desc" ;;
	*) tap_fail "$desc" "exit=$rc" ;;
	esac
}

# tap_embed [FILE [NAME]]: a program's own stream (FILE, or stdin) as a KTAP
# subtest one level below the current: indented two spaces, opened by "KTAP
# version 1" (its own first version line becomes that; plain TAP without one,
# like bats', gets one). "# Subtest: NAME" follows when NAME is given, as KUnit
# writes it: a diagnostic to KTAP, but it lets kunit.py find the end of a
# block whose plan was cut short (a crash) by the parent's result line. Empty
# input stays empty.
tap_embed() {
	local line seen=0 late='' result=0 i
	local -a lines

	mapfile -t lines <"${1:-/dev/stdin}"
	# KTAP wants the plan right after the version line: a parser that meets a
	# result first takes it for the block's own result. A late plan (TAP 13
	# allows one at the end) is hoisted there.
	for i in "${!lines[@]}"; do
		case ${lines[$i]} in
		"ok "* | "not ok "*) result=1 ;;
		1..[0-9]*)
			[ "$result" -eq 0 ] || { late=${lines[$i]}; unset "lines[$i]"; }
			break
			;;
		esac
	done
	for line in "${lines[@]}"; do
		if [ "$seen" -eq 0 ] && [ -n "${line//[[:space:]]/}" ]; then
			seen=1
			tap__line "  KTAP version 1"
			[ -z "${2-}" ] || tap__line "  # Subtest: $(tap__clean "$2" desc)"
			[ -z "$late" ] || tap__line "  $late"
			case $line in
			"TAP version "* | "KTAP version "*) continue ;;
			esac
		fi
		if [ -n "$line" ]; then
			tap__line "  $line"
		else
			printf '\n'
		fi
	done
}

tap__bad() {
	[ $((TAP_FAIL + TAP_TIMEOUT + TAP_ERROR + TAP_XPASS)) -gt 0 ] && return 0
	[ "$TAP_PLAN" -ge 0 ] && [ "$TAP_PLAN" -ne "$TAP_N" ]
}

# A level without a plan gets a trailing one, else kselftest's mismatch note.
tap__plan_note() {
	if [ "$TAP_PLAN" -lt 0 ]; then
		tap_plan "$TAP_N"
	elif [ "$TAP_PLAN" -ne "$TAP_N" ]; then
		tap__line "# Planned tests != run tests ($TAP_PLAN != $TAP_N)"
	fi
	return 0
}

tap_sub_begin() {
	TAP_STACK+=("$TAP_N $TAP_PLAN $TAP_PASS $TAP_FAIL $TAP_XFAIL $TAP_XPASS $TAP_SKIP $TAP_TIMEOUT $TAP_ERROR")
	TAP_INDENT="$TAP_INDENT  "
	tap__reset
	tap__line "KTAP version 1"
}

# tap_sub_end DESC: closes the level, prints and returns nothing; the verdict
# is in TAP_SUB_RES (pass, fail or skip).
tap_sub_end() {
	local top=$((${#TAP_STACK[@]} - 1))

	if [ "$top" -lt 0 ]; then
		echo "tap_sub_end without tap_sub_begin" >&2
		return 1
	fi
	tap__plan_note
	if tap__bad; then
		TAP_SUB_RES=fail
	elif [ "$TAP_N" -eq "$TAP_SKIP" ]; then
		TAP_SUB_RES=skip
	else
		TAP_SUB_RES=pass
	fi
	read -r TAP_N TAP_PLAN TAP_PASS TAP_FAIL TAP_XFAIL TAP_XPASS TAP_SKIP \
		TAP_TIMEOUT TAP_ERROR <<<"${TAP_STACK[$top]}"
	unset "TAP_STACK[$top]"
	TAP_INDENT=${TAP_INDENT%  }
	tap_result "$TAP_SUB_RES" "$1"
}

# Ends the whole stream: unindented, counted as an error.
tap_bail() {
	TAP_BAILED=1
	printf 'Bail out! %s\n' "$(tap__clean "$*")"
}

tap_totals() {
	tap__plan_note
	tap__line "# Totals: pass:$TAP_PASS fail:$((TAP_FAIL + TAP_TIMEOUT)) xfail:$TAP_XFAIL xpass:$TAP_XPASS skip:$TAP_SKIP error:$((TAP_ERROR + TAP_BAILED))"
}

# Prints the kselftest exit code of the current level: 0 pass, 1 fail, 4 skipped.
tap_exit_code() {
	if [ "$TAP_BAILED" -ne 0 ] || tap__bad; then
		echo "$TAP_EXIT_FAIL"
	elif [ "$TAP_N" -eq "$TAP_SKIP" ]; then
		echo "$TAP_EXIT_SKIP"
	else
		echo "$TAP_EXIT_PASS"
	fi
}

tap_exit() {
	exit "$(tap_exit_code)"
}

tap_finished() {
	tap_totals
	tap_exit
}

tap__reset
TAP_BAILED=0
