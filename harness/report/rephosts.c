// SPDX-License-Identifier: MIT
/* rdmacap report: the per-host table of a --hosts point (see rephosts.h). */
#include <string.h>

#include "harness/report/rephosts.h"

static long rph_int(json_t *o, const char *k)
{
	return (long)json_integer_value(json_object_get(o, k));
}

static const char *rph_str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s && *s ? s : "-";
}

void rph_md(FILE *f, const char *transport, long clients, json_t *hosts, json_t *total)
{
	size_t i;
	json_t *h;

	if (!json_is_array(hosts))
		return;
	fprintf(f, "\n### %s, %ld clients: per host\n\n", transport, clients);
	fprintf(f, "| Host | Role | Device | Agents | Clients | Connected | Failed | QPs at peak "
		   "| Back at baseline |\n");
	fprintf(f, "|---|---|---|---:|---:|---:|---:|---:|---|\n");
	json_array_foreach(hosts, i, h) {
		json_t *peak = json_object_get(h, "peak"), *base = json_object_get(h, "base");

		fprintf(f, "| %s | %s | %s | %ld | %ld | %ld | %ld |", rph_str(h, "host"),
			rph_str(h, "role"), rph_str(h, "device"), rph_int(h, "agents"),
			rph_int(h, "clients"), rph_int(h, "connected"), rph_int(h, "failed"));
		if (json_is_object(peak) && json_is_object(base))
			fprintf(f, " %ld |", rph_int(peak, "qp") - rph_int(base, "qp"));
		else
			fprintf(f, " - |");
		fprintf(f, " %s |\n", json_is_true(json_object_get(h, "back_at_base")) ? "yes" : "no");
	}
	fprintf(f, "| total (%ld hosts) | | | %ld | %ld | %ld | %ld | | |\n",
		rph_int(total, "hosts"), rph_int(total, "agents"), rph_int(total, "clients"),
		rph_int(total, "connected"), rph_int(total, "failed"));
	/* a host lost mid-point (harness/point/lost.c), under the table */
	json_array_foreach(hosts, i, h) {
		json_t *l = json_object_get(h, "lost");

		if (json_is_object(l))
			fprintf(f, "\n%s (%s) lost in the %s phase, %.1f s in: %s; %ld clients with it\n",
				rph_str(h, "host"), rph_str(h, "role"), rph_str(l, "phase"),
				json_number_value(json_object_get(l, "after_s")), rph_str(l, "cause"),
				rph_int(l, "clients"));
	}
}

/* The point's row for host 'name', or NULL. */
static json_t *rph_find(json_t *hosts, const char *name)
{
	size_t i;
	json_t *h;

	json_array_foreach(hosts, i, h)
		if (!strcmp(rph_str(h, "host"), name))
			return h;
	return NULL;
}

void rph_series(FILE *f, const char *transport, json_t *const hosts[], const long clients[],
		int n)
{
	json_t *first = NULL;
	size_t k;
	json_t *h;
	int i;

	for (i = 0; i < n && !first; i++)
		first = json_is_array(hosts[i]) ? hosts[i] : NULL;
	if (!first || n < 2)
		return;
	fprintf(f, "\n### %s: each host over the points (connected of its clients, QPs at peak)\n\n"
		   "| Host | Role |", transport);
	for (i = 0; i < n; i++)
		fprintf(f, " %ld |", clients[i]);
	fprintf(f, "\n|---|---|");
	for (i = 0; i < n; i++)
		fprintf(f, "---:|");
	fprintf(f, "\n");
	json_array_foreach(first, k, h) {
		const char *name = rph_str(h, "host");

		fprintf(f, "| %s | %s |", name, rph_str(h, "role"));
		for (i = 0; i < n; i++) {
			json_t *p = json_is_array(hosts[i]) ? rph_find(hosts[i], name) : NULL;
			json_t *peak = json_object_get(p, "peak"), *base = json_object_get(p, "base");

			if (!p) {
				fprintf(f, " - |");
				continue;
			}
			fprintf(f, " %ld/%ld", rph_int(p, "connected"), rph_int(p, "clients"));
			if (json_is_object(peak) && json_is_object(base))
				fprintf(f, ", %ld QPs", rph_int(peak, "qp") - rph_int(base, "qp"));
			fprintf(f, " |");
		}
		fprintf(f, "\n");
	}
}
