/* SPDX-License-Identifier: MIT */
/*
 * nvk: the host's side of a kernel-service run (--transport nvmf, srp) that
 * is not an agent's: the kernel modules and configfs it needs (nvkmod.c,
 * nvkm_), the kernel's log lines of a point (nvklog.c, nvkl_), and the
 * leftovers of a killed run that `rdmacap down` removes (nvkdown.c, nvkd_:
 * nvmf's; srkdown.c, srkd_: srp's). What the server agent makes and removes
 * itself is agents/nvmf/'s and agents/srp/'s; every name they use is in
 * common/nvmfname.h and common/srpname.h, which is how nvkd_ and srkd_ tell
 * rdmacap's objects from anyone else's. Uses common/ and libc.
 */
#ifndef RDC_HARNESS_ULP_NVK_H
#define RDC_HARNESS_ULP_NVK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/opt.h"

/* the most modules nvkm_up loads for one service, with those that come with them */
#define NVKM_NMODS 13

/* what nvkm_up changed, for nvkm_down to put back */
struct nvkm {
	enum opt_transport tr;
	bool loaded[NVKM_NMODS];	/* by nvkm_up, in nvkm_up's order */
	bool mounted;			/* configfs, by nvkm_up */
	int others;			/* nvmet subsystems or srpt TPGs that are not rdmacap's */
};

/*
 * Loads what a run of service tr needs that is not loaded, and mounts
 * configfs if it is not. nvmf: nvmet, nvmet_rdma, nvme_rdma (nvme_fabrics
 * with it); srp: target_core_iblock (target_core_mod with it), ib_srpt,
 * ib_srp, sd_mod; both null_blk (nr_devices=0: no disk of its own). 0; 1 with the
 * reason to SKIP in why (the module that could not be loaded, configfs); -1
 * with why on another failure.
 */
int nvkm_up(struct nvkm *m, enum opt_transport tr, char *why, size_t len);
/* Unloads what nvkm_up loaded, last first, and unmounts what it mounted. */
void nvkm_down(struct nvkm *m, FILE *log);

/*
 * Removes every rdmacap nvmf object of a killed run, or of run only (NULL:
 * all): the host's controllers of our subsystems, our subsystems' links
 * from every port, our ports, our subsystems with their namespaces, our
 * null_blk disks. Nothing else is touched: *others counts the nvmet
 * subsystems that are not ours, left alone. *removed counts what went.
 * 0, or -1 when something of ours could not be removed (named on stderr).
 */
int nvkd_clean(const char *run, FILE *log, int *removed, int *others);

/*
 * Every object of service tr's run (NULL: of every run): srkd_clean for
 * srp, whose backstores hold the disks, then nvkd_clean. As nvkd_clean.
 */
int nvkd_service(enum opt_transport tr, const char *run, FILE *log, int *removed, int *others);

/*
 * The initiator's side of run alone: its controllers (nvmf: nvkd_hosts) or
 * SCSI hosts (srp: srkd_hosts_clean), each removed and waited for. What a
 * client agent killed mid-point left, removed while the target still serves
 * it: one whose target went first reconnects (ctrl_loss_tmo, 600 s) or
 * hangs its deletion in SCSI error handling. *removed counts what went. 0,
 * or -1 when one could not be removed (named on stderr).
 */
int nvkd_hosts(const char *run, FILE *log, int *removed);
int srkd_hosts_clean(const char *run, FILE *log, int *removed);

/* what one `rdmacap down` removed and failed to remove; its lines go to log (NULL: none) */
struct nvkd_tally {
	FILE *log;
	int removed, failed;
};
/*
 * One removal of what at path returned r (errno set when r != 0): counted, a
 * failure named on stderr; one gone meanwhile (ENOENT) is neither.
 */
void nvkd_did(struct nvkd_tally *t, const char *what, const char *path, int r);
/* Writes s to the attribute path. 0, or -1 with errno. */
int nvkd_put(const char *path, const char *s);
/* The attribute path's first line into buf. 0, or -1 with errno. */
int nvkd_get(const char *path, char *buf, size_t len);

/*
 * srp's nvkd_clean: every rdmacap srp object of a killed run, or of run only
 * (NULL: all): the SCSI hosts whose LUN shows our model (removed, then
 * waited for), our TPGs with their ACLs and LUNs, srpt ports left with no TPG,
 * ib_srpt's listener when no TPG is left at all, our backstores. The null_blk
 * disks are nvkd_clean's: call this first. Nothing else is touched: *others
 * counts the srpt TPGs that are not ours. 0, or -1 when something of ours
 * could not be removed (named on stderr).
 */
int srkd_clean(const char *run, FILE *log, int *removed, int *others);
/* The TPGs of srpt port tport (a folder of SRPN_SRPT) that are not rdmacap's. */
int srkd_others(const char *tport);

/* a kernel log line, cut to this */
#define NVKL_LINE 200
/* /dev/kmsg at its end, where a point begins: the fd, or -1 (no log then) */
int nvkl_open(void);
/*
 * The lines logged since nvkl_open at warning level or worse that name nvme,
 * nvmet, SRP, SCSI, LIO, null_blk or RDMA, at most max into lines. How many.
 */
int nvkl_read(int fd, char lines[][NVKL_LINE], int max);

#endif
