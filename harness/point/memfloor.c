// SPDX-License-Identifier: MIT
/*
 * The memory floor of a load point and the OOM killer's bias (memfloor.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "harness/point/memfloor.h"
#include "harness/point/proc.h"
#include "harness/point/rt.h"

/*
 * MemAvailable is read at most this often: a read of the fd kept open costs
 * ~50 us in a TCG guest (proc.c), 0.05% of a guest CPU at 10 Hz. Memory falls
 * by tens of KB per rc connection (memory.all_bytes_per_conn), a few MB per
 * 100 ms at the fastest connect rates: far less than the floor between two reads.
 */
#define MF_EVERY_S 0.1

/*
 * The default floor, the largest of three:
 * - 64 MiB: what must stay after the floor is hit for rdmacap to stop the
 *   agents and write its figures: the pages it and the agents run from
 *   (binaries and libraries are page cache, which MemAvailable counts as
 *   available; dropped, they are read again on every fault: the stall seen
 *   in a 2 GiB guest), the agents' teardown and the JSON.
 * - 2% of MemTotal: a larger host runs more beside us that needs the same.
 * - vm.min_free_kbytes, the sum of the zones' min watermarks, below which an
 *   allocation stalls in direct reclaim. MemAvailable already leaves out the
 *   high watermarks (~1.5x min, totalreserve_pages); one min more above them
 *   keeps kswapd's background reclaim room where THP raised the sysctl
 *   (67,584 KiB in the 3 GiB guest, 66 MiB).
 */
#define MF_MIN_KB (64L * 1024)
#define MF_TOTAL_PCT 2

static int mf_adj_orig;   /* oom_score_adj at start */
static int mf_adj_lowered; /* mf_oom_protect lowered it: children get mf_adj_orig back */
static char mf_adj_why[128]; /* why mf_oom_protect could not */

long mf_floor_kb(long mib, char *why, size_t len)
{
	long avail, total, wmark = 0, kb;
	int fd;
	FILE *f;

	if (!mib) {
		snprintf(why, len, "off (--mem-floor 0)");
		return 0;
	}
	if (mib > 0) {
		snprintf(why, len, "--mem-floor %ld", mib);
		return mib * 1024;
	}
	fd = proc_avail_open();
	if (fd < 0 || proc_avail_read(fd, &avail, &total)) {
		snprintf(why, len, "off: /proc/meminfo not readable");
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);
	f = fopen("/proc/sys/vm/min_free_kbytes", "re");
	if (f) {
		if (fscanf(f, "%ld", &wmark) != 1)
			wmark = 0;
		fclose(f);
	}
	kb = MF_MIN_KB;
	snprintf(why, len, "64 MiB");
	if (total / 100 * MF_TOTAL_PCT > kb) {
		kb = total / 100 * MF_TOTAL_PCT;
		snprintf(why, len, "%d%% of MemTotal %ld KiB", MF_TOTAL_PCT, total);
	}
	if (wmark > kb) {
		kb = wmark;
		snprintf(why, len, "vm.min_free_kbytes=%ld", wmark);
	}
	return kb;
}

void mf_oom_protect(void)
{
	if (geteuid() != 0) {
		snprintf(mf_adj_why, sizeof(mf_adj_why), "not root");
		return;
	}
	if (proc_oom_adj_get(&mf_adj_orig) || proc_oom_adj_set(-1000)) {
		snprintf(mf_adj_why, sizeof(mf_adj_why), "oom_score_adj -1000: %s",
			 strerror(errno));
		return;
	}
	mf_adj_lowered = 1;
}

const char *mf_oom_unprotected(void)
{
	return mf_adj_lowered || !mf_adj_why[0] ? NULL : mf_adj_why;
}

bool mf_oom_can_protect(char *why, size_t len)
{
	int adj;

	*why = '\0';
	if (mf_adj_lowered)
		return true;
	if (geteuid() != 0) {
		snprintf(why, len, "not root");
		return false;
	}
	if (proc_oom_adj_get(&adj) || proc_oom_adj_set(-1000)) {
		snprintf(why, len, "oom_score_adj -1000: %s (CAP_SYS_RESOURCE)", strerror(errno));
		return false;
	}
	/* raising it back needs no capability */
	if (proc_oom_adj_set(adj)) {
		snprintf(why, len, "oom_score_adj %d: %s", adj, strerror(errno));
		return false;
	}
	return true;
}

void mf_oom_child(void)
{
	if (mf_adj_lowered && proc_oom_adj_set(mf_adj_orig))
		_exit(126);
}

void mf_open(struct rt *r)
{
	proc_meminfo(&r->pt->mem_start);
	r->pt->mem_floor_kb = r->c->mem_floor_kb;
	r->mf_fd = r->c->mem_floor_kb ? proc_avail_open() : -1;
	r->mf_next = 0;
}

void mf_close(struct rt *r)
{
	if (r->mf_fd >= 0)
		close(r->mf_fd);
	r->mf_fd = -1;
}

void mf_tick(struct rt *r)
{
	struct pt_point *pt = r->pt;
	double now = clock_s();
	long avail;

	/* from the start: a server makes endpoints before its hello (--pool) */
	if (r->mf_fd < 0 || pt->mem_floor_hit || now < r->mf_next || r->phase == RT_STOP)
		return;
	r->mf_next = now + MF_EVERY_S;
	if (proc_avail_read(r->mf_fd, &avail, NULL))
		return;
	if (!pt->mem_avail_min_kb || avail < pt->mem_avail_min_kb)
		pt->mem_avail_min_kb = avail;
	if (avail >= r->c->mem_floor_kb)
		return;
	pt->mem_floor_hit = true;
	pt->mem_floor_avail_kb = avail;
	pt->mem_floor_connected = r->nconn_ok;
	/*
	 * Before traffic, the figures the peak would have taken, cheap ones only
	 * (no fd or map counts): the host is short of memory and the agents are
	 * still connecting. In traffic the peak was read with every connection held.
	 */
	if (r->phase != RT_TRAFFIC) {
		proc_meminfo(&pt->mem_peak);
		meas_agents(r, MEAS_SRV | MEAS_CLI, false);
	}
	fprintf(stderr, "rdmacap: MemAvailable %ld KiB, below the floor of %ld KiB, with %ld of "
		"%ld connected: the agents stop\n", avail, r->c->mem_floor_kb, r->nconn_ok,
		pt->clients);
}
