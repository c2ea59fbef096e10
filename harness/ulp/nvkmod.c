// SPDX-License-Identifier: MIT
/*
 * The kernel modules and configfs of a kernel-service run (nvk.h).
 */
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/nvmfname.h"
#include "common/srpname.h"
#include "harness/ulp/nvk.h"

extern char **environ;

/*
 * A module whose last user just went may still be held a moment by the work
 * its release queued (LIO's sessions and devices, SCSI hosts): its removal is
 * tried again for up to 10 s before it is left loaded, as blktests'
 * _patient_rmmod does
 */
#define NVKM_RMMOD_WAIT_MS 10000
#define NVKM_RMMOD_POLL_MS 100

/*
 * Per service, in load order; unloaded in reverse. null_blk makes no disk of
 * its own. The last ones come with them: unloaded after them, users before
 * what they use, when they were not there. sd_mod gives the SCSI disks of
 * ib_srp's hosts their block devices (udev would load it; the rxe VM has
 * none). LIO's core loads its other backends (file, pscsi, user) when its
 * configfs is first used: they go before target_core_mod, pscsi before scsi_mod.
 */
static const struct nvkm_set {
	int nload, nmods;
	const char *mods[NVKM_NMODS][2];	/* name, parameter */
	const char *cfs;			/* the service's configfs folder */
} nvkm_sets[] = {
	{ 4, 8, { { "nvmet" }, { "nvmet_rdma" }, { "nvme_rdma" }, { "null_blk", "nr_devices=0" },
		  { "nvme_fabrics" }, { "nvme_core" }, { "nvme_auth" }, { "nvme_keyring" } },
	  NVMFN_NVMET },
	{ 5, 13, { { "null_blk", "nr_devices=0" }, { "target_core_iblock" }, { "ib_srpt" },
		   { "ib_srp" }, { "sd_mod" }, { "target_core_user" }, { "uio" },
		   { "target_core_pscsi" }, { "target_core_file" }, { "target_core_mod" },
		   { "scsi_transport_srp" }, { "scsi_mod" }, { "scsi_common" } },
	  SRPN_TARGET },
};

static const struct nvkm_set *nvkm_of(enum opt_transport tr)
{
	return &nvkm_sets[tr == OPT_TR_SRP];
}

/* modprobe [-rq] NAME [PARAM]: its exit status, or -1 with errno */
static int nvkm_modprobe(bool remove, const char *name, const char *param)
{
	char *argv[5] = { "modprobe", NULL };
	int n = 1, st;
	pid_t pid;

	/* -q: a removal is retried while the module is in use (nvkm_rmmod) */
	if (remove)
		argv[n++] = "-rq";
	argv[n++] = (char *)name;
	if (param)
		argv[n++] = (char *)param;
	argv[n] = NULL;
	errno = posix_spawnp(&pid, "modprobe", NULL, NULL, argv, environ);
	if (errno)
		return -1;
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static bool nvkm_loaded(const char *name);

/* modprobe -r name until it is gone, NVKM_RMMOD_WAIT_MS at most: 0, or -1 */
static int nvkm_rmmod(const char *name)
{
	struct timespec ts = { 0, NVKM_RMMOD_POLL_MS * 1000000L };

	for (int i = 0; i < NVKM_RMMOD_WAIT_MS / NVKM_RMMOD_POLL_MS; i++) {
		if (!nvkm_modprobe(true, name, NULL) || !nvkm_loaded(name))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

static bool nvkm_loaded(const char *name)
{
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !stat(path, &st);
}

/* the nvmet subsystems, or srpt TPGs, that are not rdmacap's */
static int nvkm_others(enum opt_transport tr)
{
	DIR *d = opendir(tr == OPT_TR_SRP ? SRPN_SRPT : NVMFN_NVMET "/subsystems");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (tr != OPT_TR_SRP)
			n += !nvmfn_nqn_ours(e->d_name);
		else if (strcmp(e->d_name, "discovery_auth"))
			n += srkd_others(e->d_name);
	}
	closedir(d);
	return n;
}

int nvkm_up(struct nvkm *m, enum opt_transport tr, char *why, size_t len)
{
	const struct nvkm_set *s = nvkm_of(tr);
	struct stat st;
	int r;

	memset(m, 0, sizeof(*m));
	m->tr = tr;
	for (int i = s->nload; i < s->nmods; i++)
		m->loaded[i] = !nvkm_loaded(s->mods[i][0]);
	for (int i = 0; i < s->nload; i++) {
		if (nvkm_loaded(s->mods[i][0]))
			continue;
		r = nvkm_modprobe(false, s->mods[i][0], s->mods[i][1]);
		if (r) {
			snprintf(why, len, "kernel module %s: %s", s->mods[i][0],
				 r < 0 ? strerror(errno) : "modprobe failed (not in this kernel?)");
			return 1;
		}
		m->loaded[i] = true;
	}
	if (stat(s->cfs, &st)) {
		/* systemd mounts it at boot; a bare system (the rxe VM) may not */
		if (mount("configfs", NVMFN_CONFIGFS, "configfs", 0, NULL)) {
			snprintf(why, len, "mount configfs on %s: %s", NVMFN_CONFIGFS,
				 strerror(errno));
			return 1;
		}
		m->mounted = true;
		if (stat(s->cfs, &st)) {
			snprintf(why, len, "%s: %s (%s loaded)", s->cfs, strerror(errno),
				 s->mods[0][0]);
			return 1;
		}
	}
	m->others = nvkm_others(tr);
	return 0;
}

void nvkm_down(struct nvkm *m, FILE *log)
{
	const struct nvkm_set *s = nvkm_of(m->tr);

	if (m->mounted && umount(NVMFN_CONFIGFS) && log)
		fprintf(log, "rdmacap: umount %s: %s\n", NVMFN_CONFIGFS, strerror(errno));
	m->mounted = false;
	/* ours last first, then what came with them, users before what they use */
	for (int k = 0; k < s->nmods; k++) {
		int i = k < s->nload ? s->nload - 1 - k : k;

		if (!m->loaded[i])
			continue;
		/* one already gone with the module it came with is not a failure */
		if (!nvkm_loaded(s->mods[i][0])) {
			m->loaded[i] = false;
			continue;
		}
		/* a module another user took meanwhile stays, and is named */
		if (nvkm_rmmod(s->mods[i][0]))
			fprintf(stderr, "rdmacap: modprobe -r %s: in use after %d s, left loaded\n",
				s->mods[i][0], NVKM_RMMOD_WAIT_MS / 1000);
		m->loaded[i] = false;
	}
}
