/* SPDX-License-Identifier: MIT */
/*
 * nullb: the disk a kernel-service target serves (nvmf/, srp/): a null_blk
 * device made through configfs, memory_backed so that what is written reads
 * back, with 4 KiB blocks, named after the run (common/nvmfname.h's
 * NVMFN_BLK_PREFIX, /dev/rdc<run>), and its clients' LBA ranges: one per
 * client, --size in whole blocks. Uses libc, common/ and agents/kattr.h.
 */
#ifndef RDC_AGENTS_NULLB_H
#define RDC_AGENTS_NULLB_H

#include <stdint.h>

#include "agents/kattr.h"

/* null_blk's blocksize, and O_DIRECT's alignment of every round trip */
#define NULLB_BLOCK 4096u
/* a disk is at least this big, whatever the clients need */
#define NULLB_MIN_MIB 16

struct nullb {
	char name[16];		/* rdc<run>: the configfs folder and /dev/<name> */
	int made;		/* 0 none, 1 the folder, 2 powered on */
};

/* The LBA range of one client: size rounded up to whole blocks. */
static inline uint64_t nullb_slot_bytes(uint32_t size)
{
	return ((uint64_t)size + NULLB_BLOCK - 1) / NULLB_BLOCK * NULLB_BLOCK;
}

/*
 * The disk of run, slots LBA ranges of size bytes (NULLB_MIN_MIB at least),
 * powered on. 0, or -1 with f naming the step; what was made is left for
 * nullb_down.
 */
int nullb_up(struct nullb *b, const char *run, uint32_t slots, uint32_t size,
	     struct kattr_fail *f);
/* Powers off and removes what nullb_up made. 0, or -1 when a step failed (warned). */
int nullb_down(struct nullb *b);

#endif
