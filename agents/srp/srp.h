/* SPDX-License-Identifier: MIT */
/*
 * srp: the --transport srp roles, the SCSI RDMA Protocol with the kernel on
 * both sides.
 *
 * Server (srp_server.c, on kserve.h): makes the target through LIO's
 * configfs (srp_target.c: a null_blk disk, its backstore, ib_srpt's rdma_cm
 * listener, a TPG on the device's srpt port with LUN 0 and an ACL for the
 * logins), says hello, waits for "stop" or EOF, then removes all of it in
 * reverse order. It serves nothing itself: the kernel's ib_srpt does.
 *
 * Client (srp_client.c, on kclient.h): one SCSI host per client, logged in
 * through ib_srp's add_target over rdma_cm (srp_host.c), its round trips a
 * write of the client's own LBA range of the host's disk and a read of it,
 * checked byte by byte by load.h; each host removed at the end.
 *
 * Names of what is made: common/srpname.h. Step words of failures:
 * configfs_mkdir, configfs_write, configfs_read, configfs_symlink,
 * srpt_rdma_cm_port, srpt_port_guid (target), srpt_guid, srp_add_target,
 * srp_find, open, srp_write, srp_read (host).
 *
 * The srp/ folder: one row of agents/transport.c. May use the engine (ag,
 * ctl, load, phase, tag, opts, kattr, nullb, kserve, kclient) and common/;
 * never another transport's folder, harness/ or tap/.
 */
#ifndef RDC_AGENTS_SRP_H
#define RDC_AGENTS_SRP_H

#include "agents/opts.h"

int srp_server_run(const struct ag_opts *o);
int srp_client_run(const struct ag_opts *o);

#endif
