// SPDX-License-Identifier: MIT
/*
 * rxe links: add, wait for ACTIVE, find, delete and wait until gone.
 *
 * `rdma link add` resolves the netdev by name in the namespace it runs in, so it
 * runs inside the namespace that owns the netdev. rdmacap expects the default
 * shared RDMA netns mode, where every device is visible in /sys/class/infiniband
 * from the caller's namespace: states and disappearance are polled there, no
 * program started. Finding leftovers asks `rdma link show` in every rdc namespace
 * too: it prints "netdev X" only where X lives, which names the owner, and in
 * exclusive mode it is the only way to see a namespace's devices.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netns/nn.h"

bool nn_rdma_present(void)
{
	return access("/sys/module/ib_core", F_OK) == 0 || access(NN_IB_DIR, F_OK) == 0;
}

static int nn_read_small(const char *path, char *buf, size_t len)
{
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
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

/* ib_core's netns_mode parameter follows `rdma system set netns`. */
bool nn_rdma_shared(void)
{
	char v[8];

	if (nn_read_small("/sys/module/ib_core/parameters/netns_mode", v, sizeof(v)) < 0)
		return true;
	return v[0] != 'N' && v[0] != '0';
}

int nn_rxe_add(const char (*name)[NN_IFNAMSIZ], const char (*netdev)[NN_IFNAMSIZ],
	       const char (*ns)[NN_NAME_MAX], int n, FILE *log)
{
	struct nn_cmd *c;
	int i, ret;

	c = calloc(n, sizeof(*c));
	if (!c) {
		fprintf(stderr, "netns: calloc: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *argv[] = {"rdma", "link",	"add",	   name[i], "type",
				      "rxe",  "netdev", netdev[i], NULL};

		c[i].ns = ns[i];
		memcpy(c[i].argv, argv, sizeof(argv));
	}
	ret = nn_cmd_run(c, n, log);
	nn_cmd_free(c, n);
	free(c);
	return ret;
}

static int nn_rxe_state(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), NN_IB_DIR "/%s/ports/1/state", name);
	return nn_read_small(path, buf, len);
}

/* A port is ACTIVE once its netdev and the peer's are up ("4: ACTIVE"). */
int nn_rxe_wait_active(const char (*name)[NN_IFNAMSIZ], int n, int timeout_ms)
{
	long long end = nn_now_ms() + timeout_ms;
	char st[64] = "";
	int i = 0;

	while (i < n) {
		if (nn_rxe_state(name[i], st, sizeof(st)) == 0 && strstr(st, "ACTIVE")) {
			i++;
			continue;
		}
		if (nn_now_ms() >= end) {
			if (access(NN_IB_DIR, F_OK) == 0 &&
			    nn_rxe_state(name[i], st, sizeof(st)) < 0)
				fprintf(stderr,
					"netns: rxe %s: not in " NN_IB_DIR
					" (rdma netns mode exclusive? rdmacap needs shared)\n",
					name[i]);
			else
				fprintf(stderr,
					"netns: rxe %s: port state \"%s\" after %d ms, not "
					"ACTIVE\n",
					name[i], st, timeout_ms);
			return -1;
		}
		nn_sleep_ms(20);
	}
	return 0;
}

static int nn_ib_list(const char *prefix, struct nn_list *out)
{
	size_t plen = strlen(prefix);
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	dir = opendir(NN_IB_DIR);
	if (!dir)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, prefix, plen) && !nn_list_has(out, de->d_name) &&
		    nn_list_add(out, de->d_name) < 0)
			ret = -1;
	closedir(dir);
	return ret;
}

/* `rdma link show` lines: "link rxe0/1 state ACTIVE physical_state LINK_UP ..." */
static int nn_rxe_parse(char *text, const char *ns, const char *prefix, struct nn_list *names,
			struct nn_list *owners)
{
	size_t plen = strlen(prefix);
	char *line, *save = NULL, dev[NN_NAME_MAX];

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "link %31[^/ ]", dev) != 1 || strncmp(dev, prefix, plen) ||
		    nn_list_has(names, dev))
			continue;
		if (nn_list_add(names, dev) < 0 || nn_list_add(owners, ns) < 0)
			return -1;
	}
	return 0;
}

/*
 * Shared mode (the default): every device shows in our /sys/class/infiniband and
 * can be deleted from here. Exclusive mode: a device is visible only inside its
 * namespace, so ask `rdma link show` in each rdc namespace, and delete it there.
 */
int nn_rxe_find(const char *prefix, const struct nn_list *nss, struct nn_list *names,
		struct nn_list *owners)
{
	struct nn_cmd *c = NULL;
	int i, n = nss->n + 1, ret = -1;

	if (!nn_rdma_present())
		return 0;
	if (nn_rdma_shared()) {
		if (nn_ib_list(prefix, names) < 0) {
			fprintf(stderr, "netns: read " NN_IB_DIR ": %s\n", strerror(errno));
			return -1;
		}
		while (owners->n < names->n)
			if (nn_list_add(owners, "") < 0)
				goto nomem;
		return 0;
	}
	c = calloc(n, sizeof(*c));
	if (!c)
		goto nomem;
	for (i = 0; i < n; i++) {
		const char *argv[] = {"rdma", "link", "show", NULL};

		c[i].ns = i ? nss->v[i - 1] : "";
		c[i].capture = true;
		memcpy(c[i].argv, argv, sizeof(argv));
	}
	if (nn_cmd_run(c, n, NULL) < 0)
		goto out;
	for (i = 0; i < n; i++)
		if (nn_rxe_parse(c[i].output, c[i].ns, prefix, names, owners) < 0)
			goto nomem;
	ret = 0;
	goto out;
nomem:
	fprintf(stderr, "netns: rxe list: %s\n", strerror(ENOMEM));
out:
	if (c)
		nn_cmd_free(c, n);
	free(c);
	return ret;
}

/* How many of 'names' still exist; in exclusive mode that takes a new listing. */
static int nn_rxe_left(const struct nn_list *names, const struct nn_list *owners)
{
	struct nn_list nss = {0}, found = {0}, own = {0};
	int i, left = 0, err = 0;

	if (nn_rdma_shared()) {
		char path[PATH_MAX];

		for (i = 0; i < names->n; i++) {
			snprintf(path, sizeof(path), NN_IB_DIR "/%s", names->v[i]);
			if (access(path, F_OK) == 0)
				left++;
		}
		return left;
	}
	for (i = 0; i < owners->n; i++)
		if (*owners->v[i] && !nn_list_has(&nss, owners->v[i]) &&
		    nn_list_add(&nss, owners->v[i]) < 0)
			err = -1;
	if (!err && nn_rxe_find(NN_PREFIX, &nss, &found, &own) < 0)
		err = -1;
	for (i = 0; i < names->n; i++)
		left += nn_list_has(&found, names->v[i]);
	nn_list_free(&nss);
	nn_list_free(&found);
	nn_list_free(&own);
	return err ? err : left;
}

/*
 * One `rdma -b` per owning namespace (a single one in shared mode), one after the
 * other: in a TCG guest, deleting 17 rxe devices at once took 45 s, one by one
 * 6 s (every unregister walks all namespaces for the compat devices).
 */
int nn_rxe_del(const struct nn_list *names, const struct nn_list *owners, FILE *log)
{
	struct nn_list nss = {0};
	char *script = NULL;
	int i, j, left, ret = -1;
	long long end;

	if (!names->n)
		return 0;
	for (i = 0; i < owners->n; i++)
		if (!nn_list_has(&nss, owners->v[i]) && nn_list_add(&nss, owners->v[i]) < 0)
			goto nomem;
	for (j = 0; j < nss.n; j++) {
		size_t len = 0;
		FILE *f = open_memstream(&script, &len);
		int r;

		if (!f)
			goto nomem;
		for (i = 0; i < names->n; i++)
			if (!strcmp(owners->v[i], nss.v[j]))
				fprintf(f, "link delete %s\n", names->v[i]);
		if (fclose(f))
			goto nomem;
		/* -f: one device that went meanwhile must not keep the others. */
		r = nn_batch(nss.v[j], "rdma", script, true, log);
		free(script);
		script = NULL;
		if (r < 0)
			goto out;
	}

	/* Unregistering is asynchronous (ib_unregister_device_queued): wait it out. */
	end = nn_now_ms() + NN_RXE_TIMEOUT_MS;
	while ((left = nn_rxe_left(names, owners)) > 0 && nn_now_ms() < end)
		nn_sleep_ms(nn_rdma_shared() ? 20 : 200);
	if (left < 0)
		goto out;
	if (left) {
		fprintf(stderr, "netns: %d rxe devices still present %d s after rdma link delete\n",
			left, NN_RXE_TIMEOUT_MS / 1000);
		goto out;
	}
	ret = 0;
	goto out;
nomem:
	fprintf(stderr, "netns: rxe delete: %s\n", strerror(ENOMEM));
out:
	free(script);
	nn_list_free(&nss);
	return ret;
}
