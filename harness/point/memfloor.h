/* SPDX-License-Identifier: MIT */
/*
 * memfloor: the memory floor of a load point (--mem-floor) and the OOM
 * killer's choice among rdmacap's processes.
 *
 * A design that runs out of memory does not fail a call: the host starts
 * evicting the page cache its own programs run from and everything stalls
 * long before the OOM killer acts, for minutes with nothing recorded. So while the agents start, connect and
 * exchange, this host's MemAvailable is read at the sampler's tick, and below
 * the floor the point ends as at a phase deadline: agents stopped, the counters' return to
 * the baseline checked, the figures of that moment kept, and the cause named
 * "memory: MemAvailable fell to ...". The floor watches the host rdmacap runs
 * on; with --hosts the remote hosts' memory is not watched.
 *
 * Offers: the floor in KiB from the option's value (mf_floor_kb), and the
 * OOM killer's bias (mf_oom_protect, mf_oom_child). The per-point watch on
 * struct rt is in rt.h (mf_open, mf_tick, mf_close).
 * May use harness/point/proc.h, and measure.c's meas_agents (rt.h) for the figures at the hit.
 */
#ifndef RDC_HARNESS_MEMFLOOR_H
#define RDC_HARNESS_MEMFLOOR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * --mem-floor MIB as KiB: 0 off, -1 the default (the larger of 64 MiB, 2% of
 * MemTotal and vm.min_free_kbytes; memfloor.c says why), with how
 * it was chosen in why. 0 also when /proc/meminfo cannot be read (why says so).
 */
long mf_floor_kb(long mib, char *why, size_t len);

/*
 * As root: this process's oom_score_adj to -1000, so that the OOM killer
 * picks an agent, never the orchestrator that would name the cause. When it
 * cannot (no CAP_SYS_RESOURCE), it goes on silently: `rdmacap env` and the
 * JSON env say so (mf_oom_can_protect), and so does the cause of a point the
 * OOM killer hit (mf_oom_unprotected).
 */
void mf_oom_protect(void);

/* Why mf_oom_protect could not ("oom_score_adj -1000: Permission denied"), or NULL. */
const char *mf_oom_unprotected(void);

/*
 * Can this process put its oom_score_adj at -1000 (tried, then put back)?
 * When not, why ("not root", "oom_score_adj -1000: ...") into why.
 */
bool mf_oom_can_protect(char *why, size_t len);

/*
 * In an agent's child between fork and exec: the oom_score_adj rdmacap started
 * with (0 unless its caller set one) back, a raise, which needs no privilege.
 */
void mf_oom_child(void);

#endif
