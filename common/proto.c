// SPDX-License-Identifier: MIT
/*
 * Record tables, parser, formatter and the histogram codec. One table row per
 * field: the parser, the formatter and so the wire format all come from it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"

enum pf_kind { PF_U64, PF_I64, PF_WORD, PF_HIST, PF_AT, PF_LOOPS };

struct pf {
	const char *key;
	enum pf_kind kind;
	bool opt;
	size_t off;
};

#define PROTO_MAX_FIELDS 24
#define R(m, k, kind, opt) { k, kind, opt, offsetof(struct proto_rec, m) }
#define HS(f) hello_server.f
#define RS(f) result_server.f
#define RC(f) result_client.f
#define STEP(s, w) R(RC(steps[PROTO_STEP_##s]), "step_" w, PF_HIST, 1)

static const struct {
	const char *head;
	struct pf f[PROTO_MAX_FIELDS];
} proto_types[PROTO_NTYPES] = {
	[PROTO_HELLO_SERVER] = { "hello role=server", {
		R(HS(pid), "pid", PF_I64, 0), R(HS(ports), "ports", PF_U64, 0),
		R(HS(port), "port", PF_U64, 0), R(HS(max_backlog), "max_backlog", PF_I64, 1) } },
	[PROTO_HELLO_CLIENT] = { "hello role=client", {
		R(hello_client.pid, "pid", PF_I64, 0), R(hello_client.first, "first", PF_U64, 0),
		R(hello_client.clients, "clients", PF_U64, 0) } },
	[PROTO_DROP] = { "drop", {
		R(drop.peer, "peer", PF_WORD, 0), R(drop.reason, "reason", PF_WORD, 0) } },
	[PROTO_RESULT_SERVER] = { "result role=server", {
		R(RS(accepted), "accepted", PF_U64, 0), R(RS(peak), "peak", PF_U64, 0),
		R(RS(echoed), "echoed", PF_U64, 0), R(RS(bytes), "bytes", PF_U64, 0),
		R(RS(dropped), "dropped", PF_U64, 0), R(RS(rejected), "rejected", PF_U64, 1),
		R(RS(cq_events), "cq_events", PF_U64, 1), R(RS(ah), "ah", PF_U64, 1),
		R(RS(ah_made), "ah_made", PF_U64, 1), R(RS(loops), "loops", PF_LOOPS, 1),
		R(RS(cq_arms), "cq_arms", PF_U64, 1), R(RS(cq_spins), "cq_spins", PF_U64, 1) } },
	[PROTO_RESULT_CLIENT] = { "result role=client", {
		R(RC(ok), "ok", PF_U64, 0), R(RC(msgs), "msgs", PF_U64, 0),
		R(RC(verified), "verified", PF_U64, 0), R(RC(bad), "bad", PF_U64, 0),
		R(RC(errors), "errors", PF_U64, 0), R(RC(us), "us", PF_U64, 0),
		R(RC(hist), "hist", PF_HIST, 0), R(RC(retried), "retried", PF_U64, 1),
		R(RC(late), "late", PF_U64, 1), R(RC(qps), "qps", PF_U64, 1),
		R(RC(cq.events), "cq_events", PF_U64, 1), R(RC(cq.arms), "cq_arms", PF_U64, 1),
		R(RC(cq.spins), "cq_spins", PF_U64, 1),
		STEP(ADDR, "resolve_addr"),
		STEP(ROUTE, "resolve_route"), STEP(QP, "create_qp"), STEP(CONN, "established"),
		STEP(TLS, "tls"), STEP(XCHG, "exchange"), STEP(RTS, "rtr_rts") } },
	[PROTO_CONN_OK] = { "conn ok", {
		R(conn_ok.id, "id", PF_U64, 0), R(conn_ok.us, "us", PF_U64, 0) } },
	[PROTO_CONN_FAIL] = { "conn fail", {
		R(fail.id, "id", PF_U64, 0), R(fail.call, "call", PF_WORD, 0),
		R(fail.err, "errno", PF_I64, 0), R(fail.errname, "err", PF_WORD, 0),
		R(fail.at_server, "at", PF_AT, 1), R(fail.status, "status", PF_I64, 1) } },
	[PROTO_CONNECTED] = { "connected", {
		R(connected.ok, "ok", PF_U64, 0), R(connected.fail, "fail", PF_U64, 0),
		R(connected.us, "us", PF_U64, 0) } },
	[PROTO_MSG_FAIL] = { "msg fail", {
		R(fail.id, "id", PF_U64, 0), R(fail.call, "call", PF_WORD, 0),
		R(fail.err, "errno", PF_I64, 0), R(fail.errname, "err", PF_WORD, 0) } },
	[PROTO_VERIFY_FAIL] = { "verify fail", {
		R(verify_fail.id, "id", PF_U64, 0), R(verify_fail.seq, "seq", PF_U64, 0) } },
	[PROTO_ERROR] = { "error", {
		R(fail.call, "call", PF_WORD, 0), R(fail.err, "errno", PF_I64, 0),
		R(fail.errname, "err", PF_WORD, 0) } },
	[PROTO_BYE] = { "bye", { { 0 } } },
};

/* the step fields stand in enum proto_step's order, the first named "step_..." */
const char *proto_step_name(enum proto_step s)
{
	const struct pf *f = proto_types[PROTO_RESULT_CLIENT].f;
	int i = 0;

	if ((unsigned)s >= PROTO_NSTEPS)
		return "?";
	while (i < PROTO_MAX_FIELDS && f[i].key && strncmp(f[i].key, "step_", 5))
		i++;
	return i + (int)s < PROTO_MAX_FIELDS && f[i + s].key ? f[i + s].key + 5 : "?";
}

static const char *const proto_errs[] = {
	[0] = "ok",
	[-PROTO_E_LONG] = "line too long",
	[-PROTO_E_TYPE] = "unknown record type",
	[-PROTO_E_KEY] = "unknown key",
	[-PROTO_E_DUP] = "duplicate key",
	[-PROTO_E_MISSING] = "missing required key",
	[-PROTO_E_WORD] = "bad word",
	[-PROTO_E_NUMBER] = "bad number",
	[-PROTO_E_HIST] = "bad histogram",
	[-PROTO_E_LOOPS] = "bad loops list",
};

const char *proto_type_name(enum proto_type t)
{
	return (unsigned)t < PROTO_NTYPES ? proto_types[t].head : "?";
}

const char *proto_strerror(int err)
{
	return err <= 0 && -err < (int)(sizeof(proto_errs) / sizeof(proto_errs[0]))
		       ? proto_errs[-err] : "?";
}

static bool proto_wordc(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("_.:,/+-[]", c));
}

static bool proto_word_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!proto_wordc(*s))
			return false;
	return true;
}

/* Canonical unsigned decimal: digits only, no leading zero, no overflow. */
static int proto_num(const char **sp, uint64_t *v)
{
	const char *s = *sp;
	uint64_t x = 0;

	if (*s < '0' || *s > '9')
		return -1;
	if (*s == '0' && s[1] >= '0' && s[1] <= '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*sp = s;
	*v = x;
	return 0;
}

static int proto_value(const struct pf *f, const char *v, struct proto_rec *r)
{
	char *p = (char *)r + f->off;
	bool neg = false;
	uint64_t u;

	switch (f->kind) {
	case PF_WORD:
		if (!proto_word_ok(v))
			return PROTO_E_WORD;
		*(const char **)p = v;
		return 0;
	case PF_HIST:
		if (proto_hist_decode(v, NULL))
			return PROTO_E_HIST;
		*(const char **)p = v;
		return 0;
	case PF_LOOPS:
		if (proto_loops_decode(v, NULL, PROTO_LOOPS_MAX) < 0)
			return PROTO_E_LOOPS;
		*(const char **)p = v;
		return 0;
	case PF_AT:
		if (strcmp(v, "server"))
			return PROTO_E_WORD;
		*(bool *)p = true;
		return 0;
	case PF_I64:
		if (*v == '-') {
			neg = true;
			v++;
		}
		if (proto_num(&v, &u) || *v || u > (uint64_t)INT64_MAX || (neg && !u))
			return PROTO_E_NUMBER;
		*(int64_t *)p = neg ? -(int64_t)u : (int64_t)u;
		return 0;
	case PF_U64:
		if (proto_num(&v, &u) || *v || (f->opt && u == PROTO_NONE))
			return PROTO_E_NUMBER;
		*(uint64_t *)p = u;
		return 0;
	}
	return PROTO_E_KEY;
}

/* Which type the line's head names; *rest is what follows it. */
static int proto_head(char *line, char **rest)
{
	for (int t = 0; t < PROTO_NTYPES; t++) {
		size_t n = strlen(proto_types[t].head);

		if (!strncmp(line, proto_types[t].head, n) && (!line[n] || line[n] == ' ')) {
			*rest = line + n;
			return t;
		}
	}
	return -1;
}

static void proto_absent(const struct pf *f, struct proto_rec *r)
{
	char *p = (char *)r + f->off;

	if (f->kind == PF_U64)
		*(uint64_t *)p = PROTO_NONE;
	else if (f->kind == PF_I64)
		*(int64_t *)p = PROTO_NONE_I;
	else if (f->kind == PF_AT)
		*(bool *)p = false;
	else
		*(const char **)p = NULL;
}

int proto_parse(char *line, struct proto_rec *r)
{
	unsigned seen = 0;
	const struct pf *fs;
	char *p;
	int t, ret;

	memset(r, 0, sizeof(*r));
	if (strnlen(line, PROTO_LINE_MAX) >= PROTO_LINE_MAX - 1)
		return PROTO_E_LONG;
	t = proto_head(line, &p);
	if (t < 0)
		return PROTO_E_TYPE;
	r->type = (enum proto_type)t;
	fs = proto_types[t].f;

	/* exactly one space before each key: "a  b" or a trailing space is an empty key */
	for (bool more = *p; more;) {
		char *tok = p + 1, *eq;
		int i;

		p = strchrnul(tok, ' ');
		more = *p == ' ';
		*p = '\0';
		eq = strchr(tok, '=');
		if (!eq)
			return PROTO_E_KEY;
		*eq = '\0';
		for (i = 0; i < PROTO_MAX_FIELDS && fs[i].key; i++)
			if (!strcmp(fs[i].key, tok))
				break;
		if (i == PROTO_MAX_FIELDS || !fs[i].key)
			return PROTO_E_KEY;
		if (seen & (1u << i))
			return PROTO_E_DUP;
		seen |= 1u << i;
		ret = proto_value(&fs[i], eq + 1, r);
		if (ret)
			return ret;
	}
	for (int i = 0; i < PROTO_MAX_FIELDS && fs[i].key; i++) {
		if (seen & (1u << i))
			continue;
		if (!fs[i].opt)
			return PROTO_E_MISSING;
		proto_absent(&fs[i], r);
	}
	return 0;
}

/* Appends " key=value" at buf+off (when it fits); returns the new length. */
static size_t proto_put(char *buf, size_t len, size_t off, const char *key, const char *v,
			bool word)
{
	int n = snprintf(off < len ? buf + off : NULL, off < len ? len - off : 0, " %s=", key);
	size_t o = off + (size_t)(n > 0 ? n : 0);

	if (!*v)
		v = "?";
	for (; *v; v++, o++)
		if (o + 1 < len)
			buf[o] = !word || proto_wordc(*v) ? *v : '_';
	if (o < len)
		buf[o] = '\0';
	return o;
}

int proto_format(const struct proto_rec *r, char *buf, size_t len)
{
	const struct pf *fs;
	size_t off;
	char num[24];

	if ((unsigned)r->type >= PROTO_NTYPES)
		return -1;
	fs = proto_types[r->type].f;
	off = (size_t)snprintf(buf, len, "%s", proto_types[r->type].head);
	for (int i = 0; i < PROTO_MAX_FIELDS && fs[i].key; i++) {
		const char *p = (const char *)r + fs[i].off;
		const char *v = num;

		switch (fs[i].kind) {
		case PF_U64:
			if (fs[i].opt && *(const uint64_t *)p == PROTO_NONE)
				continue;
			snprintf(num, sizeof(num), "%llu", (unsigned long long)*(const uint64_t *)p);
			break;
		case PF_I64:
			if (fs[i].opt && *(const int64_t *)p == PROTO_NONE_I)
				continue;
			snprintf(num, sizeof(num), "%lld", (long long)*(const int64_t *)p);
			break;
		case PF_AT:
			if (!*(const bool *)p)
				continue;
			v = "server";
			break;
		case PF_WORD:
		case PF_HIST:
		case PF_LOOPS:
			v = *(const char *const *)p;
			if (!v && fs[i].opt)
				continue;
			if (!v)
				v = fs[i].kind == PF_HIST ? "-" : "?";
			break;
		}
		off = proto_put(buf, len, off, fs[i].key, v, fs[i].kind == PF_WORD);
	}
	if (off + 1 < len) {
		buf[off] = '\n';
		buf[off + 1] = '\0';
	}
	return (int)off + 1;
}

/* --- commands --- */

static const char *const proto_cmds[PROTO_NCMDS] = {
	[PROTO_CMD_GO] = "go", [PROTO_CMD_RUN] = "run", [PROTO_CMD_STOP] = "stop",
	[PROTO_CMD_KILL] = "kill"
};

const char *proto_cmd_word(enum proto_cmd c)
{
	return (unsigned)c < PROTO_NCMDS ? proto_cmds[c] : "?";
}

int proto_cmd_parse(const char *line, size_t len)
{
	for (int c = 0; c < PROTO_NCMDS; c++)
		if (strlen(proto_cmds[c]) == len && !memcmp(proto_cmds[c], line, len))
			return c;
	return -1;
}

/* --- histogram --- */

void proto_hist_add(struct proto_hist *h, uint64_t ns)
{
	h->n[proto_hist_bucket(ns)]++;
	h->total++;
}

int proto_hist_encode(const struct proto_hist *h, char *buf, size_t len)
{
	size_t off = 0;
	unsigned b;
	int n;

	if (len < 2)
		return -1;
	buf[0] = '\0';
	for (b = 0; b < PROTO_HIST_BUCKETS; b++) {
		if (!h->n[b])
			continue;
		n = snprintf(buf + off, len - off, "%s%u:%llu", off ? "," : "", b,
			     (unsigned long long)h->n[b]);
		if (n < 0 || (size_t)n >= len - off)
			return -1;
		off += (size_t)n;
	}
	if (!off) {
		strcpy(buf, "-");
		off = 1;
	}
	return (int)off;
}

/* One pass over s: checks it, and adds into h when add is true. */
static int proto_hist_walk(const char *s, struct proto_hist *h, bool add)
{
	uint64_t b, c, total = h ? h->total : 0;
	long last = -1;

	if (!strcmp(s, "-"))
		return 0;
	for (;;) {
		if (proto_num(&s, &b) || *s++ != ':' || proto_num(&s, &c))
			return -1;
		if (b >= PROTO_HIST_BUCKETS || (long)b <= last || !c || total + c < total)
			return -1;
		total += c;
		if (add) {
			h->n[b] += c;
			h->total += c;
		}
		last = (long)b;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

int proto_hist_decode(const char *s, struct proto_hist *h)
{
	if (proto_hist_walk(s, h, false))
		return -1;
	if (h)
		proto_hist_walk(s, h, true);
	return 0;
}

int proto_loops_encode(const struct proto_loop *l, unsigned n, char *buf, size_t len)
{
	size_t off = 0;
	int k;

	if (!n || !len)
		return -1;
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++) {
		k = snprintf(buf + off, len - off, "%s%llu:%llu", i ? "," : "",
			     (unsigned long long)l[i].accepted, (unsigned long long)l[i].cpu_ms);
		if (k < 0 || (size_t)k >= len - off)
			return -1;
		off += (size_t)k;
	}
	return (int)off;
}

int proto_loops_decode(const char *s, struct proto_loop *l, unsigned max)
{
	uint64_t a, c;
	unsigned n = 0;

	for (;;) {
		if (proto_num(&s, &a) || *s++ != ':' || proto_num(&s, &c))
			return -1;
		if (n == max || n == PROTO_LOOPS_MAX)
			return -1;
		if (l)
			l[n] = (struct proto_loop){ a, c };
		n++;
		if (!*s)
			return (int)n;
		if (*s++ != ',')
			return -1;
	}
}
