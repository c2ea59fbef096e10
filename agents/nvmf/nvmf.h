/* SPDX-License-Identifier: MIT */
/*
 * nvmf: the --transport nvmf roles, NVMe over RDMA with the kernel on both
 * sides.
 *
 * Server (nvmf_server.c, on kserve.h): makes the target through configfs
 * (nvmf_target.c: a null_blk disk, an nvmet subsystem on it that allows any
 * host, a port on --addr:4420), says hello, waits for "stop" or EOF, then
 * removes all of it in reverse order. It serves nothing itself: the kernel's
 * nvmet-rdma does.
 *
 * Client (nvmf_client.c, on kclient.h): one controller per client through
 * /dev/nvme-fabrics (nvmf_host.c), its round trips a write of the client's
 * own LBA range of the namespace and a read of it, checked byte by byte by
 * load.h; each controller deleted through sysfs at the end.
 *
 * Names of what is made: common/nvmfname.h. Step words of failures:
 * configfs_mkdir, configfs_write, configfs_symlink (target), nvmf_connect,
 * nvme_find, open, nvme_write, nvme_read (host).
 *
 * The nvmf/ folder: one row of agents/transport.c. May use the engine (ag,
 * ctl, load, phase, tag, opts, kattr, nullb, kserve, kclient) and common/;
 * never another transport's folder, harness/ or tap/.
 */
#ifndef RDC_AGENTS_NVMF_H
#define RDC_AGENTS_NVMF_H

#include "agents/opts.h"

int nvmf_server_run(const struct ag_opts *o);
int nvmf_client_run(const struct ag_opts *o);

#endif
