// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/rec.h"

static int rec_word_ok(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++) {
		char c = *s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_.:,/+-", c)))
			return 0;
	}
	return 1;
}

int rec_parse(char *line, struct rec *r)
{
	char *save = NULL, *tok;
	int n = 0;

	memset(r, 0, sizeof(*r));
	r->sub = "";
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), n++) {
		char *eq = strchr(tok, '=');

		if (n == 0) {
			if (eq || !rec_word_ok(tok))
				return -1;
			r->type = tok;
			continue;
		}
		if (!eq) {
			/* one bare word, right after the type */
			if (n != 1 || !rec_word_ok(tok))
				return -1;
			r->sub = tok;
			continue;
		}
		*eq = '\0';
		if (r->nkv == REC_MAX_KV || !rec_word_ok(tok) || !rec_word_ok(eq + 1))
			return -1;
		r->kv[r->nkv].k = tok;
		r->kv[r->nkv].v = eq + 1;
		r->nkv++;
	}
	return r->type ? 0 : -1;
}

const char *rec_get(const struct rec *r, const char *key)
{
	for (int i = 0; i < r->nkv; i++)
		if (!strcmp(r->kv[i].k, key))
			return r->kv[i].v;
	return NULL;
}

int rec_u64(const struct rec *r, const char *key, uint64_t *out)
{
	const char *v = rec_get(r, key);
	char *end;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno || *end)
		return -1;
	return 0;
}

int rec_hist_add(const char *s, uint64_t *hist, unsigned nb)
{
	const char *p = s;

	if (!strcmp(s, "-"))
		return 0;
	while (*p) {
		unsigned long long b, c;
		char *end;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		b = strtoull(p, &end, 10);
		if (errno || *end != ':' || b >= nb)
			return -1;
		p = end + 1;
		if (*p < '0' || *p > '9')
			return -1;
		c = strtoull(p, &end, 10);
		if (errno || (*end && *end != ','))
			return -1;
		hist[b] += c;
		p = *end ? end + 1 : end;
		if (*end == ',' && !*p)
			return -1;
	}
	return 0;
}
