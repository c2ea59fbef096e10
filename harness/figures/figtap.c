// SPDX-License-Identifier: MIT
/* A point's "# k=v" TAP lines, written from the table of figures (fig.h). */
#include <stdio.h>
#include <string.h>

#include "harness/figures/fig.h"

/* text before a line's first key */
static const char *const fig_label[] = {
	[FIG_L_STORM_SETUP] = "storm ",
	[FIG_L_STORM_FIRST] = "storm ",
};

static bool fig_applies(const struct fig *f, const struct fig_val *v, const struct hp_plan *p)
{
	/* rows of some transports: shown for those only */
	if ((f->when & (FIG_TCP | FIG_RC | FIG_UD | FIG_UC)) &&
	    !((f->when & FIG_TCP) && p->transport == OPT_TR_TCP) &&
	    !((f->when & FIG_RC) && opt_tr_connected(p->transport)) &&
	    !((f->when & FIG_UD) && p->transport == OPT_TR_UD) &&
	    !((f->when & FIG_UC) && p->transport == OPT_TR_UC))
		return false;
	if ((f->when & FIG_STORM) && p->cmd != HP_STORM)
		return false;
	if ((f->when & FIG_FAULT) && p->fault.kind == FLT_NONE)
		return false;
	if ((f->when & FIG_RDMACM) && p->cm != OPT_CM_RDMACM)
		return false;
	if ((f->when & FIG_OOB) && p->cm != OPT_CM_OOB_TLS)
		return false;
	if ((f->when & FIG_ATOMIC) && p->op != OPT_OP_ATOMIC)
		return false;
	if (f->when & FIG_NONZERO)
		return v->type == FIG_STR ? v->s[0] != '\0' : v->type == FIG_DBL ? v->d != 0 :
		       v->type == FIG_U64 ? v->u != 0 : v->l != 0;
	return true;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int fig_fmt(char *buf, size_t len, const struct fig *f, const struct fig_val *v)
{
	switch (v->type) {
	case FIG_LONG:
		return snprintf(buf, len, f->fmt, v->l);
	case FIG_U64:
		return snprintf(buf, len, f->fmt, (unsigned long long)v->u);
	case FIG_DBL:
		return snprintf(buf, len, f->fmt, v->d);
	case FIG_STR:
		return snprintf(buf, len, f->fmt, v->s);
	}
	return 0;
}
#pragma GCC diagnostic pop

/* Appends " name=" and the value(s) of one row to out; a spread is "min/median/max". */
static size_t fig_tap_row(char *out, size_t size, size_t l, const struct fig *f,
			  const struct fig_val *v, int nv)
{
	int n = snprintf(out + l, size - l, "%s%s=", l ? " " : "", f->name);

	if (n > 0 && (size_t)n < size - l)
		l += (size_t)n;
	for (int i = 0; i < nv && l < size - 1; i++) {
		if (i)
			out[l++] = '/';
		n = fig_fmt(out + l, size - l, f, &v[i]);
		if (n > 0)
			l += (size_t)n < size - l ? (size_t)n : size - l - 1;
	}
	out[l < size ? l : size - 1] = '\0';
	return l;
}

/* One TAP line from a point (a NULL) or from the spread over its repeats (pt NULL). */
static void fig_tap_line(struct tap *t, enum fig_line line, const struct pt_point *pt,
			 const struct fig_agg *a, const struct hp_plan *p)
{
	/* the point's settings are the same in every repeat: one value */
	bool one = line == FIG_L_PLAN || line == FIG_L_TIMEOUT;
	char out[1536];
	size_t l = 0;

	for (size_t i = 0; fig_table[i].name && l < sizeof(out) - 1; i++) {
		const struct fig *f = &fig_table[i];
		struct fig_val v[3];
		int nv = 1;

		if (f->line != line)
			continue;
		if (a) {
			v[0] = a[i].min, v[1] = a[i].med, v[2] = a[i].max;
			nv = one || v[1].type == FIG_STR ? 1 : 3;
			if (nv == 1)
				v[0] = a[i].med;
		} else {
			fig_get(f, pt, p, &v[0]);
		}
		/* shown when any repeat shows it: the max (or the text) decides */
		if (!fig_applies(f, a && nv == 3 ? &v[2] : &v[0], p))
			continue;
		l = fig_tap_row(out, sizeof(out), l, f, v, nv);
	}
	if (l)
		tap_diag(t, "%s%s", (size_t)line < sizeof(fig_label) / sizeof(fig_label[0]) &&
			 fig_label[line] ? fig_label[line] : "", out);
}

void fig_tap(struct tap *t, enum fig_line line, const struct pt_point *pt, const struct hp_plan *p)
{
	fig_tap_line(t, line, pt, NULL, p);
}

void fig_tap_spread(struct tap *t, enum fig_line line, const struct fig_agg *a,
		    const struct hp_plan *p)
{
	fig_tap_line(t, line, NULL, a, p);
}

/* The object at the dotted path's parent (created on the way when 'make'), and its last key. */
