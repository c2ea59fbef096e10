// SPDX-License-Identifier: MIT
/*
 * Removing everything whose name starts with a prefix: "rdc<run>" for one run
 * (nn_down, and nn_up undoing a failed start), "rdc" for all of them (nn_clean).
 * Objects are found on the host, not remembered, so this works the same after a
 * SIGKILL. The order is the safe one:
 *
 *   1. processes in the namespaces (they would pin rxe contexts),
 *   2. rxe links, then wait until the devices are really gone: the 7.1 netns code
 *      had a double free when a namespace died while its rxe was unregistering,
 *   3. links (a veth end takes its peer along; the bridge goes last with its ns),
 *   4. namespaces.
 *
 * A step that fails stops the ones after it, so a namespace is never deleted while
 * an rxe may still live in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netns/nn.h"

/*
 * A veth pair with both ends in one namespace (loop's s0/c0) must be deleted by one
 * end only, or the second `link del` fails. Names: rdc + 4 hex + 's'|'c' + digits.
 */
static bool nn_peer_listed(const struct nn_list *links, const char *name)
{
	const size_t at = strlen(NN_PREFIX) + 4;
	char peer[NN_NAME_MAX];

	if (strlen(name) <= at + 1 || name[at] != 'c' ||
	    strspn(name + at + 1, "0123456789") != strlen(name + at + 1))
		return false;
	snprintf(peer, sizeof(peer), "%s", name);
	peer[at] = 's';
	return nn_list_has(links, peer);
}

static int nn_del_links(const char *ns, const char *prefix, FILE *log, int *removed)
{
	struct nn_list links = { 0 };
	char *script = NULL;
	size_t len = 0;
	int i, n = 0, ret = -1;
	FILE *f;

	if (nn_ns_links(ns, prefix, &links) < 0)
		return -1;
	if (!links.n) {
		ret = 0;
		goto out;
	}
	f = open_memstream(&script, &len);
	if (!f)
		goto out;
	for (i = 0; i < links.n; i++) {
		if (nn_peer_listed(&links, links.v[i]))
			continue;
		fprintf(f, "link del %s\n", links.v[i]);
		n++;
	}
	if (fclose(f)) {
		fprintf(stderr, "netns: link script: %s\n", strerror(errno));
		goto out;
	}
	/* -force: one link that vanished meanwhile must not keep the others. */
	if (nn_batch(ns, "ip", script, true, log) < 0)
		goto out;
	*removed += n;
	ret = 0;
out:
	free(script);
	nn_list_free(&links);
	return ret;
}

static int nn_del_ns(const struct nn_list *nss, FILE *log)
{
	char *script = NULL;
	size_t len = 0;
	int i, ret;
	FILE *f;

	f = open_memstream(&script, &len);
	if (!f)
		return -1;
	for (i = 0; i < nss->n; i++)
		fprintf(f, "netns del %s\n", nss->v[i]);
	if (fclose(f)) {
		fprintf(stderr, "netns: netns script: %s\n", strerror(errno));
		free(script);
		return -1;
	}
	ret = nn_batch("", "ip", script, true, log);
	free(script);
	return ret;
}

/* Server namespaces first: their veth ends take the clients' ends along. */
static int nn_srv_first(const void *a, const void *b)
{
	const char *x = a, *y = b;
	bool sx = strstr(x, "-srv") != NULL, sy = strstr(y, "-srv") != NULL;

	if (sx != sy)
		return sx ? -1 : 1;
	return strcmp(x, y);
}

int nn_teardown(const char *prefix, FILE *log, int *removed)
{
	struct nn_list nss = { 0 }, live = { 0 }, rxe = { 0 }, owners = { 0 };
	int i, killed, n = 0, ret = -1;

	if (nn_ns_list(prefix, &nss) < 0) {
		fprintf(stderr, "netns: read " NN_NS_DIR ": %s\n", strerror(errno));
		goto out;
	}
	qsort(nss.v, nss.n, sizeof(*nss.v), nn_srv_first);
	for (i = 0; i < nss.n; i++)
		if (nn_ns_real(nss.v[i]) && nn_list_add(&live, nss.v[i]) < 0) {
			fprintf(stderr, "netns: namespace list: %s\n", strerror(ENOMEM));
			goto out;
		}

	if (nn_ns_kill(&live, log, &killed) < 0)
		goto out;

	if (nn_rxe_find(prefix, &live, &rxe, &owners) < 0 ||
	    nn_rxe_del(&rxe, &owners, log) < 0)
		goto out;
	n += rxe.n;

	if (nn_del_links("", prefix, log, &n) < 0)
		goto out;
	for (i = 0; i < live.n; i++)
		if (nn_del_links(live.v[i], prefix, log, &n) < 0)
			goto out;

	if (nss.n && nn_del_ns(&nss, log) < 0)
		goto out;
	n += nss.n;
	ret = 0;
out:
	if (removed)
		*removed = n;
	nn_list_free(&owners);
	nn_list_free(&rxe);
	nn_list_free(&live);
	nn_list_free(&nss);
	return ret;
}

int nn_clean(FILE *log, int *removed)
{
	return nn_teardown(NN_PREFIX, log, removed);
}
