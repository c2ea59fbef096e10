// SPDX-License-Identifier: MIT
/*
 * A controller of the kernel's initiator: made, found, deleted (nvmf_host.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/kattr.h"
#include "agents/nvmf/nvmf_host.h"

int nvh_opts(const struct nvh_conn *c, char *buf, size_t len)
{
	int n = snprintf(buf, len, "transport=rdma,traddr=%s,trsvcid=4420,nqn=%s,hostnqn=%s,"
			 "hostid=%s,nr_io_queues=%u,queue_size=%u", c->traddr, c->nqn,
			 c->hostnqn, c->hostid, c->io_queues, c->queue_size);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int nvh_host(const char *nqn, uint32_t run, uint32_t id, char *hostnqn, size_t nlen,
	     char *hostid, size_t ilen)
{
	int a = snprintf(hostnqn, nlen, "%s:host:%u", nqn, id);
	/* a version 4 layout, so tools that check the UUID's variant accept it */
	int b = snprintf(hostid, ilen, "%08x-0000-4000-8000-%012x", run, id);

	return a < 0 || (size_t)a >= nlen || b < 0 || (size_t)b >= ilen ? -1 : 0;
}

/* "N" at s up to the next ',' or the end: a number of up to 9 digits */
static int nvh_num(const char *s, int *out)
{
	size_t n = strspn(s, "0123456789");

	if (!n || n > 9 || (s[n] && s[n] != ',' && s[n] != '\n'))
		return -1;
	*out = atoi(s);
	return 0;
}

int nvh_reply(const char *line, int *instance, int *cntlid)
{
	int got = 0;

	for (const char *p = line; *p && *p != '\n'; p += strcspn(p, ","), p += *p == ',') {
		if (!strncmp(p, "instance=", 9)) {
			if (nvh_num(p + 9, instance))
				return -1;
			got |= 1;
		} else if (!strncmp(p, "cntlid=", 7)) {
			if (nvh_num(p + 7, cntlid))
				return -1;
			got |= 2;
		}
	}
	return got == 3 ? 0 : -1;
}

int nvh_head(const char *entry, int instance, char *dev, size_t len)
{
	unsigned s, c, n;
	int used = 0, k;

	if (sscanf(entry, "nvme%uc%un%u%n", &s, &c, &n, &used) == 3 && !entry[used]) {
		if ((int)c != instance)
			return -1;
		k = snprintf(dev, len, "nvme%un%u", s, n);
	} else if (sscanf(entry, "nvme%un%u%n", &c, &n, &used) == 2 && !entry[used]) {
		if ((int)c != instance)
			return -1;
		k = snprintf(dev, len, "%s", entry);
	} else {
		return -1;
	}
	return k < 0 || (size_t)k >= len ? -1 : 0;
}

int nvh_connect(const struct nvh_conn *c, int *instance, int *cntlid)
{
	char opts[1024], reply[256];
	int fd, e = 0;
	ssize_t r;

	if (nvh_opts(c, opts, sizeof(opts))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(NVH_FABRICS, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	/* the kernel connects within this write: admin queue, then the I/O queues */
	if (write(fd, opts, strlen(opts)) < 0) {
		e = errno;
		goto out;
	}
	r = read(fd, reply, sizeof(reply) - 1);
	if (r < 0) {
		e = errno;
		goto out;
	}
	reply[r] = '\0';
	if (nvh_reply(reply, instance, cntlid))
		e = EPROTO;
out:
	close(fd);
	errno = e;
	return e ? -1 : 0;
}

int nvh_find(int instance, char *dev, size_t len)
{
	char path[64], name[64];
	struct dirent *d;
	int found = 0;
	DIR *dir;

	snprintf(path, sizeof(path), NVH_CLASS "/nvme%d", instance);
	dir = opendir(path);
	if (!dir)
		return -1;
	while (!found && (d = readdir(dir)))
		found = !nvh_head(d->d_name, instance, name, sizeof(name));
	closedir(dir);
	if (!found)
		return 1;
	if (snprintf(dev, len, "/dev/%s", name) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int nvh_delete(int instance, const char *hostnqn)
{
	char path[96], have[256];

	snprintf(path, sizeof(path), NVH_CLASS "/nvme%d/hostnqn", instance);
	if (kattr_get(path, have, sizeof(have)))
		return -1;
	if (strcmp(have, hostnqn)) {
		errno = ESTALE;
		return -1;
	}
	snprintf(path, sizeof(path), NVH_CLASS "/nvme%d/delete_controller", instance);
	return kattr_put(path, "1");
}
