// SPDX-License-Identifier: MIT
/*
 * The null_blk disk of a kernel-service target (nullb.h).
 */
#include <stdio.h>
#include <unistd.h>

#include "agents/nullb.h"
#include "common/nvmfname.h"

int nullb_up(struct nullb *b, const char *run, uint32_t slots, uint32_t size,
	     struct kattr_fail *f)
{
	uint64_t mib = ((uint64_t)slots * nullb_slot_bytes(size) + (1 << 20) - 1) >> 20;
	char dir[300], v[32];

	b->made = 0;
	snprintf(b->name, sizeof(b->name), NVMFN_BLK_PREFIX "%s", run);
	snprintf(dir, sizeof(dir), NVMFN_NULLB "/%s", b->name);
	if (kattr_mkdir(f, dir))
		return -1;
	b->made = 1;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)(mib < NULLB_MIN_MIB ? NULLB_MIN_MIB : mib));
	if (kattr_set(f, dir, "memory_backed", "1") || kattr_set(f, dir, "blocksize", "4096") ||
	    kattr_set(f, dir, "size", v) || kattr_set(f, dir, "power", "1"))
		return -1;
	b->made = 2;
	return 0;
}

int nullb_down(struct nullb *b)
{
	char dir[300], pw[320];
	int rc = 0;

	snprintf(dir, sizeof(dir), NVMFN_NULLB "/%s", b->name);
	snprintf(pw, sizeof(pw), "%s/power", dir);
	if (b->made >= 2)
		rc |= kattr_undo("write 0 to", pw, kattr_put(pw, "0"));
	if (b->made >= 1)
		rc |= kattr_undo("rmdir", dir, rmdir(dir));
	b->made = 0;
	return rc;
}
