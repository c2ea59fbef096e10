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
 *   3. links, by run link group (a veth end takes its peer along), then by name,
 *   4. namespaces.
 *
 * A step that fails stops the ones after it, so a namespace is never deleted while
 * an rxe may still live in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netns/nn.h"

static int nn_links_script(const struct nn_list *links, bool groups, char **script)
{
	struct nn_list runs = {0};
	char run[8];
	size_t len = 0;
	int i, ret = 0;
	FILE *f;

	*script = NULL;
	f = open_memstream(script, &len);
	if (!f)
		return -1;
	for (i = 0; i < links->n; i++) {
		if (!groups) {
			fprintf(f, "link del %s\n", links->v[i]);
			continue;
		}
		snprintf(run, sizeof(run), "%.4s", links->v[i] + strlen(NN_PREFIX));
		if (!nn_run_ok(run) || nn_list_has(&runs, run))
			continue;
		if (nn_list_add(&runs, run) < 0)
			ret = -1;
		fprintf(f, "link del group %lu\n", nn_group(run));
	}
	nn_list_free(&runs);
	if (fclose(f) || ret) {
		fprintf(stderr, "netns: link script: %s\n", strerror(ENOMEM));
		free(*script);
		*script = NULL;
		return -1;
	}
	return 0;
}

/*
 * The links of each run found here go by their link group in one unregister
 * (names.c); whatever is left after that (not in its run's group) by name, where
 * a veth end may already have gone with its peer: the listing afterwards, not
 * ip's exit status, says whether it worked.
 */
static int nn_del_links(const char *ns, const char *prefix, FILE *log, int *removed)
{
	struct nn_list links = {0};
	char *script = NULL;
	int pass, found = 0, ret = -1;

	for (pass = 0;; pass++) {
		links.n = 0;
		if (nn_ns_links(ns, prefix, &links) < 0)
			goto out;
		if (!pass)
			found = links.n;
		if (!links.n)
			break;
		if (pass == 2) {
			fprintf(stderr, "netns: link %s (in %s) survived ip link del\n", links.v[0],
				nn_ns_label(ns));
			goto out;
		}
		if (nn_links_script(&links, pass == 0, &script) < 0)
			goto out;
		/* -force: one link that vanished meanwhile must not keep the others. */
		nn_batch(ns, "ip", script, true, log);
		free(script);
		script = NULL;
	}
	*removed += found;
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
	struct nn_list nss = {0}, live = {0}, rxe = {0}, owners = {0};
	int i, killed, n = 0, ret = -1;

	if (nn_ns_list(prefix, &nss) < 0) {
		fprintf(stderr, "netns: read " NN_NS_DIR ": %s\n", strerror(errno));
		goto out;
	}
	if (nss.n)
		qsort(nss.v, nss.n, sizeof(*nss.v), nn_srv_first);
	for (i = 0; i < nss.n; i++)
		if (nn_ns_real(nss.v[i]) && nn_list_add(&live, nss.v[i]) < 0) {
			fprintf(stderr, "netns: namespace list: %s\n", strerror(ENOMEM));
			goto out;
		}

	if (nn_ns_kill(&live, log, &killed) < 0)
		goto out;

	if (nn_rxe_find(prefix, &live, &rxe, &owners) < 0 || nn_rxe_del(&rxe, &owners, log) < 0)
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
