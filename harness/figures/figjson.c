// SPDX-License-Identifier: MIT
/* A point's figures in its JSON object, and read back, by the table (fig.h). */
#include <stdio.h>
#include <string.h>

#include "harness/figures/fig.h"

static json_t *fig_json_parent(json_t *o, const char *path, bool make, char *key, size_t len)
{
	const char *dot;

	while (o && (dot = strchr(path, '.'))) {
		json_t *next;

		snprintf(key, len, "%.*s", (int)(dot - path), path);
		next = json_object_get(o, key);
		if (!next && make) {
			next = json_object();
			json_object_set_new(o, key, next);
		}
		o = json_is_object(next) ? next : NULL;
		path = dot + 1;
	}
	snprintf(key, len, "%s", path);
	return o;
}

static json_t *fig_json_val(const struct fig *f, const struct fig_val *v)
{
	switch (v->type) {
	case FIG_LONG:
		return f->jreal ? json_real((double)v->l) : json_integer((json_int_t)v->l);
	case FIG_U64:
		return f->jreal ? json_real((double)v->u) : json_integer((json_int_t)v->u);
	case FIG_DBL:
		return json_real(v->d);
	case FIG_STR:
		return json_string(v->s);
	}
	return json_null();
}

static void fig_json_set(json_t *o, const struct fig *f, const struct fig_val *v)
{
	json_t *parent, *j = fig_json_val(f, v);
	char key[64];

	parent = fig_json_parent(o, f->json, true, key, sizeof(key));
	if (parent)
		json_object_set_new(parent, key, j);
	else
		json_decref(j);
}

/*
 * Whether row f is in a point's JSON: a point without --fault has no fault
 * object, and only a storm's point has the storm object (FIG_JSON_STORM).
 */
static bool fig_json_has(const struct fig *f, const struct hp_plan *p)
{
	if (!f->json || ((f->when & FIG_FAULT) && p->fault.kind == FLT_NONE))
		return false;
	return p->cmd == HP_STORM || strncmp(f->json, FIG_JSON_STORM ".", strlen(FIG_JSON_STORM) + 1);
}

void fig_json(json_t *o, const struct pt_point *pt, const struct hp_plan *p)
{
	for (const struct fig *f = fig_table; f->name; f++) {
		struct fig_val v;

		if (!fig_json_has(f, p))
			continue;
		fig_get(f, pt, p, &v);
		fig_json_set(o, f, &v);
	}
}

void fig_json_spread(json_t *o, const struct fig_agg *a, const struct hp_plan *p)
{
	json_t *rep = json_object_get(o, "repeat"), *min = json_object(), *max = json_object();

	if (!json_is_object(rep)) {
		rep = json_object();
		json_object_set_new(o, "repeat", rep);
	}
	for (size_t i = 0; fig_table[i].name; i++) {
		const struct fig *f = &fig_table[i];

		if (!fig_json_has(f, p))
			continue;
		fig_json_set(o, f, &a[i].med);
		fig_json_set(min, f, &a[i].min);
		fig_json_set(max, f, &a[i].max);
	}
	json_object_set_new(rep, "min", min);
	json_object_set_new(rep, "max", max);
}

double fig_json_at(json_t *o, const char *path)
{
	char key[64];
	json_t *parent = fig_json_parent(o, path, false, key, sizeof(key)), *v;

	v = parent ? json_object_get(parent, key) : NULL;
	return v && json_is_number(v) ? json_number_value(v) : 0;
}

double fig_json_num(json_t *o, const char *name)
{
	for (const struct fig *f = fig_table; f->name; f++)
		if (f->json && !strcmp(f->name, name))
			return fig_json_at(o, f->json);
	return 0;
}
