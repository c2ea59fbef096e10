#!/bin/bash
# tests/vm-selftest.t: vm/run's own contract, checked by booting the real VM.
# TAP 13 on stdout (prove runs it); SKIP (exit 4) when qemu or the kernel is missing.
#   exit status = the command's (0, 1, 7); 124 when the command outlives --timeout;
#   125 with the console tail when the VM fails (garbage initrd, boot hang), long
#   before --timeout; stdout and stderr arrive on the caller's; --share and --env
#   work; usage errors exit 2; an interrupted run leaves no qemu and no temp dir;
#   vm/fetch-kernel answers from its cache without the network.
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
run=$root/vm/run
n=0 nfail=0 npass=0
work=

ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		npass=$((npass + 1))
		echo "ok $n $2"
	else
		nfail=$((nfail + 1))
		echo "not ok $n $2"
	fi
	return "$1"
}

diag() { echo "# $*"; }

# Shows what vm/run said when a check failed.
show() {
	local f
	for f in "$@"; do
		[ -s "$f" ] && tail -n 20 "$f" | sed "s|^|#   ${f##*/}: |"
	done
	return 0
}

skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $*"
	exit 4
}

# Seconds since $1 ($EPOCHREALTIME), to 0.01 s.
since() {
	local d=$(((${EPOCHREALTIME/./} - ${1/./}) / 10000))
	printf '%d.%02d' $((d / 100)) $((d % 100))
}

# vm NAME ARGS...: runs vm/run ARGS with stdout/stderr into $work/NAME.{out,err};
# sets rc and wall.
vm() {
	local name=$1 t0
	shift
	t0=$EPOCHREALTIME
	"$run" "$@" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	wall=$(since "$t0")
}

cleanup() {
	[ -z "$work" ] || rm -rf -- "$work"
}

t_true() {
	local boot
	vm true -v -- true
	boot=$(sed -n 's/.*boot_s=\([0-9.]*\).*/\1/p' "$work/true.err")
	diag "boot_s=${boot:-none} wall_s=$wall $(grep -o 'host_load1=[0-9.]*' "$work/true.err")"
	[ "$rc" = 0 ] && [ -n "$boot" ]
	ok $? "vm/run -- true exits 0 (rc=$rc)" || show "$work/true.err"
}

t_false() {
	vm false -- false
	diag "wall_s=$wall"
	[ "$rc" = 1 ]
	ok $? "vm/run -- false exits 1 (rc=$rc)" || show "$work/false.err"
}

t_exit7() {
	vm exit7 -- sh -c 'exit 7'
	diag "wall_s=$wall"
	[ "$rc" = 7 ]
	ok $? "vm/run -- sh -c 'exit 7' exits 7 (rc=$rc)" || show "$work/exit7.err"
}

# stdout and stderr each reach their own stream; the guest is root in our cwd, on
# the VM kernel, with the caller's --env variables and nothing else of ours.
t_streams() {
	local r=0 kver='[^:]*'
	[ -n "${VM_KERNEL:-}" ] ||
		kver=$(basename "$(find "$root/build/vm/kernel/current/lib/modules" -mindepth 1 -maxdepth 1)")
	# shellcheck disable=SC2016 # expanded by the guest's sh
	CHECK_VMSELF='a b$c' vm streams --env CHECK_VMSELF --env CHECK_SET=x -- \
		sh -c 'echo "out:$(id -u):$(pwd):$CHECK_VMSELF:$CHECK_SET:${HOSTONLY-unset}:$(uname -r)"; echo err:2 >&2'
	diag "wall_s=$wall"
	grep -qx "out:0:$root:a b\\\$c:x:unset:$kver" "$work/streams.out" || r=1
	grep -qx 'err:2' "$work/streams.err" || r=1
	! grep -q 'err:2' "$work/streams.out" || r=1
	[ "$rc" = 0 ] || r=1
	ok $r "command stdout/stderr reach ours, --env passes variables (rc=$rc)" ||
		show "$work/streams.out" "$work/streams.err"
}

t_share() {
	local d=$work/share
	mkdir -p "$d"
	vm share --share "$d" -- sh -c "seq 1 100000 > '$d/result' && mkdir '$d/sub' && echo hi > '$d/sub/f'"
	diag "wall_s=$wall"
	[ "$rc" = 0 ] && [ "$(tail -n 1 "$d/result" 2>/dev/null)" = 100000 ] &&
		[ "$(cat "$d/sub/f" 2>/dev/null)" = hi ]
	ok $? "a file written to a --share dir appears on the host (rc=$rc)" || show "$work/share.err"
}

# A checkout under /tmp, in a folder with a space, with its VM kernel inside it: the
# guest mounts its own /tmp, so vm/run must keep both visible there.
t_tmpdir() {
	local d="$work/a checkout" k kv t0 r=0
	k=$(cd "$root/build/vm/kernel/current" && pwd -P) || { ok 1 "checkout under /tmp: no kernel"; return; }
	kv=${k##*/}
	mkdir -p "$d/build/vm/kernel" || r=1
	cp -a "$root/vm" "$d/vm" || r=1
	# hard links: same file system, no 140 MB copy
	cp -al "$k" "$d/build/vm/kernel/$kv" 2>/dev/null || cp -a "$k" "$d/build/vm/kernel/$kv" || r=1
	ln -s "$kv" "$d/build/vm/kernel/current" || r=1
	t0=$EPOCHREALTIME
	(cd "$d" && env -u VM_KERNEL vm/run -- sh -c 'pwd; modprobe rdma_rxe && echo rxe') \
		>"$work/tmpdir.out" 2>"$work/tmpdir.err"
	rc=$?
	wall=$(since "$t0")
	diag "wall_s=$wall"
	[ "$rc" = 0 ] && [ "$(head -n 1 "$work/tmpdir.out")" = "$d" ] &&
		grep -qx rxe "$work/tmpdir.out" || r=1
	ok $r "vm/run from a checkout under /tmp with a space, kernel inside it (rc=$rc)" ||
		show "$work/tmpdir.out" "$work/tmpdir.err"
}

# Random bytes as initramfs: the kernel cannot mount a root and panics; panic=-1 and
# -no-reboot make that a quick qemu exit, which must read as "VM failed".
t_garbage() {
	head -c 65536 /dev/urandom >"$work/garbage.img"
	vm garbage --initrd "$work/garbage.img" -- true
	diag "fail_s=$wall (timeout 600)"
	[ "$rc" = 125 ] && grep -q 'last 40 lines of the guest console' "$work/garbage.err" &&
		grep -q '^  | .*Kernel panic' "$work/garbage.err" &&
		[ "${wall%.*}" -lt 60 ]
	ok $? "unbootable initrd exits 125 with the console tail, before the timeout (rc=$rc)" ||
		show "$work/garbage.err"
}

# rdcvm.hang makes the first stage hang before the command: --boot-timeout must end it.
t_hang() {
	vm hang --boot-timeout 25 --append rdcvm.hang -- true
	diag "fail_s=$wall (boot-timeout 25)"
	[ "$rc" = 125 ] && grep -q 'rdcvm.hang given' "$work/hang.err" && [ "${wall%.*}" -lt 45 ]
	ok $? "a boot that hangs exits 125 at --boot-timeout (rc=$rc)" || show "$work/hang.err"
}

t_timeout() {
	vm timeout --timeout 25 -- sleep 600
	diag "fail_s=$wall (timeout 25)"
	[ "$rc" = 124 ] && [ "${wall%.*}" -lt 45 ]
	ok $? "a command that outlives --timeout exits 124 (rc=$rc)" || show "$work/timeout.err"
}

# The cached path must answer without the network, and bad selections must fail.
t_fetch() {
	local k=$root/build/vm/kernel out t0 r=0 dir
	if [ ! -e "$k/sid" ]; then
		n=$((n + 1))
		echo "ok $n vm/fetch-kernel answers from its cache # SKIP no cached sid kernel"
		return
	fi
	dir=$(cd "$k/sid" && pwd -P)
	t0=$EPOCHREALTIME
	out=$(env -u VM_KERNEL "$root/vm/fetch-kernel" 2>"$work/fetch.err") || r=1
	wall=$(since "$t0")
	diag "cached_fetch_s=$wall"
	[ "$out" = "$dir" ] && [ "${wall%.*}" -lt 2 ] || r=1
	[ "$(VM_KERNEL=$dir "$root/vm/fetch-kernel" 2>>"$work/fetch.err")" = "$dir" ] || r=1
	! VM_KERNEL=nosuchsuite "$root/vm/fetch-kernel" 2>>"$work/fetch.err" >/dev/null || r=1
	! VM_KERNEL=/nonexistent "$root/vm/fetch-kernel" 2>>"$work/fetch.err" >/dev/null || r=1
	[ "$(readlink "$k/current")" = "$(readlink "$k/sid")" ] || r=1
	ok $r "vm/fetch-kernel answers from its cache, takes a tree, rejects bad VM_KERNEL" ||
		show "$work/fetch.err"
}

t_usage() {
	vm usage --no-such-flag -- true
	[ "$rc" = 2 ] && grep -q '^usage:' "$work/usage.err"
	ok $? "an unknown flag exits 2 with usage (rc=$rc)" || show "$work/usage.err"
}

# Killing vm/run mid-command (as CI's own timeout would) must take qemu down with it
# and remove its temp dir. TERM, not INT: background jobs of a script ignore SIGINT.
t_interrupt() {
	local d=$work/tmpdir pid i q r=0
	mkdir -p "$d"
	TMPDIR=$d "$run" -- sleep 600 >"$work/intr.out" 2>"$work/intr.err" &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		ls "$d"/rdcvm.*/job/started >/dev/null 2>&1 && break
		sleep 0.1
	done
	q=$(pgrep -f -- "path=$d/rdcvm" | head -n 1)
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" = 143 ] || r=1
	[ -n "$q" ] || r=1
	sleep 0.5
	[ -z "$q" ] || ! kill -0 "$q" 2>/dev/null || r=1
	[ -z "$(ls -A "$d")" ] || r=1
	ok $r "SIGTERM ends qemu and removes the temp dir (rc=$rc qemu=${q:-none})" ||
		show "$work/intr.err"
}

all="fetch usage true false exit7 streams share tmpdir garbage hang timeout interrupt"

main() {
	local t0 c
	command -v qemu-system-x86_64 >/dev/null || skip_all "qemu-system-x86_64 not found"
	if [ -z "${VM_KERNEL:-}" ] && [ ! -f "$root/build/vm/kernel/current/vmlinuz" ]; then
		skip_all "no VM kernel in build/vm/kernel/current (make vm-kernel)"
	fi
	# The guest sees the host's filesystem except /tmp and /run: run from the repo.
	cd "$root" || exit 1
	export HOSTONLY=leak
	work=$(mktemp -d "${TMPDIR:-/tmp}/rdcvmself.XXXXXX") || exit 1
	trap cleanup EXIT
	# Arguments pick tests by name (e.g. "true share"); none means all.
	# shellcheck disable=SC2086 # a list of names
	[ $# -gt 0 ] || set -- $all
	for c in "$@"; do
		case " $all " in *" $c "*) ;; *) echo "usage: $0 [$all]" >&2; exit 2 ;; esac
	done
	echo "TAP version 13"
	echo "1..$#"
	t0=$EPOCHREALTIME
	for c in "$@"; do
		"t_$c"
	done
	diag "total_s=$(since "$t0")"
	echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:0 error:0"
	[ "$nfail" = 0 ]
}

main "$@"
