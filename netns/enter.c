// SPDX-License-Identifier: MIT
/*
 * Entering namespaces, namespaced sysctls, and looking inside rdc namespaces
 * (their links and their processes) without starting any program.
 *
 * Work inside another namespace happens in a forked child that setns()es and
 * reports back over a pipe, or (nn_open_net) in a thread that only opens files
 * there: the caller's own thread never changes namespace.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "netns/nn.h"

int nn_list_add(struct nn_list *l, const char *name)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		void *v = realloc(l->v, cap * sizeof(*l->v));

		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	snprintf(l->v[l->n++], sizeof(*l->v), "%s", name);
	return 0;
}

bool nn_list_has(const struct nn_list *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return true;
	return false;
}

void nn_list_free(struct nn_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

int nn_enter(const char *ns)
{
	char path[PATH_MAX];
	int fd, ret, err;

	if (!ns || !*ns)
		return 0;
	if (strchr(ns, '/') ||
	    (size_t)snprintf(path, sizeof(path), NN_NS_DIR "/%s", ns) >= sizeof(path)) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = setns(fd, CLONE_NEWNET);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/* a child that joined 'ns' runs fn (nn.h) */
int nn_in_ns(const char *ns, int (*fn)(void *, int), void *arg, char **out)
{
	size_t len = 0;
	char buf[4096], *p;
	int pfd[2], status, err = 0;
	ssize_t r;
	pid_t pid;

	if (out)
		*out = NULL;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		errno = err;
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		if (nn_enter(ns) < 0)
			_exit(errno & 0xff);
		_exit(fn(arg, pfd[1]) & 0xff);
	}
	close(pfd[1]);
	for (;;) {
		r = read(pfd[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0)
				err = errno;
			break;
		}
		if (!out)
			continue;
		p = realloc(*out, len + r + 1);
		if (!p) {
			err = ENOMEM;
			continue;
		}
		memcpy(p + len, buf, r);
		len += r;
		p[len] = '\0';
		*out = p;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			err = err ? err : errno;
			goto out;
		}
	}
	if (!WIFEXITED(status))
		err = err ? err : EINTR;
	else if (WEXITSTATUS(status))
		err = WEXITSTATUS(status);
out:
	if (err) {
		if (out) {
			free(*out);
			*out = NULL;
		}
		errno = err;
		return -1;
	}
	if (out && !*out)
		*out = strdup("");
	return out && !*out ? -1 : 0;
}

static int nn_sysctl_path(char *path, size_t len, const char *key)
{
	size_t i, off;

	off = snprintf(path, len, "/proc/sys/");
	if (!*key || off + strlen(key) >= len) {
		errno = EINVAL;
		return -1;
	}
	/* "net.core.somaxconn" or already "net/core/somaxconn" (keys with dots). */
	for (i = 0; key[i]; i++)
		path[off + i] = strchr(key, '/') || key[i] != '.' ? key[i] : '/';
	path[off + i] = '\0';
	return 0;
}

struct nn_sysctl {
	const char *path;
	const char *val;
};

static int nn_sysctl_write(void *arg, int wfd)
{
	struct nn_sysctl *s = arg;
	size_t len = strlen(s->val);
	int fd, err = 0;

	(void)wfd;
	fd = open(s->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	/* One write: the kernel parses a sysctl value from a single buffer. */
	if (write(fd, s->val, len) != (ssize_t)len)
		err = errno ? errno : EIO;
	if (close(fd) < 0 && !err)
		err = errno;
	return err;
}

static int nn_sysctl_read(void *arg, int wfd)
{
	struct nn_sysctl *s = arg;
	char buf[4096];
	ssize_t r;
	int fd;

	fd = open(s->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		if (write(wfd, buf, r) != r)
			break;
	close(fd);
	return r < 0 ? errno : 0;
}

int nn_sysctl_set(const char *ns, const char *key, const char *val)
{
	struct nn_sysctl s = {.val = val};
	char path[PATH_MAX];
	int err;

	if (nn_sysctl_path(path, sizeof(path), key) < 0)
		goto fail;
	s.path = path;
	/* /proc/sys/net resolves against the reader's namespace, so no mount tricks. */
	if (!ns || !*ns) {
		err = nn_sysctl_write(&s, -1);
		if (!err)
			return 0;
		errno = err;
		goto fail;
	}
	if (nn_in_ns(ns, nn_sysctl_write, &s, NULL) == 0)
		return 0;
fail:
	err = errno;
	fprintf(stderr, "netns: sysctl %s=%s (in %s): %s\n", key, val, nn_ns_label(ns),
		strerror(err));
	errno = err;
	return -1;
}

int nn_sysctl_get(const char *ns, const char *key, char *buf, size_t len)
{
	struct nn_sysctl s = {0};
	char path[PATH_MAX], *out = NULL;
	size_t n;
	int err;

	if (nn_sysctl_path(path, sizeof(path), key) < 0)
		goto fail;
	s.path = path;
	if (nn_in_ns(ns, nn_sysctl_read, &s, &out) < 0)
		goto fail;
	n = strlen(out);
	while (n && isspace((unsigned char)out[n - 1]))
		n--;
	if (n >= len) {
		free(out);
		errno = ENOSPC;
		goto fail;
	}
	memcpy(buf, out, n);
	buf[n] = '\0';
	free(out);
	return 0;
fail:
	err = errno;
	/* a sysctl that does not exist (module not loaded) is an answer, not an error */
	if (err != ENOENT)
		fprintf(stderr, "netns: sysctl %s (in %s): %s\n", key, nn_ns_label(ns),
			strerror(err));
	errno = err;
	return -1;
}

/* A name in /run/netns that is not an nsfs mount is a leftover of a failed add. */
bool nn_ns_real(const char *ns)
{
	char path[PATH_MAX];
	struct statfs sf;

	snprintf(path, sizeof(path), NN_NS_DIR "/%s", ns);
	return statfs(path, &sf) == 0 && sf.f_type == NSFS_MAGIC;
}

int nn_ns_list(const char *prefix, struct nn_list *out)
{
	size_t plen = strlen(prefix);
	struct dirent *de;
	DIR *dir;
	int ret = 0;

	dir = opendir(NN_NS_DIR);
	if (!dir)
		return errno == ENOENT ? 0 : -1;
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, prefix, plen) && nn_list_add(out, de->d_name) < 0)
			ret = -1;
	closedir(dir);
	return ret;
}

struct nn_links {
	const char *prefix;
};

static int nn_links_write(void *arg, int wfd)
{
	struct nn_links *l = arg;
	struct if_nameindex *ifs, *i;
	size_t plen = strlen(l->prefix);
	int err = 0;

	ifs = if_nameindex();
	if (!ifs)
		return errno ? errno : EIO;
	for (i = ifs; i->if_index && !err; i++) {
		if (strncmp(i->if_name, l->prefix, plen))
			continue;
		if (dprintf(wfd, "%s\n", i->if_name) < 0)
			err = errno;
	}
	if_freenameindex(ifs);
	return err;
}

/* Links named prefix* inside 'ns' ("" = the caller's namespace). */
int nn_ns_links(const char *ns, const char *prefix, struct nn_list *out)
{
	struct nn_links l = {prefix};
	char *text, *s, *save = NULL;
	int ret = 0;

	if (nn_in_ns(ns, nn_links_write, &l, &text) < 0) {
		fprintf(stderr, "netns: list links (in %s): %s\n", nn_ns_label(ns),
			strerror(errno));
		return -1;
	}
	for (s = strtok_r(text, "\n", &save); s; s = strtok_r(NULL, "\n", &save))
		if (nn_list_add(out, s) < 0)
			ret = -1;
	free(text);
	return ret;
}

/* Processes whose network namespace is one of ids[], as `ip netns pids` finds them. */
static int nn_ns_pids(const struct stat *ids, int nids, pid_t *pids, int max)
{
	char path[64];
	struct dirent *de;
	struct stat st;
	int i, n = 0;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return -1;
	while ((de = readdir(dir)) && n < max) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/ns/net", de->d_name);
		/* Exited processes (zombies) have no namespace left: skipped here. */
		if (stat(path, &st) < 0)
			continue;
		for (i = 0; i < nids; i++)
			if (st.st_dev == ids[i].st_dev && st.st_ino == ids[i].st_ino)
				pids[n++] = atoi(de->d_name);
	}
	closedir(dir);
	return n;
}

#define NN_MAX_PIDS 65536

/*
 * SIGTERM, a short grace, then SIGKILL for every process inside the namespaces.
 * They can only be rdmacap's agents; one left holding an rxe context would make
 * `rdma link del` wait for it forever (rxe cannot disassociate user contexts).
 */
int nn_ns_kill(const struct nn_list *nss, FILE *log, int *killed)
{
	static const int sigs[] = {SIGTERM, SIGKILL};
	static const int grace_ms[] = {1000, 3000};
	struct stat *ids = NULL;
	char path[PATH_MAX];
	int i, s, n = 0, nids = 0, ret = -1;
	pid_t *pids = NULL;
	long long end;

	*killed = 0;
	if (!nss->n)
		return 0;
	ids = calloc(nss->n, sizeof(*ids));
	pids = calloc(NN_MAX_PIDS, sizeof(*pids));
	if (!ids || !pids)
		goto out;
	for (i = 0; i < nss->n; i++) {
		snprintf(path, sizeof(path), NN_NS_DIR "/%s", nss->v[i]);
		/* A leftover file that was never mounted matches no process. */
		if (stat(path, &ids[nids]) == 0)
			nids++;
	}
	for (s = 0; s < 2; s++) {
		n = nn_ns_pids(ids, nids, pids, NN_MAX_PIDS);
		if (n < 0)
			goto out;
		if (!n)
			break;
		for (i = 0; i < n; i++) {
			if (log)
				fprintf(log, "netns: kill -%s %d (left in an rdc namespace)\n",
					s ? "KILL" : "TERM", pids[i]);
			if (kill(pids[i], sigs[s]) < 0 && errno != ESRCH)
				fprintf(stderr, "netns: kill %d: %s\n", pids[i], strerror(errno));
		}
		if (s == 0)
			*killed = n;
		end = nn_now_ms() + grace_ms[s];
		while ((n = nn_ns_pids(ids, nids, pids, NN_MAX_PIDS)) > 0 && nn_now_ms() < end)
			nn_sleep_ms(20);
		if (n < 0)
			goto out;
		if (!n)
			break;
	}
	if (n > 0) {
		fprintf(stderr,
			"netns: %d processes still in rdc namespaces after SIGKILL (pid %d "
			"first)\n",
			n, pids[0]);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0 && (!ids || !pids))
		fprintf(stderr, "netns: calloc: %s\n", strerror(ENOMEM));
	free(pids);
	free(ids);
	return ret;
}

struct nn_udp {
	unsigned int port;
};

/* Is a UDP socket bound to port (v4 or v6) in this namespace's /proc/net/udp*? */
static int nn_udp_write(void *arg, int wfd)
{
	static const char *files[] = {"/proc/net/udp", "/proc/net/udp6"};
	struct nn_udp *u = arg;
	bool found = false;
	char line[512];
	unsigned int f;
	FILE *fp;

	for (f = 0; f < 2 && !found; f++) {
		fp = fopen(files[f], "re");
		if (!fp)
			continue; /* no IPv6 */
		while (!found && fgets(line, sizeof(line), fp)) {
			char local[128];
			char *colon;

			/* "  0: 00000000:12B7 00000000:0000 07 ..." */
			if (sscanf(line, " %*[0-9]: %127s", local) != 1)
				continue;
			colon = strrchr(local, ':');
			if (colon && strtoul(colon + 1, NULL, 16) == u->port)
				found = true;
		}
		fclose(fp);
	}
	return dprintf(wfd, "%d", found) < 0 ? errno : 0;
}

int nn_ns_udp_bound(const char *ns, unsigned int port)
{
	struct nn_udp u = {port};
	char *out;
	int ret;

	if (nn_in_ns(ns, nn_udp_write, &u, &out) < 0)
		return -1;
	ret = out[0] == '1';
	free(out);
	return ret;
}

struct nn_opener {
	const char *ns;
	const char *const *paths;
	int n, *fds, err;
};

static void *nn_open_thread(void *arg)
{
	struct nn_opener *o = arg;
	char path[PATH_MAX];
	int i;

	/* setns(CLONE_NEWNET) moves this thread only; it ends here */
	if (nn_enter(o->ns) < 0) {
		o->err = errno;
		return NULL;
	}
	for (i = 0; i < o->n; i++) {
		snprintf(path, sizeof(path), "/proc/thread-self/net/%s", o->paths[i]);
		o->fds[i] = open(path, O_RDONLY | O_CLOEXEC);
		if (o->fds[i] < 0) {
			o->err = errno;
			while (i-- > 0)
				close(o->fds[i]);
			return NULL;
		}
	}
	return NULL;
}

int nn_open_net(const char *ns, const char *const *paths, int n, int *fds)
{
	struct nn_opener o = { .ns = ns, .paths = paths, .n = n, .fds = fds };
	pthread_t th;
	int ret;

	ret = pthread_create(&th, NULL, nn_open_thread, &o);
	if (ret) {
		errno = ret;
		return -1;
	}
	ret = pthread_join(th, NULL);
	if (ret || o.err) {
		errno = ret ? ret : o.err;
		return -1;
	}
	return 0;
}
