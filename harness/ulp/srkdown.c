// SPDX-License-Identifier: MIT
/*
 * `rdmacap down` for srp: a killed run's SCSI hosts (by their LUN's model),
 * TPGs, listener and backstores, found by their names (common/srpname.h) and removed in the
 * order the kernel needs: the initiator's hosts before the target, links
 * before the folders they sit in, the TPG before the backstore its LUN
 * points at (nvk.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/srpname.h"
#include "harness/ulp/nvk.h"

/* a remote port's removal is queued work; 10 s is a logout that hangs */
#define SRKD_WAIT_MS 10000
#define SRKD_POLL_MS 50

struct srkd {
	const char *run;	/* NULL: every run's */
	struct nvkd_tally t;
	int others;
};

/* until host H's SCSI host is gone, SRKD_WAIT_MS at most */
static void srkd_host_gone(int h)
{
	struct timespec ts = { 0, SRKD_POLL_MS * 1000000L };
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), SRPN_HOSTS "/host%d", h);
	for (int i = 0; i < SRKD_WAIT_MS / SRKD_POLL_MS && !stat(path, &st); i++)
		nanosleep(&ts, NULL);
}

/*
 * The SRP hosts whose LUN 0 shows our model now; with del, each one's remote
 * port deleted and the host waited for before the next: ib_srp's removal of
 * hosts side by side was seen to oops the 7.2 kernel (srp_remove_work ->
 * srp_terminate_io on a host whose channels the target had closed)
 */
static int srkd_hosts(struct srkd *k, bool del)
{
	DIR *d = opendir(SRPN_RPORTS);
	char path[300], model[64];
	struct dirent *e;
	int n = 0, h;

	while (d && (e = readdir(d))) {
		h = srpn_rport_host(e->d_name);
		if (h < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/scsi/devices/%d:0:0:0/model", h);
		if (nvkd_get(path, model, sizeof(model)))
			continue;
		srpn_model_trim(model);
		if (!srpn_name_ours(model, k->run))
			continue;
		n++;
		if (!del)
			continue;
		snprintf(path, sizeof(path), SRPN_RPORTS "/%s/delete", e->d_name);
		nvkd_did(&k->t, "delete SRP remote port", path, nvkd_put(path, "1"));
		srkd_host_gone(h);
	}
	if (d)
		closedir(d);
	return n;
}

/* the symlinks in dir unlinked, then dir removed */
static void srkd_rmdir_links(struct srkd *k, const char *dir)
{
	DIR *d = opendir(dir);
	char path[700];
	struct dirent *e;
	struct stat st;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (e->d_name[0] != '.' && !lstat(path, &st) && S_ISLNK(st.st_mode))
			nvkd_did(&k->t, "unlink", path, unlink(path));
	}
	if (d)
		closedir(d);
	nvkd_did(&k->t, "rmdir", dir, rmdir(dir));
}

/* each lun_* folder of dir emptied of its links and removed */
static void srkd_luns(struct srkd *k, const char *dir)
{
	DIR *d = opendir(dir);
	char path[600];
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "lun_", 4))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		srkd_rmdir_links(k, path);
	}
	if (d)
		closedir(d);
}

/* one TPG of ours: disabled, its ACLs and LUNs, then itself */
static void srkd_tpg(struct srkd *k, const char *tpg)
{
	char path[500], acl[600];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "%s/enable", tpg);
	if (nvkd_put(path, "0") && errno != ENOENT)
		fprintf(stderr, "rdmacap: down: disable %s: %s\n", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/acls", tpg);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(acl, sizeof(acl), "%s/%s", path, e->d_name);
		srkd_luns(k, acl);
		nvkd_did(&k->t, "rmdir", acl, rmdir(acl));
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), "%s/lun", tpg);
	srkd_luns(k, path);
	nvkd_did(&k->t, "rmdir", tpg, rmdir(tpg));
}

int srkd_others(const char *tport)
{
	char dir[300], path[600];
	struct dirent *e;
	struct stat st;
	int n = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), SRPN_SRPT "/%s", tport);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		/* a TPG has an enable attribute; the port's own groups have none */
		snprintf(path, sizeof(path), "%s/%s/enable", dir, e->d_name);
		n += e->d_name[0] != '.' && !stat(path, &st) && !srpn_name_ours(e->d_name, NULL);
	}
	if (d)
		closedir(d);
	return n;
}

/* our TPGs of srpt port tport; the port itself when it is left with none */
static void srkd_tport(struct srkd *k, const char *tport)
{
	char dir[300], path[600];
	struct dirent *e;
	int mine = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), SRPN_SRPT "/%s", tport);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (!srpn_name_ours(e->d_name, k->run))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		srkd_tpg(k, path);
		mine++;
	}
	if (d)
		closedir(d);
	k->others += srkd_others(tport);
	if (mine && !srkd_others(tport))
		nvkd_did(&k->t, "rmdir", dir, rmdir(dir));
}

/* the srpt ports there are, ours or not: the folders but discovery_auth */
static int srkd_ports(void)
{
	DIR *d = opendir(SRPN_SRPT);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_type == DT_DIR && e->d_name[0] != '.' &&
		     strcmp(e->d_name, "discovery_auth");
	if (d)
		closedir(d);
	return n;
}

/* our backstore HBAs (and their devices) of the run asked for */
static void srkd_core(struct srkd *k)
{
	DIR *d = opendir(SRPN_CORE), *h;
	char dir[300], path[600];
	struct dirent *e, *f;
	unsigned id;

	while (d && (e = readdir(d))) {
		if (sscanf(e->d_name, "iblock_%u", &id) != 1 || id < SRPN_HBA_BASE ||
		    id >= SRPN_HBA_BASE + 0x1000 || (k->run && id != srpn_hba(k->run)))
			continue;
		snprintf(dir, sizeof(dir), SRPN_CORE "/%s", e->d_name);
		h = opendir(dir);
		while (h && (f = readdir(h))) {
			if (!srpn_name_ours(f->d_name, NULL))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, f->d_name);
			nvkd_did(&k->t, "rmdir", path, rmdir(path));
		}
		if (h)
			closedir(h);
		nvkd_did(&k->t, "rmdir", dir, rmdir(dir));
	}
	if (d)
		closedir(d);
}

/* every host of ours deleted, then waited for: SRKD_WAIT_MS at most */
static void srkd_hosts_gone(struct srkd *k)
{
	struct timespec ts = { 0, SRKD_POLL_MS * 1000000L };

	srkd_hosts(k, true);
	for (int i = 0; i < SRKD_WAIT_MS / SRKD_POLL_MS && srkd_hosts(k, false); i++)
		nanosleep(&ts, NULL);
}

int srkd_hosts_clean(const char *run, FILE *log, int *removed)
{
	struct srkd k = { .run = run, .t.log = log };

	srkd_hosts_gone(&k);
	*removed += k.t.removed;
	return k.t.failed ? -1 : 0;
}

int srkd_clean(const char *run, FILE *log, int *removed, int *others)
{
	struct srkd k = { .run = run, .t.log = log };
	char port[16], want[16];
	struct dirent *e;
	DIR *d;

	/* the hosts go before their target: one whose target vanished first retries */
	srkd_hosts_gone(&k);
	d = opendir(SRPN_SRPT);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "discovery_auth"))
			srkd_tport(&k, e->d_name);
	if (d)
		closedir(d);
	/* ib_srpt's listener is ours when it is on our port and no TPG is left to use it */
	snprintf(want, sizeof(want), "%u", SRPN_CM_PORT);
	if (!k.others && !nvkd_get(SRPN_CM_PORT_ATTR, port, sizeof(port)) && !strcmp(port, want))
		nvkd_did(&k.t, "write 0 to", SRPN_CM_PORT_ATTR, nvkd_put(SRPN_CM_PORT_ATTR, "0"));
	/* the fabric's folder pins ib_srpt: it goes when no port is left in it (ours or not) */
	if (!k.others && k.t.removed && !srkd_ports())
		nvkd_did(&k.t, "rmdir", SRPN_SRPT, rmdir(SRPN_SRPT));
	srkd_core(&k);
	*removed += k.t.removed;
	*others = k.others;
	return k.t.failed ? -1 : 0;
}
