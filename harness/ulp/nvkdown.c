// SPDX-License-Identifier: MIT
/*
 * `rdmacap down` for nvmf: a killed run's controllers, ports, subsystems and
 * null_blk disks, found by their names (common/nvmfname.h) and removed in
 * the order the kernel needs: controllers before the target, links before
 * ports, namespaces before subsystems, disks last (nvk.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/nvmfname.h"
#include "harness/ulp/nvk.h"

/* a controller's deletion is synchronous; one already deleting takes its time */
#define NVKD_WAIT_MS 10000
#define NVKD_POLL_MS 50

struct nvkd {
	const char *run;	/* NULL: every run's */
	struct nvkd_tally t;
};

int nvkd_put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -1;
	if (write(fd, s, strlen(s)) < 0)
		e = errno;
	close(fd);
	errno = e;
	return e ? -1 : 0;
}

int nvkd_get(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0)
		return -1;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* an NQN of ours, and of the run asked for */
static bool nvkd_mine(const struct nvkd *k, const char *nqn)
{
	return nvmfn_nqn_ours(nqn) && (!k->run || !strcmp(nvmfn_nqn_run(nqn), k->run));
}

void nvkd_did(struct nvkd_tally *t, const char *what, const char *path, int r)
{
	/* gone meanwhile: its own agent, or the kernel, was faster */
	if (r && errno == ENOENT)
		return;
	if (r) {
		t->failed++;
		fprintf(stderr, "rdmacap: down: %s %s: %s\n", what, path, strerror(errno));
		return;
	}
	t->removed++;
	if (t->log)
		fprintf(t->log, "rdmacap: down: %s %s\n", what, path);
}

/* our controllers now; with del, each is deleted too */
static int nvkd_ctrls(struct nvkd *k, bool del)
{
	DIR *d = opendir("/sys/class/nvme");
	char path[300], nqn[256];
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "nvme", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/subsysnqn", e->d_name);
		if (nvkd_get(path, nqn, sizeof(nqn)) || !nvkd_mine(k, nqn))
			continue;
		n++;
		if (!del)
			continue;
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/delete_controller", e->d_name);
		nvkd_did(&k->t, "delete controller", path, nvkd_put(path, "1"));
	}
	closedir(d);
	return n;
}

/*
 * The controllers gone before their target goes: one whose target vanished
 * first reconnects for ctrl_loss_tmo (600 s by default) instead of leaving.
 */
static void nvkd_ctrls_gone(struct nvkd *k)
{
	struct timespec ts = { 0, NVKD_POLL_MS * 1000000L };

	nvkd_ctrls(k, true);
	for (int i = 0; i < NVKD_WAIT_MS / NVKD_POLL_MS && nvkd_ctrls(k, false); i++)
		nanosleep(&ts, NULL);
}

/* our links out of port dir; then the port itself when it is ours and empty */
static void nvkd_port(struct nvkd *k, const char *name)
{
	char dir[300], path[600];
	unsigned id = 0, mine = 0, left = 0;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), NVMFN_NVMET "/ports/%s/subsystems", name);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (!nvkd_mine(k, e->d_name)) {
			left++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		nvkd_did(&k->t, "unlink", path, unlink(path));
		mine++;
	}
	closedir(d);
	if (sscanf(name, "%u", &id) != 1 || id < NVMFN_PORT_BASE || id >= NVMFN_PORT_BASE + 0x1000 ||
	    left)
		return;
	/* a port of our range: ours if it served one of ours, or any run's when asked all */
	if (!mine && k->run && id != nvmfn_port_id(k->run))
		return;
	snprintf(path, sizeof(path), NVMFN_NVMET "/ports/%s", name);
	nvkd_did(&k->t, "rmdir", path, rmdir(path));
}

static void nvkd_subsys(struct nvkd *k, const char *nqn)
{
	char dir[300], path[600];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), NVMFN_NVMET "/subsystems/%s/namespaces", nqn);
	d = opendir(dir);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/enable", dir, e->d_name);
		if (nvkd_put(path, "0"))
			fprintf(stderr, "rdmacap: down: disable %s: %s\n", path, strerror(errno));
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		nvkd_did(&k->t, "rmdir", path, rmdir(path));
	}
	if (d)
		closedir(d);
	snprintf(path, sizeof(path), NVMFN_NVMET "/subsystems/%s", nqn);
	nvkd_did(&k->t, "rmdir", path, rmdir(path));
}

static void nvkd_each(struct nvkd *k, const char *dir, void (*fn)(struct nvkd *, const char *),
		      bool (*want)(const struct nvkd *, const char *))
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && (!want || want(k, e->d_name)))
			fn(k, e->d_name);
	closedir(d);
}

static bool nvkd_blk_mine(const struct nvkd *k, const char *name)
{
	size_t n = strlen(NVMFN_BLK_PREFIX);

	return !strncmp(name, NVMFN_BLK_PREFIX, n) && strlen(name) > n &&
	       strspn(name + n, "0123456789abcdef") == strlen(name + n) &&
	       (!k->run || !strcmp(name + n, k->run));
}

static void nvkd_blk(struct nvkd *k, const char *name)
{
	char path[300];

	snprintf(path, sizeof(path), NVMFN_NULLB "/%s/power", name);
	if (nvkd_put(path, "0"))
		fprintf(stderr, "rdmacap: down: power off %s: %s\n", path, strerror(errno));
	snprintf(path, sizeof(path), NVMFN_NULLB "/%s", name);
	nvkd_did(&k->t, "rmdir", path, rmdir(path));
}

static int nvkd_count_others(void)
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

int nvkd_service(enum opt_transport tr, const char *run, FILE *log, int *removed, int *others)
{
	int bad = tr == OPT_TR_SRP ? srkd_clean(run, log, removed, others) : 0;

	return nvkd_clean(run, log, removed, others) | bad;
}

int nvkd_hosts(const char *run, FILE *log, int *removed)
{
	struct nvkd k = { .run = run, .t.log = log };

	nvkd_ctrls_gone(&k);
	*removed += k.t.removed;
	return k.t.failed ? -1 : 0;
}

int nvkd_clean(const char *run, FILE *log, int *removed, int *others)
{
	struct nvkd k = { .run = run, .t.log = log };

	nvkd_ctrls_gone(&k);
	nvkd_each(&k, NVMFN_NVMET "/ports", nvkd_port, NULL);
	nvkd_each(&k, NVMFN_NVMET "/subsystems", nvkd_subsys, nvkd_mine);
	nvkd_each(&k, NVMFN_NULLB, nvkd_blk, nvkd_blk_mine);
	*removed += k.t.removed;
	*others = nvkd_count_others();
	return k.t.failed ? -1 : 0;
}
