/* SPDX-License-Identifier: MIT */
/* proc: what /proc says about an agent process and its network namespace. */
#ifndef RDC_HARNESS_PROC_H
#define RDC_HARNESS_PROC_H

#include <stdbool.h>
#include <sys/types.h>

struct hx_proc {
	long rss_kb;   /* VmRSS */
	long hwm_kb;   /* VmHWM: peak RSS */
	long threads;
	long fds;      /* -1 unless asked for (counting 100k fds is not free) */
	long maps;     /* memory maps (/proc/PID/maps lines), -1 unless fds was asked for */
};

/* 0, or -1 when the process is gone. */
int hx_proc_read(pid_t pid, bool fds, struct hx_proc *p);

/* TCP sockets in use and TCP memory (pages) of the namespace 'pid' lives in. */
int hx_sockstat(pid_t pid, long *inuse, long *mem_pages);

/* Kernel slab memory in use, system-wide (/proc/meminfo "Slab"). */
int hx_slab_kb(long *kb);

#endif
