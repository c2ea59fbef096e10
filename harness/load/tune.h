/* SPDX-License-Identifier: MIT */
/*
 * tune: every sysctl a run changes, and the one way it is put back.
 *
 * Offers
 *  - tune_run(): the sysctls that make the plan's topology able to hold what it
 *    asks for. In rdmacap's own namespaces (pair, star) they are set and go
 *    with the namespace. On the host (the caller's namespace): rdma_cm's
 *    listen backlog for an rdmacm plan, and with --topology host the sysctls a
 *    plan of this size needs, said as "would_help", or set with --tune;
 *  - tune_restore(): puts back every host sysctl the run changed, at its end;
 *  - tune_down(): `rdmacap down`: puts back what a run that could not (SIGKILL,
 *    crash) left changed.
 * A host sysctl's old value is written to the run's state file before the
 * sysctl is changed (TUNE_DIR/sysctl-<run>, removed once restored), so no
 * change outlives both the run and `rdmacap down`. TAP says each change:
 * "# tuned KEY=VAL (was OLD, restored after the run)", "# tune_failed KEY=VAL:
 * why", and from down "# restored KEY=OLD (run R ...)".
 *
 * Uses: netns/netns.h (sysctl get/set), harness/point/point.h, tap/, libc.
 */
#ifndef RDC_HARNESS_TUNE_H
#define RDC_HARNESS_TUNE_H

#include "harness/point/point.h"

/* /run: a tmpfs the boot empties, as it resets every sysctl */
#define TUNE_DIR "/run/rdmacap"

/* The topology's sysctls for c->plan, once c->topo is up and has its run id. */
void tune_run(struct pt_ctx *c);

/* Puts back what tune_run changed on the host; safe when it changed nothing. */
void tune_restore(void);

/*
 * Restores what the state files of run 'run' (NULL: every run) hold, one
 * "# restored" line each on t; *restored counts them. 0, or -1 when a sysctl
 * or a state file could not be put back or removed (said on stderr).
 */
int tune_down(struct tap *t, const char *run, int *restored);

#endif
