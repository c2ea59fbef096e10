#!/bin/bash
# suites/vm/userland.sh: the programs only the guest runs (sshd, munged, Slurm, Open MPI)
# are vm/fetch-userland's, laid over the guest's root by vm/run, and they run: each
# prints its version, the system users their packages would add exist in the guest,
# and the layer is the overlay's upper lower layer. TAP on stdout; exit 0 pass,
# 1 fail, 4 skip (no layer: the host has no build/vm/userland, see vm/README.md).
set -u

# shellcheck source=../lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

tap_init
rdc_need rdc_have_root
# vm/initrd-init mounts the layer at /mnt/layer and names it first in lowerdir
if ! grep -q ' / overlay .*lowerdir=/mnt/layer:' /proc/mounts; then
	tap_skip_all "no guest layer over / (vm/fetch-userland, make vm-userland)"
	exit "$TAP_EXIT_SKIP"
fi
tap_plan 6

# t_runs DESC PATTERN CMD...: CMD exits 0 and prints PATTERN (stdout or stderr)
t_runs() {
	local desc=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q -- "$pat"; then
		tap_result pass "$desc: $(printf '%s\n' "$out" | head -n 1)"
	else
		printf '%s\n' "$out" | head -n 5 | sed 's/^/# /'
		tap_result fail "$desc (exit $rc)"
	fi
}

# sshd -V exits 0 only from OpenSSH 9.x on: -t with a throwaway host key proves it loads
W=$(mktemp -d /tmp/userland.XXXXXX)
trap 'rm -rf "$W"' EXIT
ssh-keygen -q -t ed25519 -N '' -f "$W/hostkey"
printf 'HostKey %s/hostkey\nUsePAM no\n' "$W" >"$W/sshd_config"
mkdir -p /run/sshd
t_runs "sshd loads and checks its config" "" /usr/sbin/sshd -t -f "$W/sshd_config"
t_runs "munged runs" "munge-" munged --version
t_runs "slurmctld runs" "slurm" slurmctld -V
# Slurm's clients read a configuration before anything else, --version too
printf 'ClusterName=rdcul\nSlurmctldHost=localhost\n' >"$W/slurm.conf"
t_runs "slurmd and srun run" "slurm" env SLURM_CONF="$W/slurm.conf" sh -c 'slurmd -V && srun --version'
t_runs "mpirun and orted run" "Open MPI" sh -c 'mpirun --version && command -v orted'
missing=
for u in sshd munge; do
	getent passwd "$u" >/dev/null || missing="$missing $u"
done
tap_result "$([ -z "$missing" ] && echo pass || echo fail)" \
	"the packages' system users are in the guest's /etc/passwd${missing:+ (missing:$missing)}"
tap_finished
