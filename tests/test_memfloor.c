// SPDX-License-Identifier: MIT
/*
 * Unit tests of the memory floor (harness/point/memfloor.h) and the /proc readers it
 * uses (harness/point/proc.h): --mem-floor's value as KiB, the default's rule against
 * this host's own MemTotal and vm.min_free_kbytes, MemAvailable from the fd
 * kept open as /proc/meminfo says it, read again, and oom_score_adj as
 * /proc/self says it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/point/memfloor.h"
#include "harness/point/proc.h"
#include "tap/tap.h"

static struct tap t;

/* KEY's first number in FILE ("MemTotal:" of /proc/meminfo), or -1 */
static long t_read(const char *file, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(file, "re");

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = strtol(line + strlen(key), NULL, 10);
	fclose(f);
	return v;
}

static void t_floor(void)
{
	long total = t_read("/proc/meminfo", "MemTotal:");
	long wmark = t_read("/proc/sys/vm/min_free_kbytes", "");
	long want = 64 * 1024, kb;
	char why[128];

	kb = mf_floor_kb(0, why, sizeof(why));
	tap_ok(&t, kb == 0 && strstr(why, "off"), "--mem-floor 0: off (%ld, %s)", kb, why);
	kb = mf_floor_kb(100, why, sizeof(why));
	tap_ok(&t, kb == 100 * 1024, "--mem-floor 100: 102400 KiB (%ld, %s)", kb, why);
	if (total / 100 * 2 > want)
		want = total / 100 * 2;
	if (wmark > want)
		want = wmark;
	kb = mf_floor_kb(-1, why, sizeof(why));
	tap_ok(&t, kb == want,
	       "default: the largest of 64 MiB, 2%% of MemTotal %ld, min_free_kbytes %ld: "
	       "%ld KiB (%ld, %s)", total, wmark, want, kb, why);
}

static void t_avail(void)
{
	int fd = proc_avail_open();
	long a1 = -1, a2 = -1, total = -1, ref = t_read("/proc/meminfo", "MemAvailable:");
	int r1 = -1, r2 = -1;

	if (fd >= 0) {
		r1 = proc_avail_read(fd, &a1, &total);
		r2 = proc_avail_read(fd, &a2, NULL);
		close(fd);
	}
	/* the host's memory moves between the reads: within 1 GiB of each other */
	tap_ok(&t, !r1 && !r2 && labs(a1 - ref) < (1L << 20) && labs(a2 - ref) < (1L << 20) &&
			   total == t_read("/proc/meminfo", "MemTotal:"),
	       "MemAvailable from the fd kept open, read twice: %ld, %ld KiB (/proc/meminfo %ld, "
	       "MemTotal %ld)", a1, a2, ref, total);
}

static void t_oom(void)
{
	long ref = t_read("/proc/self/oom_score_adj", "");
	int adj = -2000, rc;

	rc = proc_oom_adj_get(&adj);
	tap_ok(&t, !rc && adj == ref, "oom_score_adj %d (/proc/self: %ld)", adj, ref);
	/* raising needs no privilege (this test process only) */
	rc = proc_oom_adj_set((int)ref + 1) || proc_oom_adj_get(&adj);
	tap_ok(&t, !rc && adj == ref + 1, "oom_score_adj raised to %d", adj);
}

int main(void)
{
	tap_init(&t, stdout);
	tap_plan(&t, 6);
	t_floor();
	t_avail();
	t_oom();
	tap_totals(&t);
	return tap_exit_code(&t);
}
