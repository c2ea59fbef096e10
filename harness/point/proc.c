// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/point/proc.h"

static long proc_count_lines(pid_t pid, const char *what)
{
	char path[64], buf[65536];
	long n = 0;
	size_t r;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		for (size_t i = 0; i < r; i++)
			n += buf[i] == '\n';
	fclose(f);
	return n;
}

int proc_read(pid_t pid, bool fds, struct proc_stat *p)
{
	char path[64], line[256];
	FILE *f;

	p->rss_kb = p->hwm_kb = p->threads = 0;
	p->fds = p->maps = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmRSS:", 6))
			sscanf(line + 6, "%ld", &p->rss_kb);
		else if (!strncmp(line, "VmHWM:", 6))
			sscanf(line + 6, "%ld", &p->hwm_kb);
		else if (!strncmp(line, "Threads:", 8))
			sscanf(line + 8, "%ld", &p->threads);
	}
	fclose(f);
	if (fds) {
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
		d = opendir(path);
		if (!d)
			return -1;
		p->fds = 0;
		while ((de = readdir(d)))
			if (de->d_name[0] != '.')
				p->fds++;
		closedir(d);
		p->maps = proc_count_lines(pid, "maps");
	}
	return 0;
}

int proc_cpu(pid_t pid, double *s)
{
	unsigned long long ut, st;
	char path[64], buf[1024];
	long tck = sysconf(_SC_CLK_TCK);
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || tck <= 0)
		return -1;
	buf[n] = '\0';
	/* the name may hold spaces and ')': fields count from its last ')' */
	p = strrchr(buf, ')');
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	*s = (double)(ut + st) / (double)tck;
	return 0;
}

int proc_sockstat_at(const char *dir, long *inuse, long *mem_pages)
{
	char path[PATH_MAX], line[256];
	long v4 = 0, v6 = 0;
	int found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sockstat", dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *m;

		if (strncmp(line, "TCP:", 4))
			continue;
		m = strstr(line, " mem ");
		if (sscanf(line, "TCP: inuse %ld", &v4) == 1 && m &&
		    sscanf(m, " mem %ld", mem_pages) == 1)
			found = 0;
	}
	fclose(f);
	/* IPv6 sockets are counted apart (tcpv6_prot); a kernel without IPv6 has no file */
	snprintf(path, sizeof(path), "%s/sockstat6", dir);
	f = fopen(path, "re");
	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "TCP6: inuse %ld", &v6) == 1)
				break;
		fclose(f);
	}
	if (!found)
		*inuse = v4 + v6;
	return found;
}

int proc_sockstat(pid_t pid, long *inuse, long *mem_pages)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%d/net", (int)pid);
	return proc_sockstat_at(dir, inuse, mem_pages);
}

int proc_tcp_retrans(pid_t pid, long *segs)
{
	char path[64], head[512], vals[512];
	int col = -1, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/net/snmp", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	/* "Tcp: RtoAlgorithm ... RetransSegs ..." then "Tcp: 1 ... 42 ..." */
	while (fgets(head, sizeof(head), f)) {
		char *save = NULL, *tok;
		int i = 0;

		if (strncmp(head, "Tcp:", 4) || !fgets(vals, sizeof(vals), f))
			continue;
		for (tok = strtok_r(head, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), i++)
			if (!strcmp(tok, "RetransSegs"))
				col = i;
		save = NULL;
		i = 0;
		for (tok = strtok_r(vals, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), i++)
			if (i == col && sscanf(tok, "%ld", segs) == 1)
				found = 0;
	}
	fclose(f);
	return found;
}

int proc_meminfo(struct proc_mem *m)
{
	char line[256];
	long total = 0, avail = 0;
	int found = -1;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -1;
	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %ld", &m->slab_kb) == 1)
			found = 0;
		sscanf(line, "SUnreclaim: %ld", &m->sunreclaim_kb);
		sscanf(line, "VmallocUsed: %ld", &m->vmalloc_kb);
		sscanf(line, "PageTables: %ld", &m->pagetables_kb);
		sscanf(line, "MemTotal: %ld", &total);
		sscanf(line, "MemAvailable: %ld", &avail);
	}
	fclose(f);
	m->used_kb = total - avail;
	m->avail_kb = avail;
	f = fopen("/proc/vmstat", "re");
	if (!f)
		return found;
	while (fgets(line, sizeof(line), f))
		sscanf(line, "oom_kill %ld", &m->oom_kills);
	fclose(f);
	return found;
}

int proc_avail_open(void)
{
	return open("/proc/meminfo", O_RDONLY | O_CLOEXEC);
}

/*
 * pread at offset 0 makes the kernel write the file anew: about a third of
 * the cost of open, read and close each time.
 */
int proc_avail_read(int fd, long *kb, long *total_kb)
{
	char buf[4096], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (total_kb && sscanf(buf, "MemTotal: %ld", total_kb) != 1)
		return -1;
	p = strstr(buf, "\nMemAvailable:");
	if (!p || sscanf(p, "\nMemAvailable: %ld", kb) != 1)
		return -1;
	return 0;
}

int proc_oom_adj_get(int *adj)
{
	FILE *f = fopen("/proc/self/oom_score_adj", "re");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", adj) == 1;
	fclose(f);
	if (!ok)
		errno = EINVAL;
	return ok ? 0 : -1;
}

/* a single write(2), so it is also safe in a child between fork and exec */
int proc_oom_adj_set(int adj)
{
	char v[16];
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC), n, err;

	if (fd < 0)
		return -1;
	n = snprintf(v, sizeof(v), "%d", adj);
	if (write(fd, v, (size_t)n) != n) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return close(fd);
}

bool proc_has_cap(int bit)
{
	char line[256];
	bool yes = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long caps;

		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			yes = caps & (1ull << bit);
	}
	fclose(f);
	return yes;
}

int proc_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (len && fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	fclose(f);
	return ret;
}
