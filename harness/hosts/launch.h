/* SPDX-License-Identifier: MIT */
/*
 * launch: the words each --launcher puts before a command string that sh runs
 * on a host (remote.c starts them, reads them and cleans up after them). One
 * file per launcher, each building argv only, never running it:
 *
 *   launch_ssh.c     the system's OpenSSH client: `ssh OPTIONS [-p PORT] -T
 *                    DEST --`, its shared connection (ControlMaster) and scp  lssh_
 *   launch_srun.c    a Slurm job step of one task on the node, beside the
 *                    others: `srun --nodes=1 --ntasks=1 --overlap ... -w NODE
 *                    -- sh -c`                                            lsrun_
 *   launch_mpirun.c  an Open MPI job of one process: `mpirun -np 1 --host
 *                    NODE sh -c`, its daemon started by ssh with ssh's own
 *                    options, through the node's shared connection          lmpi_
 *
 * Every word is a string literal, the host's own, or held in struct
 * launch_argv beside the words, so an argv lives as long as its struct.
 * RDMACAP_SSH_CONFIG names another ssh config file (ssh -F, scp -F,
 * mpirun's plm_rsh_args). Uses harness/hosts/hosts.h, libc.
 */
#ifndef RDC_HARNESS_LAUNCH_H
#define RDC_HARNESS_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/hosts/hosts.h"

/*
 * ssh ConnectTimeout: the TCP connect and the server's banner. A host that does
 * not exist fails at once (no route, no ARP answer); this bounds a silent one.
 * An sshd under emulation sends its banner up to ~5 s after it accepted: the
 * bound is 3 times that.
 */
#define LSSH_CONNECT_S 15
/* ServerAliveInterval, 3 unanswered: a silent peer ends the connection in ~6 s */
#define LSSH_ALIVE_S 2
#define LSSH_ALIVE_MAX 3

#define LAUNCH_CTL_MAX 48 /* a shared connection's socket directory */
#define LAUNCH_WORDS 40
#define LAUNCH_CP_MAX 512 /* ControlPath=..., or mpirun's plm_rsh_args */

struct launch_argv {
	char *v[LAUNCH_WORDS];
	char port[8];
	char cp[LAUNCH_CP_MAX];
	char opt[32];
};

/*
 * "ssh OPTIONS [-p PORT] -T DEST --": the words before the command, n of them.
 * ctl (NULL or ""): through the host's shared connection whose sockets are in
 * ctl, or as that connection when master.
 */
int lssh_argv(const struct hosts_host *h, const char *ctl, bool master, struct launch_argv *a);
/* "ssh OPTIONS -o ControlPersist=persist_s -f -N DEST": log in and share it */
int lssh_master(const struct hosts_host *h, const char *ctl, int persist_s,
		struct launch_argv *a);
/* "ssh OPTIONS -O exit DEST": the shared connection closed */
int lssh_exit(const struct hosts_host *h, const char *ctl, struct launch_argv *a);
/*
 * "scp OPTIONS [-P PORT] -pq LOCAL... DEST:REMOTE" through the shared
 * connection; dst (dlen bytes) holds DEST:REMOTE. NULL-terminated; n words.
 */
int lssh_scp(const struct hosts_host *h, const char *ctl, char *const local[], const char *remote,
	     char *dst, size_t dlen, struct launch_argv *a);

/* "srun --nodes=1 --ntasks=1 --overlap --quiet --job-name=rdmacap -w NODE -- sh -c" */
int lsrun_argv(const struct hosts_host *h, struct launch_argv *a);

/*
 * ssh's options of lssh_argv as one line (mpirun's plm_rsh_args): into buf, 0,
 * or -1 when it does not fit.
 */
int lssh_optline(const char *ctl, char *buf, size_t len);

/*
 * "mpirun --mca plm_rsh_args 'SSH OPTIONS' -np 1 --host NODE sh -c": the
 * daemon's ssh with lssh's options and, with ctl, through the node's shared
 * connection (one login per node for the run, not one per command).
 */
int lmpi_argv(const struct hosts_host *h, const char *ctl, struct launch_argv *a);

#endif
