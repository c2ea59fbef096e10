// SPDX-License-Identifier: MIT
/*
 * A SCSI host of the kernel's SRP initiator: logged in, found, removed (srp_host.h).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agents/kattr.h"
#include "agents/srp/srp_host.h"
#include "common/srpname.h"

/*
 * a remote port's removal is queued work (srp_remove_work): the host goes
 * within one logout, ~100 ms under TCG; 10 s is a logout that hangs
 */
#define SRH_GONE_MS 10000
#define SRH_POLL_MS 20

int srh_opts(const struct srh_login *l, char *buf, size_t len)
{
	int n = snprintf(buf, len, "id_ext=%016llx,ioc_guid=%016llx,dest=%s,initiator_ext=%016llx",
			 (unsigned long long)l->guid, (unsigned long long)l->guid, l->dest,
			 (unsigned long long)l->ext);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int srh_ext(const char *s, uint64_t *v)
{
	if (strncmp(s, "0x", 2) || strspn(s + 2, "0123456789abcdef") != 16 || s[18])
		return -1;
	*v = strtoull(s + 2, NULL, 16);
	return 0;
}

int srh_lun0(const char *entry, int host)
{
	unsigned h, c, t, l;
	int used = 0;

	return sscanf(entry, "%u:%u:%u:%u%n", &h, &c, &t, &l, &used) == 4 && !entry[used] &&
	       (int)h == host && l == 0;
}

int srh_guid(uint64_t *guid)
{
	char buf[40];

	if (kattr_get(SRH_SERVICE_GUID, buf, sizeof(buf)))
		return -1;
	if (srh_ext(buf, guid)) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/* the host of initiator_ext ext: its number, or -1 (ENOENT: none) */
static int srh_host(uint64_t ext)
{
	DIR *d = opendir(SRPN_HOSTS);
	char path[300], v[40];
	struct dirent *e;
	int host = -1;
	uint64_t x;

	if (!d)
		return -1;
	while (host < 0 && (e = readdir(d))) {
		if (strncmp(e->d_name, "host", 4))
			continue;
		snprintf(path, sizeof(path), SRPN_HOSTS "/%s/initiator_ext", e->d_name);
		if (!kattr_get(path, v, sizeof(v)) && !srh_ext(v, &x) && x == ext)
			host = atoi(e->d_name + 4);
	}
	closedir(d);
	if (host < 0)
		errno = ENOENT;
	return host;
}

int srh_add(const char *dev, unsigned port, const struct srh_login *l, int *host)
{
	char path[160], opts[256];

	if (srh_opts(l, opts, sizeof(opts))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(path, sizeof(path), SRPN_INITIATORS "/srp-%s-%u/add_target", dev, port);
	/* the kernel logs in within this write: the channels, then the SCSI scan */
	if (kattr_put(path, opts))
		return -1;
	*host = srh_host(l->ext);
	return *host < 0 ? -1 : 0;
}

int srh_find(int host, char *dev, size_t len)
{
	char path[300], name[64] = "";
	DIR *d = opendir("/sys/bus/scsi/devices"), *b;
	struct dirent *e;

	if (!d)
		return -1;
	while (!name[0] && (e = readdir(d))) {
		if (!srh_lun0(e->d_name, host))
			continue;
		snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%s/block", e->d_name);
		b = opendir(path);
		while (b && (e = readdir(b)))
			if (e->d_name[0] != '.')
				snprintf(name, sizeof(name), "%s", e->d_name);
		if (b)
			closedir(b);
		break;
	}
	closedir(d);
	if (!name[0])
		return 1;
	if (snprintf(dev, len, "/dev/%s", name) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* the delete attribute of host's SRP remote port ("port-H:N") into path */
static int srh_rport(int host, char *path, size_t len)
{
	DIR *d = opendir(SRPN_RPORTS);
	char want[32];
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	snprintf(want, sizeof(want), "port-%d:", host);
	while (!found && (e = readdir(d)))
		if (!strncmp(e->d_name, want, strlen(want))) {
			snprintf(path, len, SRPN_RPORTS "/%s/delete", e->d_name);
			found = 1;
		}
	closedir(d);
	if (!found)
		errno = ENOENT;
	return found ? 0 : -1;
}

int srh_delete(int host, uint64_t ext)
{
	struct timespec ts = { 0, SRH_POLL_MS * 1000000L };
	char path[300];

	if (srh_host(ext) != host) {
		errno = ESTALE;
		return -1;
	}
	if (srh_rport(host, path, sizeof(path)) || kattr_put(path, "1"))
		return -1;
	for (int i = 0; i < SRH_GONE_MS / SRH_POLL_MS; i++) {
		if (srh_host(ext) < 0)
			return 0;
		nanosleep(&ts, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}
