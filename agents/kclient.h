/* SPDX-License-Identifier: MIT */
/*
 * kclient: the client agent of a kernel service (nvmf/, srp/): one block
 * device per client, made by the kernel's initiator through the transport's
 * ops, set up in phase.h's loop one at a time (each make is one blocking
 * write to the kernel), its round trips an O_DIRECT write of the client's
 * own LBA range (nullb.h) and a read of it, checked byte by byte by load.h.
 * Every client's device is removed when the loop ends.
 *
 * Step words of failures are the ops' own: the make step's, the find
 * step's while the device is not there, then "open", and the round trips'
 * write and read words. Uses the engine and nullb.h.
 */
#ifndef RDC_AGENTS_KCLIENT_H
#define RDC_AGENTS_KCLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "agents/opts.h"

struct kc_ops {
	/* the failure words: the make step's (a setup past --timeout), the find
	 * step's, the write's and the read's */
	const char *make_call, *find_call, *write_call, *read_call;
	/*
	 * Makes client i's device (i counts from 0 within the agent; its id is
	 * --first-id + i). 0, or -1 with errno and *call the step that failed;
	 * what was made is removed by remove.
	 */
	int (*make)(void *arg, uint32_t i, const char **call);
	/* The block device of client i, "/dev/..." into dev: 0; 1 not there yet; -1 with errno. */
	int (*find)(void *arg, uint32_t i, char *dev, size_t len);
	/* Removes client i's device if it was made (failures warned on stderr). */
	void (*remove)(void *arg, uint32_t i);
};

/* Runs the client agent: hello, the phases, every device removed, bye. The exit status. */
int kc_run(const struct ag_opts *o, const struct kc_ops *ops, void *arg);

#endif
