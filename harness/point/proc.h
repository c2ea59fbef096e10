/* SPDX-License-Identifier: MIT */
/* proc: what /proc says about an agent process and its network namespace. */
#ifndef RDC_HARNESS_PROC_H
#define RDC_HARNESS_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct proc_stat {
	long rss_kb;   /* VmRSS */
	long hwm_kb;   /* VmHWM: peak RSS */
	long threads;
	long fds;      /* -1 unless asked for (counting 100k fds is not free) */
	long maps;     /* memory maps (/proc/PID/maps lines), -1 unless fds was asked for */
};

/* 0, or -1 when the process is gone. */
int proc_read(pid_t pid, bool fds, struct proc_stat *p);

/*
 * CPU time the process has used, user and system, all its threads
 * (/proc/PID/stat utime + stime), in seconds. 0, or -1 when it is gone.
 */
int proc_cpu(pid_t pid, double *s);

/*
 * TCP sockets in use, IPv4 and IPv6 (sockstat's TCP and sockstat6's TCP6
 * inuse), and TCP memory (pages, both families) of the namespace 'pid' lives
 * in: 0, or -1 when sockstat has no TCP line. proc_sockstat_at reads the two
 * files in dir ("/proc/PID/net").
 */
int proc_sockstat(pid_t pid, long *inuse, long *mem_pages);
int proc_sockstat_at(const char *dir, long *inuse, long *mem_pages);

/* TCP segments retransmitted in the namespace 'pid' lives in (/proc/PID/net/snmp). */
int proc_tcp_retrans(pid_t pid, long *segs);

/* Whether this process holds capability 'bit' (CapEff of /proc/self/status). */
bool proc_has_cap(int bit);

/* The process's name (/proc/PID/comm, without its newline) into buf: 0, or -1 when gone. */
int proc_comm(pid_t pid, char *buf, size_t len);

/*
 * System-wide memory from /proc/meminfo, in KiB: what the kernel's RDMA and
 * socket objects cost beside the processes' RSS (slab for objects, vmalloc for
 * queue rings, page tables for the maps of queues and buffers).
 */
struct proc_mem {
	long slab_kb;        /* Slab */
	long sunreclaim_kb;  /* SUnreclaim: slab the kernel cannot drop under pressure */
	long vmalloc_kb;     /* VmallocUsed */
	long pagetables_kb;  /* PageTables */
	long used_kb;        /* MemTotal - MemAvailable: everything, user and kernel */
	long avail_kb;       /* MemAvailable */
	long oom_kills;      /* /proc/vmstat oom_kill: processes the OOM killer ended */
};

/* 0, or -1 when /proc/meminfo lacks Slab. */
int proc_meminfo(struct proc_mem *m);

/*
 * MemAvailable alone, often: proc_avail_open() keeps /proc/meminfo open (an
 * fd, or -1) and proc_avail_read() reads it again from offset 0 into *kb
 * (and MemTotal into *total_kb when not NULL). 0, or -1.
 */
int proc_avail_open(void);
int proc_avail_read(int fd, long *kb, long *total_kb);

/*
 * /proc/self/oom_score_adj: the OOM killer's bias for this process, -1000
 * (never) to 1000. Lowering it needs CAP_SYS_RESOURCE, raising it never
 * does; children inherit it. 0, or -1 with errno set.
 */
int proc_oom_adj_get(int *adj);
int proc_oom_adj_set(int adj);

#endif
