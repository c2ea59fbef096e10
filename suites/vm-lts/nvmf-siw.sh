#!/bin/bash
# SPDX-License-Identifier: MIT
#
# nvmf-siw.sh: suites/vm/nvmf.sh over iWARP: the kernel's NVMe over RDMA target
# and initiator on a siw link, in the VM booted on the LTS kernel that has siw
# (nvme-rdma and nvmet-rdma speak rdma_cm, which iWARP offers). The same five
# tests, the same checks:
#
#   vm/run --kernel build/vm/kernel/bookworm --share $PWD -- suites/vm-lts/nvmf-siw.sh
#
# TAP 13 on stdout; exit 0 pass, 1 fail, 4 skip.
NVMF_LINK=siw exec "$(dirname "$0")/../vm/nvmf.sh"
