#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Tests of tests/check (and through it suites/lib/runner.sh, suites/vm/run-in-vm
# and suites/lib/common.bash) against throwaway fixture programs: pass, fail,
# lie (exit 0 after "not ok"), short plan, crash, skip, timeout, kernel warning,
# nested output, bats files, and a fake vm/run. Checks the merged stream line by
# line, exit codes, SKIP reasons, TIMEOUT, process-group kill, fd 3, JUnit.
set -eu

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

FX=$T/fx
tl_cleanup() {
	local f
	# Fixture background sleeps: their PIDs are on file; kill only those.
	for f in "$FX"/*.pid; do
		if [ -f "$f" ]; then
			kill "$(cat "$f")" 2>/dev/null || true
		fi
	done
}

# mk FILE MODE: writes stdin to FILE.
mk() {
	mkdir -p "$(dirname "$1")"
	cat >"$1"
	chmod "$2" "$1"
}

fixtures() {
	mk "$FX/unit/test_pass" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..2\nok 1 a\nok 2 b # SKIP x\n'
	EOF
	mk "$FX/unit/test_fail" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..1\nnot ok 1 broken\n'
	exit 1
	EOF
	mk "$FX/unit/test_lies" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..2\nok 1 a\nnot ok 2 b\n'
	EOF
	mk "$FX/unit/test_short" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..3\nok 1 a\n'
	EOF
	mk "$FX/unit/test_crash" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..1\n'
	kill -SEGV $$
	EOF
	mk "$FX/unit/test_noexec" 644 </dev/null

	mk "$FX/t/ok.t" 755 <<-EOF
	#!/bin/bash
	set -eu
	. "$ROOT/tap/tap.sh"
	tap_init; tap_plan 1; tap_ok "from tap.sh"; tap_finished
	EOF

	mk "$FX/suites/pass.bats" 644 <<-EOF
	load "$ROOT/suites/lib/common"
	@test "passes" { true; }
	@test "a background process does not hold fd 3" {
		rdc_bg sleep 60
		echo "\$RDC_BG_PID" >"$FX/bg.pid"
	}
	@test "kv parser" {
		rdc_kv_parse "\$(printf '# qp=10\n  # limit.n=21802\n# not a kv\n# baseline: pd=1 cause=ENOMEM from ibv_create_qp\n# Totals: pass:3 fail:1 xfail:0 xpass:0 skip:2 error:0\n')"
		assert_equal "\$(rdc_kv qp)" 10
		assert_equal "\$(rdc_kv limit.n)" 21802
		assert_equal "\$(rdc_kv pd)" 1
		assert_equal "\$(rdc_kv cause)" "ENOMEM from ibv_create_qp"
		assert_equal "\${RDC_TOTALS[skip]}" 2
		run rdc_kv missing
		assert_failure
	}
	@test "rdc_run: TAP on stdout, logs apart, kv and totals parsed" {
		RDMACAP="$FX/fake-rdmacap"
		rdc_run run --clients 3
		assert_success
		assert_equal "\$stderr" "fake: log line"
		assert_equal "\$(rdc_kv clients)" 3
		assert_equal "\${RDC_TOTALS[pass]}" 1
	}
	@test "rdc_run: RDC_TIMEOUT deadline" {
		RDMACAP="$FX/fake-rdmacap" RDC_TIMEOUT=1
		rdc_run sleep
		assert_equal "\$status" 124
	}
	@test "skips one" { skip "just this one"; }
	EOF
	mk "$FX/fake-rdmacap" 755 <<-'EOF'
	#!/bin/sh
	[ "$1" = sleep ] && exec sleep 30
	echo "fake: log line" >&2
	printf 'TAP version 13\n1..1\n# clients=%s\nok 1 x\n' "$3"
	echo "# Totals: pass:1 fail:0 xfail:0 xpass:0 skip:0 error:0"
	EOF
	mk "$FX/suites/skip.bats" 644 <<-EOF
	load "$ROOT/suites/lib/common"
	setup() { RDC_WHY="not root"; skip "\$RDC_WHY"; }
	@test "one" { true; }
	@test "two" { true; }
	EOF
	mk "$FX/suites/fail.bats" 644 <<-'EOF'
	@test "fails" { false; }
	EOF
	mk "$FX/suites/skip.sh" 755 <<-'EOF'
	#!/bin/sh
	echo "1..0 # SKIP not root"
	exit 4
	EOF
	mk "$FX/suites/slow.sh" 755 <<-EOF
	#!/bin/sh
	printf 'TAP version 13\n1..1\n'
	sleep 60 &
	echo \$! >"$FX/slow.pid"
	sleep 60
	EOF
	mk "$FX/suites/warn.sh" 755 <<-EOF
	#!/bin/sh
	echo "[    9.9] WARNING: CPU: 1 PID: 42 at drivers/infiniband/sw/rxe/rxe_qp.c:1" >>"$FX/kmsg"
	printf 'TAP version 13\n1..1\nok 1 looks fine\n'
	EOF
	mk "$FX/suites/nested.sh" 755 <<-EOF
	#!/bin/bash
	set -eu
	. "$ROOT/tap/tap.sh"
	tap_init; tap_plan 1
	tap_sub_begin; tap_plan 1; tap_kv qp 10; tap_ok "inner point"; tap_sub_end "ramp"
	tap_finished
	EOF
	mk "$FX/suites/vm/a.sh" 755 <<-'EOF'
	#!/bin/sh
	printf 'TAP version 13\n1..1\nok 1 guest-a\n'
	EOF
	mk "$FX/suites/vm/b.bats" 644 <<-'EOF'
	@test "guest b" { skip "no rxe here"; }
	EOF

	mk "$FX/settings" 644 <<-'EOF'
	# fixture settings
	timeout=30
	slow.timeout = 2
	EOF
	echo "[    0.0] Linux version fixture" | mk "$FX/kmsg" 644
	: | mk "$FX/kernel/vmlinuz" 644
	# vm/run's interface; runs the command here, with the --env variables.
	mk "$FX/vm/run" 755 <<-EOF
	#!/bin/bash
	printf '%s\n' "\$*" >"$FX/vm.args"
	while [ "\$1" != -- ]; do
		[ "\$1" = --env ] && export "\$2"
		shift
	done
	shift
	if [ -n "\${FAKE_VM_FAIL-}" ]; then
		echo "vm/run: boot failed" >&2
		exit 125
	fi
	exec "\$@"
	EOF
	# Subsets for the all-pass, all-skip and VM-only runs.
	mkdir -p "$FX/unit-ok" "$FX/suites-ok/vm" "$FX/suites-skip" "$FX/suites-vm"
	cp -p "$FX/unit/test_pass" "$FX/unit-ok/"
	cp -p "$FX/suites/nested.sh" "$FX/suites/vm/a.sh" "$FX/suites-ok/"
	cp -p "$FX/suites/skip.sh" "$FX/suites/skip.bats" "$FX/suites-skip/"
	cp -rp "$FX/suites/vm" "$FX/suites-vm/"
	mkdir -p "$FX/suites-warn"
	cp -p "$FX/suites/warn.sh" "$FX/suites/nested.sh" "$FX/suites-warn/"
	# the second kernel's suite set beside suites/vm
	mkdir -p "$FX/suites-lts/vm-lts"
	cp -rp "$FX/suites/vm" "$FX/suites-lts/"
	cp -p "$FX/suites/vm/a.sh" "$FX/suites-lts/vm-lts/c.sh"
	: | mk "$FX/ltskernel/vmlinuz" 644
}

# check NAME [VAR=VALUE...]: runs tests/check on the fixtures; output in
# $T/NAME.out, .err, .rc, and the top-level result lines in $T/NAME.res.
check() {
	local name=$1 rc=0
	shift
	env CHECK_UNIT_DIRS="$FX/unit $FX/missing" CHECK_TESTS_DIR="$FX/t" \
		CHECK_SUITES_DIR="$FX/suites" CHECK_SETTINGS="$FX/settings" \
		CHECK_VM=auto CHECK_HOST_RXE=no CHECK_VM_RUN="$FX/vm/run" \
		CHECK_VM_KERNEL="$FX/kernel" CHECK_LOG_DIR="$T/$name.log" \
		CHECK_JUNIT_DIR="$T/$name.junit" CHECK_DMESG="cat $FX/kmsg" \
		CHECK_KMSG="$FX/kmsg" CHECK_VERBOSE= "$@" \
		"$ROOT/tests/check" >"$T/$name.out" 2>"$T/$name.err" </dev/null || rc=$?
	echo "$rc" >"$T/$name.rc"
	grep -E '^(not )?ok ' "$T/$name.out" >"$T/$name.res" || true
}

# same DESC WANT FILE: FILE's text equals WANT.
same() {
	local got
	got=$(cat "$3")
	if [ "$2" = "$got" ]; then
		tap_ok "$1"
	else
		tap_diag "$(diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$got") || true)"
		tap_fail "$1"
	fi
}

# has DESC FILE LINE...: FILE contains each LINE exactly.
has() {
	local desc=$1 file=$2 l miss=""
	shift 2
	for l in "$@"; do
		grep -qxF -- "$l" "$file" || miss="$miss${miss:+; }$l"
	done
	if [ -z "$miss" ]; then
		tap_ok "$desc"
	else
		tap_diag "missing: $miss"
		tap_diag "$(cat "$file")"
		tap_fail "$desc"
	fi
}

# Only TAP on stdout: version, plans, results, diagnostics, nested lines.
tap_only() {
	local bad
	bad=$(grep -nvE '^(TAP version 13|1\.\.[0-9]+( # SKIP.*)?|(not )?ok [0-9]+.*|#.*| +.*|)$' "$2" || true)
	if [ -z "$bad" ]; then
		tap_ok "$1"
	else
		tap_diag "not TAP: $bad"
		tap_fail "$1"
	fi
}

# alive PIDFILE: running (a zombie left for a reaper-less init doesn't count).
alive() {
	local st
	[ -f "$1" ] || return 1
	st=$(awk '{ print $3 }' "/proc/$(cat "$1")/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

t_mixed() {
	check mixed
	same "mixed run: exit 1" 1 "$T/mixed.rc"
	same "mixed run: one result per program, verdicts and directives" "not ok 1 unit/test_crash
not ok 2 unit/test_fail
not ok 3 unit/test_lies
not ok 4 unit/test_noexec # ERROR not executable
ok 5 unit/test_pass
not ok 6 unit/test_short
not ok 7 fx/missing # ERROR no such directory
ok 8 t/ok.t
not ok 9 suites/fail.bats
ok 10 suites/pass.bats
ok 11 suites/skip.bats # SKIP not root
ok 12 suites/nested.sh
ok 13 suites/skip.sh # SKIP not root
not ok 14 suites/slow.sh # TIMEOUT 2 seconds
not ok 15 suites/warn.sh
ok 16 vm" "$T/mixed.res"
	has "mixed run: failure reasons before their results" "$T/mixed.out" \
		"# exit=139 (SIGSEGV)" "# exit=1" "# exit 0 after 1 failed test(s)" \
		"# planned 3 tests, ran 1" \
		"# kernel warning in dmesg ($T/mixed.log/suites_warn.sh.dmesg)" \
		"# [    9.9] WARNING: CPU: 1 PID: 42 at drivers/infiniband/sw/rxe/rxe_qp.c:1"
	has "mixed run: programs' TAP nested 2 spaces, subtests 4, guest suites 4" \
		"$T/mixed.out" "  KTAP version 1" "  ok 1 from tap.sh" "  not ok 1 broken" \
		"    # qp=10" "    ok 1 inner point" "  ok 1 ramp" \
		"    ok 1 guest-a" "  ok 2 vm/a.sh" "  ok 1 vm/b.bats # SKIP no rxe here" \
		"    ok 1 guest b # skip no rxe here"
	same "bats' plain TAP gets the nested version line KTAP wants" "# suites/fail.bats
  KTAP version 1
  # Subtest: suites/fail.bats
  1..1" <(grep -A3 -xF "# suites/fail.bats" "$T/mixed.out")
	same "KTAP: a program's own version line becomes KTAP's, at every depth" "  KTAP version 1
  # Subtest: t/ok.t
  1..1
  KTAP version 1
  # Subtest: suites/nested.sh
  1..1
    KTAP version 1
    1..1
    KTAP version 1
    # Subtest: vm/a.sh
    1..1
0" <(grep -A3 -xF '# t/ok.t' "$T/mixed.out" | tail -n 3
		grep -A5 -xF '# suites/nested.sh' "$T/mixed.out" | tail -n 5
		grep -A3 -xF '  # vm/a.sh' "$T/mixed.out" | tail -n 3
		grep -cE '^ +TAP version' "$T/mixed.out")
	has "mixed run: totals" "$T/mixed.out" \
		"# Totals: pass:5 fail:7 xfail:0 xpass:0 skip:2 error:2"
	tap_only "mixed run: stdout is TAP only" "$T/mixed.out"
	has "mixed run: progress on stderr" "$T/mixed.err" \
		"check: [14/16] suites/slow.sh (timeout 2s)"
	if alive "$FX/slow.pid"; then
		tap_fail "timeout kills the program's whole process group"
	else
		tap_ok "timeout kills the program's whole process group"
	fi
	if alive "$FX/bg.pid"; then
		tap_ok "bats finishes while an rdc_bg process still runs (fd 3 closed)"
	else
		tap_fail "bats finishes while an rdc_bg process still runs (fd 3 closed)"
	fi
	same "vm/run gets kernel, settings timeout, shares, env, run-in-vm" \
		"--kernel $FX/kernel --timeout 30 --share $ROOT --share $FX/suites --share $T/mixed.log --env CHECK_VM_SUITES_DIR=$FX/suites/vm --env CHECK_SETTINGS=$FX/settings --env CHECK_LOG_DIR=$T/mixed.log/vm -- $ROOT/suites/vm/run-in-vm" \
		"$FX/vm.args"
	t_junit mixed 16
	if grep -q '<testsuite name="fail.bats" tests="1" failures="1" errors="0" skipped="0"' \
		"$T/mixed.junit/suites_fail.bats.xml"; then
		tap_ok "JUnit: bats' own report for a bats file"
	else
		tap_diag "$(cat "$T/mixed.junit/suites_fail.bats.xml")"
		tap_fail "JUnit: bats' own report for a bats file"
	fi
	if grep -q '<error message="timeout: 2 seconds"/>' "$T/mixed.junit/suites_slow.sh.xml" &&
		grep -q '<failure message="fail: kernel warning in dmesg' "$T/mixed.junit/suites_warn.sh.xml" &&
		grep -q '<failure message="not ok"/>' "$T/mixed.junit/unit_test_lies.xml"; then
		tap_ok "JUnit: timeout, dmesg and failed cases reported"
	else
		tap_fail "JUnit: timeout, dmesg and failed cases reported"
	fi
}

# t_junit RUN N: N files, each valid XML.
t_junit() {
	local n bad=""

	n=$(find "$T/$1.junit" -name '*.xml' | wc -l)
	if command -v xmllint >/dev/null; then
		bad=$(xmllint --noout "$T/$1.junit"/*.xml 2>&1) || true
	else
		tap_diag "xmllint not found: well-formedness not checked"
	fi
	if [ "$n" -eq "$2" ] && [ -z "$bad" ]; then
		tap_ok "$1 run: $2 JUnit files, well-formed"
	else
		tap_diag "$n files; $bad"
		tap_fail "$1 run: $2 JUnit files, well-formed"
	fi
}

t_pass() {
	check pass CHECK_UNIT_DIRS="$FX/unit-ok" CHECK_SUITES_DIR="$FX/suites-ok" CHECK_VM=no
	same "all-pass run: exit 0, vm skipped with CHECK_VM=no" "0
ok 1 unit-ok/test_pass
ok 2 t/ok.t
ok 3 suites-ok/a.sh
ok 4 suites-ok/nested.sh
ok 5 vm # SKIP CHECK_VM=no" <(cat "$T/pass.rc" "$T/pass.res")
	if command -v prove >/dev/null; then
		if prove -e cat "$T/pass.out" >"$T/prove.out" 2>&1; then
			tap_ok "prove accepts the merged stream"
		else
			tap_diag "$(cat "$T/prove.out")"
			tap_fail "prove accepts the merged stream"
		fi
	else
		tap_skip "prove accepts the merged stream" "prove not found"
	fi
}

t_skip() {
	check skip CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-skip" \
		CHECK_DMESG=false
	same "all-skip run: exit 4, reasons passed through" "4
ok 1 suites-skip/skip.bats # SKIP not root
ok 2 suites-skip/skip.sh # SKIP not root
ok 3 vm # SKIP no suites in suites-skip/vm" <(cat "$T/skip.rc" "$T/skip.res")
	has "unreadable kernel log: check skipped, said so" "$T/skip.out" \
		"# kernel log check skipped: false not readable"
}

# Without a writable /dev/kmsg (not root) new lines are found by count.
t_dmesg_count() {
	check count CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-warn" \
		CHECK_VM=no CHECK_KMSG="$FX/none/kmsg"
	same "kernel log without a marker: warning still found" "1
ok 1 suites-warn/nested.sh
not ok 2 suites-warn/warn.sh
ok 3 vm # SKIP CHECK_VM=no" <(cat "$T/count.rc" "$T/count.res")
}

t_vm() {
	check hostrxe CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-vm" \
		CHECK_HOST_RXE=yes
	same "host with rxe: VM suites run on the host" "0
ok 1 vm/b.bats # SKIP no rxe here
ok 2 vm/a.sh" <(cat "$T/hostrxe.rc" "$T/hostrxe.res")

	check nokernel CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-vm" \
		CHECK_VM_KERNEL="$FX/nokernel"
	same "no VM kernel: SKIP that says so" "4
ok 1 vm # SKIP no VM kernel in fx/nokernel (make vm-kernel needs the Debian mirror)" <(cat "$T/nokernel.rc" "$T/nokernel.res")
	# and loudly, after the totals, on stdout and stderr
	if grep -q '^# WARNING: no rxe suite ran' "$T/nokernel.out" &&
		grep -q 'WARNING: the rxe suites did not run: no VM kernel' "$T/nokernel.err"; then
		tap_ok "no VM kernel: a warning after the totals says no rxe suite ran"
	else
		tap_fail "no VM kernel: a warning after the totals says no rxe suite ran"
	fi

	check novmrun CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-vm" \
		CHECK_VM_RUN="$FX/vm/none"
	same "no vm/run: SKIP that says so" "4
ok 1 vm # SKIP vm/none not found" <(cat "$T/novmrun.rc" "$T/novmrun.res")

	check vmfail CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-vm" \
		FAKE_VM_FAIL=1
	same "VM that fails to boot: not ok, exit 125 shown" "1
# exit=125
not ok 1 vm" <(cat "$T/vmfail.rc"; grep -E '^(# exit|(not )?ok )' "$T/vmfail.out")
	has "VM failure: vm/run's stderr copied to stderr" "$T/vmfail.err" \
		"vm: vm/run: boot failed"

	# host rxe or not, suites/vm-lts is a boot of its own kernel
	check lts CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-lts" \
		CHECK_HOST_RXE=yes CHECK_VM_LTS_KERNEL="$FX/ltskernel"
	same "vm-lts: a second boot, of the LTS kernel, running suites/vm-lts" "0
ok 1 vm/b.bats # SKIP no rxe here
ok 2 vm/a.sh
ok 3 vm-lts
--kernel $FX/ltskernel --timeout 30 --share $ROOT --share $FX/suites-lts --share $T/lts.log --env CHECK_VM_SUITES_DIR=$FX/suites-lts/vm-lts --env CHECK_SETTINGS=$FX/settings --env CHECK_LOG_DIR=$T/lts.log/vm-lts -- $ROOT/suites/vm/run-in-vm" \
		<(cat "$T/lts.rc" "$T/lts.res" "$FX/vm.args")
	check nolts CHECK_UNIT_DIRS= CHECK_TESTS_DIR="$FX/none" CHECK_SUITES_DIR="$FX/suites-lts" \
		CHECK_VM_LTS_KERNEL="$FX/nolts"
	same "no LTS kernel: vm still boots, vm-lts SKIPs naming make vm-siw" "0
ok 1 vm
ok 2 vm-lts # SKIP no VM kernel in fx/nolts (make vm-siw needs the Debian mirror)" \
		<(cat "$T/nolts.rc" "$T/nolts.res")
}

fixtures
tap_init
tap_plan 28
t_mixed
t_pass
t_skip
t_dmesg_count
t_vm
tap_finished
