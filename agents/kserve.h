/* SPDX-License-Identifier: MIT */
/*
 * kserve: the server agent of a kernel service (nvmf/, srp/): the target
 * made through the transport's ops, hello, stdin until "stop" or EOF with
 * the target's sessions counted once a second, the result, the target
 * removed, bye. It serves nothing itself: the kernel's target does. Uses
 * the engine (ag, ctl, opts) and common/.
 */
#ifndef RDC_AGENTS_KSERVE_H
#define RDC_AGENTS_KSERVE_H

#include <stdint.h>

#include "agents/kattr.h"
#include "agents/opts.h"

struct ks_ops {
	/* Makes the target. 0, or -1 with f naming the step; what was made is for down. */
	int (*up)(void *t, const struct ag_opts *o, struct kattr_fail *f);
	/* The target's sessions (controllers, channels) now; 0 when the kernel does not say. */
	uint64_t (*count)(void *t);
	/* Removes what up made, last first. 0, or -1 when a step failed (warned). */
	int (*down)(void *t);
	/* the port the kernel listens on, for the hello record */
	unsigned port;
};

/* Runs the server agent on target t. The exit status. */
int ks_run(const struct ag_opts *o, const struct ks_ops *ops, void *t);

#endif
