// SPDX-License-Identifier: MIT
/*
 * --hosts: a list or a file of "[user@]host[:port][/device]" (host a name,
 * an IPv4 address or "[IPv6]"), checked word by word before any of it
 * reaches ssh.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/opt.h"
#include "harness/hosts/hosts.h"

#define HOSTS_FILE_MAX 65536
#define HOSTS_NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/*
 * "[ADDR]" at name: the IPv6 literal, as OpenSSH users write it (its colons
 * would read as a port). The address ends at name, the rest after ']' at
 * *rest. 0, or -1.
 */
static int hosts_v6(char *name, char **rest)
{
	char *close = strchr(name, ']');
	struct in6_addr a;

	if (!close)
		return -1;
	*close = '\0';
	memmove(name, name + 1, (size_t)(close - name));
	*rest = close + 1;
	if (**rest && **rest != ':' && **rest != '/')
		return -1;
	return inet_pton(AF_INET6, name, &a) == 1 ? 0 : -1;
}

static int hosts_word(const char *w, size_t n, struct hosts_host *h, char *err, size_t len)
{
	char buf[HOSTS_NAME_MAX + 112], *at, *colon, *slash, *name = buf, *rest;
	long long port = 0;
	bool v6;

	if (n >= sizeof(buf)) {
		snprintf(err, len, "'%.40s...': too long", w);
		return -1;
	}
	memcpy(buf, w, n);
	buf[n] = '\0';
	memset(h, 0, sizeof(*h));
	at = strchr(buf, '@');
	if (at) {
		*at = '\0';
		name = at + 1;
		if (!*buf || strlen(buf) >= sizeof(h->user) || strspn(buf, HOSTS_NAME_CHARS) != strlen(buf) ||
		    *buf == '-') {
			snprintf(err, len, "'%s': bad user name", w[0] ? buf : "");
			return -1;
		}
		strcpy(h->user, buf);
	}
	rest = name;
	v6 = *name == '[';
	if (v6 && hosts_v6(name, &rest)) {
		snprintf(err, len, "'%.*s': bad IPv6 address: [ADDR] holds one, no scope, "
			 "followed by nothing, :PORT or /DEVICE", (int)n, w);
		return -1;
	}
	slash = strchr(rest, '/');
	if (slash) {
		struct opt_dev d;

		*slash = '\0';
		if (opt_device(slash + 1, &d) || d.port) {
			snprintf(err, len, "'%.*s': bad device name", (int)n, w);
			return -1;
		}
		strcpy(h->device, d.name);
	}
	colon = strchr(rest, ':');
	if (colon) {
		*colon = '\0';
		if (!v6 && strchr(colon + 1, ':')) {
			snprintf(err, len, "'%.*s': an IPv6 address is written in brackets, "
				 "[ADDR] or user@[ADDR]:PORT", (int)n, w);
			return -1;
		}
		if (opt_num(colon + 1, 1, 65535, &port)) {
			snprintf(err, len, "'%.*s': port is not 1..65535", (int)n, w);
			return -1;
		}
	}
	if (!v6 && (!*name || *name == '-' || *name == '.' || strlen(name) >= sizeof(h->name) ||
		    strspn(name, HOSTS_NAME_CHARS) != strlen(name))) {
		snprintf(err, len, "'%.*s': bad host name", (int)n, w);
		return -1;
	}
	strcpy(h->name, name);
	h->port = (unsigned)port;
	snprintf(h->dest, sizeof(h->dest), "%s%s%s", h->user, h->user[0] ? "@" : "", h->name);
	/* scp reads HOST:PATH: an IPv6 literal keeps its brackets there */
	snprintf(h->scp, sizeof(h->scp), "%s%s%s%s%s", h->user, h->user[0] ? "@" : "",
		 v6 ? "[" : "", h->name, v6 ? "]" : "");
	return 0;
}

static int hosts_words(const char *s, struct hosts_list *l, char *err, size_t len)
{
	l->n = 0;
	while (*s) {
		size_t n;

		if (*s == '#') {
			s += strcspn(s, "\n");
			continue;
		}
		s += strspn(s, ", \t\r\n");
		n = strcspn(s, ", \t\r\n#");
		if (!n)
			continue;
		/* an Open MPI hostfile's "NODE slots=N max_slots=M": one host, one agent each */
		if (!strncmp(s, "slots=", 6) || !strncmp(s, "max_slots=", 10)) {
			s += n;
			continue;
		}
		if (l->n == HOSTS_MAX) {
			snprintf(err, len, "more than %d hosts", HOSTS_MAX);
			return -1;
		}
		if (hosts_word(s, n, &l->h[l->n], err, len))
			return -1;
		l->n++;
		s += n;
	}
	if (l->n < 2) {
		snprintf(err, len, "needs a server host and at least one client host");
		return -1;
	}
	return 0;
}

/* The file's text, if spec names a regular file; NULL otherwise (errno 0: not a file). */
static char *hosts_file(const char *spec, char *err, size_t len)
{
	struct stat st;
	char *text;
	size_t n;
	FILE *f;

	errno = 0;
	if (stat(spec, &st) || !S_ISREG(st.st_mode)) {
		errno = 0;
		return NULL;
	}
	f = fopen(spec, "re");
	text = f && st.st_size < HOSTS_FILE_MAX ? calloc(1, (size_t)st.st_size + 1) : NULL;
	if (!text) {
		snprintf(err, len, "%s: %s", spec, f ? "too big or out of memory" : strerror(errno));
		if (f)
			fclose(f);
		errno = EINVAL;
		return NULL;
	}
	n = fread(text, 1, (size_t)st.st_size, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

int hosts_parse(const char *spec, struct hosts_list *l, char *err, size_t len)
{
	struct hosts_list *tmp = l ? l : malloc(sizeof(*tmp));
	char *text = hosts_file(spec, err, len);
	int rc;

	if (!tmp || (!text && errno)) {
		if (!tmp)
			snprintf(err, len, "malloc: %s", strerror(errno));
		free(text);
		if (!l)
			free(tmp);
		return -1;
	}
	rc = hosts_words(text ? text : spec, tmp, err, len);
	free(text);
	if (!l)
		free(tmp);
	return rc;
}

int hosts_server_first(struct hosts_list *l, const char *name, char *err, size_t len)
{
	struct hosts_host h;
	int k;

	for (k = 0; k < l->n && strcmp(l->h[k].name, name); k++)
		;
	if (k == l->n) {
		snprintf(err, len, "--server-host %s: not one of the hosts", name);
		return -1;
	}
	h = l->h[k];
	memmove(&l->h[1], &l->h[0], (size_t)k * sizeof(l->h[0]));
	l->h[0] = h;
	return 0;
}

int hosts_is_slurm(const char *spec)
{
	size_t n = strlen(HOSTS_SLURM);

	return !strncmp(spec, HOSTS_SLURM, n) && (!spec[n] || spec[n] == ':');
}

/* The NODE/DEVICE words after "slurm:", each into l (no count rule). */
static int hosts_slurm_words(const char *spec, struct hosts_list *l, char *err, size_t len)
{
	const char *s = spec + strlen(HOSTS_SLURM);

	l->n = 0;
	if (!*s)
		return 0;
	for (s++; *s; s += *s == ',') {
		size_t n = strcspn(s, ",");
		struct hosts_host *h = &l->h[l->n];

		if (l->n == HOSTS_MAX) {
			snprintf(err, len, "more than %d nodes", HOSTS_MAX);
			return -1;
		}
		if (hosts_word(s, n, h, err, len))
			return -1;
		if (h->user[0] || h->port || !h->device[0]) {
			snprintf(err, len, "'%.*s': a node's device is NODE/DEVICE", (int)n, s);
			return -1;
		}
		l->n++;
		s += n;
	}
	return 0;
}

int hosts_slurm_check(const char *spec, char *err, size_t len)
{
	struct hosts_list *l = malloc(sizeof(*l));
	int rc;

	if (!l) {
		snprintf(err, len, "malloc: %s", strerror(errno));
		return -1;
	}
	rc = hosts_slurm_words(spec, l, err, len);
	free(l);
	return rc;
}

int hosts_slurm(const char *spec, const char *nodes, char *out, size_t olen, char *err,
		size_t len)
{
	struct hosts_list *l = malloc(sizeof(*l));
	size_t used = 0;
	int rc = -1, found = 0;

	if (!l) {
		snprintf(err, len, "malloc: %s", strerror(errno));
		return -1;
	}
	if (hosts_slurm_words(spec, l, err, len))
		goto out;
	for (const char *s = nodes; *s; s += *s == ',') {
		size_t n = strcspn(s, ",");
		const char *dev = "";
		int w;

		for (int k = 0; k < l->n; k++)
			if (strlen(l->h[k].name) == n && !strncmp(l->h[k].name, s, n)) {
				dev = l->h[k].device;
				found++;
			}
		w = snprintf(out + used, olen - used, "%s%.*s%s%s", used ? "," : "", (int)n, s,
			     *dev ? "/" : "", dev);
		if (w < 0 || (size_t)w >= olen - used) {
			snprintf(err, len, "%s: more nodes than --hosts takes", nodes);
			goto out;
		}
		used += (size_t)w;
		s += n;
	}
	if (found < l->n) {
		snprintf(err, len, "%s: names a node not in the allocation (%s)", spec, nodes);
		goto out;
	}
	rc = 0;
out:
	free(l);
	return rc;
}

const char *hosts_launcher(int l)
{
	static char w[HOSTS_NLAUNCHERS][8];
	const char *p = HOSTS_LAUNCHERS;

	for (int i = 0; i < l && *p; i++)
		p += strcspn(p, "|") + 1;
	if (l < 0 || l >= HOSTS_NLAUNCHERS || strcspn(p, "|") >= sizeof(w[l]))
		return "?";
	snprintf(w[l], sizeof(w[l]), "%.*s", (int)strcspn(p, "|"), p);
	return w[l];
}
