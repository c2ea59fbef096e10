/* SPDX-License-Identifier: MIT */
/*
 * nvk: the host's side of an nvmf run that is not an agent's: the kernel
 * modules and configfs it needs (nvkmod.c, nvkm_), the kernel's log lines of
 * a point (nvklog.c, nvkl_), and the leftovers of a killed run that
 * `rdmacap down` removes (nvkdown.c, nvkd_). What the server
 * agent makes and removes itself is agents/nvmf/'s; every name it uses is in
 * common/nvmfname.h, which is how nvkd_ tells rdmacap's objects from anyone
 * else's. Uses common/ and libc.
 */
#ifndef RDC_HARNESS_ULP_NVK_H
#define RDC_HARNESS_ULP_NVK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* the modules nvkm_up loads, then those that come with them (nvkmod.c) */
#define NVKM_NMODS 8

/* what nvkm_up changed, for nvkm_down to put back */
struct nvkm {
	bool loaded[NVKM_NMODS];	/* by nvkm_up, in nvkm_up's order */
	bool mounted;			/* configfs, by nvkm_up */
	int others;			/* nvmet subsystems that are not rdmacap's */
};

/*
 * Loads what a run needs that is not loaded: nvmet, nvmet_rdma, nvme_rdma
 * (nvme_fabrics with it) and null_blk (nr_devices=0: no disk of its own), and
 * mounts configfs if it is not. 0; 1 with the reason to SKIP in why (the
 * module that could not be loaded, configfs); -1 with why on another failure.
 */
int nvkm_up(struct nvkm *m, char *why, size_t len);
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

/* a kernel log line, cut to this */
#define NVKL_LINE 200
/* /dev/kmsg at its end, where a point begins: the fd, or -1 (no log then) */
int nvkl_open(void);
/*
 * The lines logged since nvkl_open at warning level or worse that name nvme,
 * nvmet, null_blk or RDMA, at most max into lines. How many.
 */
int nvkl_read(int fd, char lines[][NVKL_LINE], int max);

#endif
