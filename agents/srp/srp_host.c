// SPDX-License-Identifier: MIT
/*
 * A SCSI host of the kernel's SRP initiator: logged in, found, removed (srp_host.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

/*
 * The SRP hosts now, one byte per host number (1: an SRP host) into a
 * calloc'd *map of *n; 0, or -1 with errno
 */
static int srh_hosts(uint8_t **map, int *n)
{
	DIR *d = opendir(SRPN_RPORTS);
	struct dirent *e;
	uint8_t *m;
	int h;

	*map = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		h = srpn_rport_host(e->d_name);
		if (h < 0)
			continue;
		if (h >= *n) {
			m = realloc(*map, (size_t)h + 64);
			if (!m) {
				closedir(d);
				return -1;
			}
			memset(m + *n, 0, (size_t)(h + 64 - *n));
			*map = m;
			*n = h + 64;
		}
		(*map)[h] = 1;
	}
	closedir(d);
	return 0;
}

int srh_add(const char *dev, unsigned port, const struct srh_login *l, int *host)
{
	uint8_t *before = NULL, *after = NULL;
	char path[160], opts[256];
	int fd, nb, na, e = 0;

	*host = -1;
	if (srh_opts(l, opts, sizeof(opts))) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(path, sizeof(path), SRPN_INITIATORS "/srp-%s-%u/add_target", dev, port);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX) || srh_hosts(&before, &nb)) {
		e = errno;
		goto out;
	}
	/* the kernel logs in within this write: the channels, then the SCSI scan */
	if (write(fd, opts, strlen(opts)) < 0 || srh_hosts(&after, &na)) {
		e = errno;
		goto out;
	}
	for (int h = 0; h < na && *host < 0; h++)
		if (after[h] && (h >= nb || !before[h]))
			*host = h;
	e = *host < 0 ? ENOENT : 0;
out:
	close(fd);
	free(after);
	free(before);
	errno = e;
	return e ? -1 : 0;
}

int srh_model(int host, char *buf, size_t len)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%d:0:0:0/model", host);
	if (kattr_get(path, buf, len))
		return -1;
	srpn_model_trim(buf);
	return 0;
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
	struct dirent *e;
	int found = 0;

	if (!d)
		return -1;
	while (!found && (e = readdir(d)))
		if (srpn_rport_host(e->d_name) == host) {
			snprintf(path, len, SRPN_RPORTS "/%s/delete", e->d_name);
			found = 1;
		}
	closedir(d);
	if (!found)
		errno = ENOENT;
	return found ? 0 : -1;
}

int srh_delete(int host, const char *model)
{
	struct timespec ts = { 0, SRH_POLL_MS * 1000000L };
	char path[300], have[64];
	struct stat st;

	/* a LUN that shows another model is another's; one that shows none is not yet scanned */
	if (!srh_model(host, have, sizeof(have)) && strcmp(have, model)) {
		errno = ESTALE;
		return -1;
	}
	if (srh_rport(host, path, sizeof(path)) || kattr_put(path, "1"))
		return -1;
	snprintf(path, sizeof(path), SRPN_HOSTS "/host%d", host);
	for (int i = 0; i < SRH_GONE_MS / SRH_POLL_MS; i++) {
		if (stat(path, &st))
			return 0;
		nanosleep(&ts, NULL);
	}
	errno = ETIMEDOUT;
	return -1;
}
