// SPDX-License-Identifier: MIT
/*
 * The kernel modules and configfs of an nvmf run (nvk.h).
 */
#include <dirent.h>
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/nvmfname.h"
#include "harness/ulp/nvk.h"

extern char **environ;

/*
 * In load order; unloaded in reverse. null_blk makes no disk of its own. The
 * last ones come with nvme_rdma: unloaded after it when they were not there.
 */
static const char *const nvkm_mods[NVKM_NMODS][3] = {
	{ "nvmet" }, { "nvmet_rdma" }, { "nvme_rdma" }, { "null_blk", "nr_devices=0" },
	{ "nvme_fabrics" }, { "nvme_core" }, { "nvme_auth" }, { "nvme_keyring" },
};
#define NVKM_NLOAD 4

/* modprobe [-r] NAME [PARAM]: its exit status, or -1 with errno */
static int nvkm_modprobe(bool remove, const char *name, const char *param)
{
	char *argv[5] = { "modprobe", NULL };
	int n = 1, st;
	pid_t pid;

	if (remove)
		argv[n++] = "-r";
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

static bool nvkm_loaded(const char *name)
{
	char path[96];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return !stat(path, &st);
}

static int nvkm_others(void)
{
	DIR *d = opendir(NVMFN_NVMET "/subsystems");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.' && !nvmfn_nqn_ours(e->d_name);
	closedir(d);
	return n;
}

int nvkm_up(struct nvkm *m, char *why, size_t len)
{
	struct stat st;
	int r;

	memset(m, 0, sizeof(*m));
	for (int i = NVKM_NLOAD; i < NVKM_NMODS; i++)
		m->loaded[i] = !nvkm_loaded(nvkm_mods[i][0]);
	for (int i = 0; i < NVKM_NLOAD; i++) {
		if (nvkm_loaded(nvkm_mods[i][0]))
			continue;
		r = nvkm_modprobe(false, nvkm_mods[i][0], nvkm_mods[i][1]);
		if (r) {
			snprintf(why, len, "kernel module %s: %s", nvkm_mods[i][0],
				 r < 0 ? strerror(errno) : "modprobe failed (not in this kernel?)");
			return 1;
		}
		m->loaded[i] = true;
	}
	if (stat(NVMFN_NVMET, &st)) {
		/* systemd mounts it at boot; a bare system (the rxe VM) may not */
		if (mount("configfs", NVMFN_CONFIGFS, "configfs", 0, NULL)) {
			snprintf(why, len, "mount configfs on %s: %s", NVMFN_CONFIGFS,
				 strerror(errno));
			return 1;
		}
		m->mounted = true;
		if (stat(NVMFN_NVMET, &st)) {
			snprintf(why, len, "%s: %s (nvmet loaded)", NVMFN_NVMET, strerror(errno));
			return 1;
		}
	}
	m->others = nvkm_others();
	return 0;
}

void nvkm_down(struct nvkm *m, FILE *log)
{
	if (m->mounted && umount(NVMFN_CONFIGFS) && log)
		fprintf(log, "rdmacap: umount %s: %s\n", NVMFN_CONFIGFS, strerror(errno));
	m->mounted = false;
	/* ours last first, then what came with them, users before what they use */
	for (int k = 0; k < NVKM_NMODS; k++) {
		int i = k < NVKM_NLOAD ? NVKM_NLOAD - 1 - k : k;

		if (!m->loaded[i])
			continue;
		/* one already gone with the module it came with is not a failure */
		if (!nvkm_loaded(nvkm_mods[i][0])) {
			m->loaded[i] = false;
			continue;
		}
		/* a module another user took meanwhile stays: modprobe -r says so */
		if (nvkm_modprobe(true, nvkm_mods[i][0], NULL) && log)
			fprintf(log, "rdmacap: modprobe -r %s failed\n", nvkm_mods[i][0]);
		m->loaded[i] = false;
	}
}
