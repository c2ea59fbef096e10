// SPDX-License-Identifier: MIT
/* --fault: the spec, what it needs of the host, apply and undo (fault.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/opt.h"
#include "harness/fault/fault.h"

const char flt_grammar[] =
	"kill-client[:N]|kill-server|stop-server:MS|link-down[:MS][:server]|loss:PCT|"
	"delay:MS[:JITTER]|reorder:PCT";

static const char *const flt_words[FLT_NKINDS] = {
	[FLT_KILL_CLIENT] = "kill-client", [FLT_KILL_SERVER] = "kill-server",
	[FLT_STOP_SERVER] = "stop-server", [FLT_LINK_DOWN] = "link-down",
	[FLT_LOSS] = "loss", [FLT_DELAY] = "delay", [FLT_REORDER] = "reorder",
};

/* The i-th ':' field of s (0 = the kind) into buf; false when absent or too long. */
static bool flt_field(const char *s, int i, char *buf, size_t len)
{
	for (; i > 0; i--) {
		s = strchr(s, ':');
		if (!s)
			return false;
		s++;
	}
	size_t n = strcspn(s, ":");

	if (n >= len)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return true;
}

static int flt_nfields(const char *s)
{
	int n = 1;

	for (; *s; s++)
		n += *s == ':';
	return n;
}

/* field i as a number in [lo, hi] */
static int flt_num(const char *s, int i, long lo, long hi, long *out)
{
	char b[24];
	long long v;

	if (!flt_field(s, i, b, sizeof(b)) || opt_num(b, lo, hi, &v))
		return -1;
	*out = (long)v;
	return 0;
}

/* the fields after the kind: min..max of them, each parsed by the kind */
static int flt_args(const char *s, struct flt_spec *f, int nf)
{
	char b[24];

	switch (f->kind) {
	case FLT_KILL_CLIENT:
		f->n = 1;
		return nf > 2 || (nf == 2 && flt_num(s, 1, 1, 100000, &f->n)) ? -1 : 0;
	case FLT_KILL_SERVER:
		return nf == 1 ? 0 : -1;
	case FLT_STOP_SERVER:
		return nf != 2 || flt_num(s, 1, 1, 600000, &f->ms) ? -1 : 0;
	case FLT_LINK_DOWN:
		if (nf > 3)
			return -1;
		for (int i = 1; i < nf; i++) {
			if (!flt_field(s, i, b, sizeof(b)))
				return -1;
			if (!strcmp(b, "server") && i == nf - 1)
				f->server = true;
			else if (i != 1 || flt_num(s, 1, 1, 600000, &f->ms))
				return -1;
		}
		return 0;
	case FLT_LOSS:
	case FLT_REORDER:
		return nf != 2 || flt_num(s, 1, 1, 100, &f->pct) ? -1 : 0;
	case FLT_DELAY:
		if (nf < 2 || nf > 3 || flt_num(s, 1, 1, 60000, &f->ms))
			return -1;
		return nf == 3 && flt_num(s, 2, 0, f->ms, &f->jitter_ms) ? -1 : 0;
	case FLT_NONE:
	case FLT_NKINDS:
		break;
	}
	return -1;
}

int flt_parse(const char *s, struct flt_spec *f, char *err, size_t len)
{
	char kind[24];

	memset(f, 0, sizeof(*f));
	if (s && strlen(s) < sizeof(f->text) && flt_field(s, 0, kind, sizeof(kind))) {
		for (int k = 1; k < FLT_NKINDS; k++) {
			if (strcmp(kind, flt_words[k]))
				continue;
			f->kind = (enum flt_kind)k;
			if (!flt_args(s, f, flt_nfields(s))) {
				snprintf(f->text, sizeof(f->text), "%s", s);
				return 0;
			}
			break;
		}
	}
	memset(f, 0, sizeof(*f));
	snprintf(err, len, "invalid value '%s' for --fault (want %s; N 1..100000, MS 1..600000, "
		 "PCT 1..100, delay MS 1..60000, JITTER 0..MS)", s ? s : "", flt_grammar);
	return -1;
}

bool flt_netem(const struct flt_spec *f)
{
	return f->kind == FLT_LOSS || f->kind == FLT_DELAY || f->kind == FLT_REORDER;
}

bool flt_on_links(const struct flt_spec *f)
{
	return flt_netem(f) || f->kind == FLT_LINK_DOWN;
}

bool flt_destructive(const struct flt_spec *f)
{
	return f->kind == FLT_KILL_CLIENT || f->kind == FLT_KILL_SERVER ||
	       f->kind == FLT_STOP_SERVER || f->kind == FLT_LINK_DOWN;
}

/*
 * Runs argv (argv[0] a tool on PATH or in /usr/sbin, /sbin) inside namespace ns
 * and waits for it. 0 when it exited 0; else -1 with its first stderr line in err.
 */
static int flt_exec(const char *ns, char *const argv[], char *err, size_t len)
{
	char out[256] = "";
	int p[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return snprintf(err, len, "pipe: %s", strerror(errno)), -1;
	pid = fork();
	if (pid < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (!pid) {
		sigset_t none;
		int null = open("/dev/null", O_RDWR);
		char path[64];

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 || dup2(p[1], 2) < 0 ||
		    nn_enter(ns))
			_exit(126);
		execvp(argv[0], argv);
		snprintf(path, sizeof(path), "/usr/sbin/%s", argv[0]);
		execv(path, argv);
		snprintf(path, sizeof(path), "/sbin/%s", argv[0]);
		execv(path, argv);
		fprintf(stderr, "%s: not found\n", argv[0]);
		_exit(127);
	}
	close(p[1]);
	while (got < (ssize_t)sizeof(out) - 1 &&
	       ((n = read(p[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0 ||
		(n < 0 && errno == EINTR)))
		got += n > 0 ? n : 0;
	out[got] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return snprintf(err, len, "waitpid: %s", strerror(errno)), -1;
	if (WIFEXITED(st) && !WEXITSTATUS(st))
		return 0;
	out[strcspn(out, "\n")] = '\0';
	snprintf(err, len, "%s%s%s", argv[0], out[0] ? ": " : " failed", out);
	return -1;
}

static bool flt_tool(const char *tool)
{
	char *const argv[] = { (char *)tool, "-V", NULL };
	char err[64];

	return !flt_exec("", argv, err, sizeof(err));
}

const char *flt_unavailable(const struct flt_spec *f, char *buf, size_t len)
{
	char *const probe[] = { "modprobe", "-q", "sch_netem", NULL };
	struct stat st;
	char err[128];

	if (!flt_netem(f))
		return NULL;
	if (!flt_tool("tc")) {
		snprintf(buf, len, "--fault %s needs tc (iproute2), not found", f->text);
		return buf;
	}
	if (!stat("/sys/module/sch_netem", &st) ||
	    (!flt_exec("", probe, err, sizeof(err)) && !stat("/sys/module/sch_netem", &st)))
		return NULL;
	snprintf(buf, len, "--fault %s needs the kernel's sch_netem (netem qdisc): not built "
		 "into this kernel and `modprobe sch_netem` failed", f->text);
	return buf;
}

void flt_init(struct flt_run *f, const struct flt_spec *spec, const struct nn_topo *topo,
	      struct flt_result *res)
{
	memset(f, 0, sizeof(*f));
	f->spec = spec;
	f->topo = topo;
	f->res = res;
	memset(res, 0, sizeof(*res));
	res->asked = spec->kind != FLT_NONE;
	res->detect_ms = -1;
	res->tcp_retrans = -1;
}

/* appends to res->did */
static void flt_did(struct flt_run *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void flt_did(struct flt_run *f, const char *fmt, ...)
{
	size_t l = strlen(f->res->did);
	va_list ap;

	if (l + 3 >= sizeof(f->res->did))
		return;
	if (l) {
		strcpy(f->res->did + l, "; ");
		l += 2;
	}
	va_start(ap, fmt);
	vsnprintf(f->res->did + l, sizeof(f->res->did) - l, fmt, ap);
	va_end(ap);
}

/*
 * netem's queue cap. rxe's requester stops at 64 skbs in flight per QP
 * (RXE_INFLIGHT_SKBS_PER_QP_HIGH) and its responder answers no more than it
 * was sent, so one link holds at most 128 per QP; 2^27 is that for 1,048,576
 * QPs (rxe's max_qp, rounded up). tc's default, 1,000, is a tail drop, which
 * ip_local_out returns to rxe as NET_XMIT_DROP: a failed QP, not a lost packet.
 */
#define FLT_NETEM_LIMIT "134217728"

/*
 * tc VERB dev DEV root netem limit FLT_NETEM_LIMIT, plus the fault's
 * parameters when 'on' (without them netem passes every packet at once).
 */
static int flt_netem_tc(struct flt_run *f, const char *verb, const char *ns, const char *dev,
			bool on)
{
	const struct flt_spec *s = f->spec;
	char a[24], b[24], c[24];
	char *argv[18] = { "tc", "qdisc", (char *)verb, "dev", (char *)dev, "root", "netem",
			   "limit", FLT_NETEM_LIMIT };
	int n = 9;

	switch (on ? s->kind : FLT_NONE) {
	case FLT_NONE:
		break;
	case FLT_LOSS:
		snprintf(a, sizeof(a), "%ld%%", s->pct);
		argv[n++] = "loss";
		argv[n++] = a;
		break;
	case FLT_DELAY:
		snprintf(a, sizeof(a), "%ldms", s->ms);
		argv[n++] = "delay";
		argv[n++] = a;
		if (s->jitter_ms) {
			snprintf(b, sizeof(b), "%ldms", s->jitter_ms);
			argv[n++] = b;
		}
		break;
	default: /* reorder: netem reorders against a delay */
		snprintf(a, sizeof(a), "%dms", FLT_REORDER_DELAY_MS);
		snprintf(c, sizeof(c), "%ld%%", s->pct);
		argv[n++] = "delay";
		argv[n++] = a;
		argv[n++] = "reorder";
		argv[n++] = c;
		break;
	}
	argv[n] = NULL;
	return flt_exec(ns, argv, f->res->err, sizeof(f->res->err));
}

int flt_arm(struct flt_run *f)
{
	const struct nn_topo *t = f->topo;

	if (!flt_netem(f->spec))
		return 0;
	/* the server's link (server -> clients) and every client's (client -> server) */
	for (int k = -1; k < t->nclients; k++) {
		const struct nn_host *h = k < 0 ? &t->srv : &t->cli[k];

		if (flt_netem_tc(f, "replace", h->ns, h->ifname, false))
			return -1;
		snprintf(f->q[f->nq].ns, sizeof(f->q[0].ns), "%s", h->ns);
		snprintf(f->q[f->nq].dev, sizeof(f->q[0].dev), "%s", h->ifname);
		f->nq++;
	}
	return 0;
}

/* The armed qdiscs changed in place: the fault's parameters on or off. */
static int flt_netem_set(struct flt_run *f, bool on)
{
	int rc = 0;

	for (int i = 0; i < f->nq; i++)
		if (flt_netem_tc(f, "change", f->q[i].ns, f->q[i].dev, on))
			rc = -1;
	f->netem_on = on && !rc;
	if (!rc && on)
		flt_did(f, "netem %s limit %s on %d links (both directions)", f->spec->text,
			FLT_NETEM_LIMIT, f->nq);
	return rc;
}

static int flt_link(struct flt_run *f, bool up)
{
	char *argv[] = { "ip", "link", "set", "dev", f->link.dev, up ? "up" : "down", NULL };

	if (flt_exec(f->link.ns, argv, f->res->err, sizeof(f->res->err)))
		return -1;
	f->link_down = !up;
	return 0;
}

static void flt_signal(struct flt_run *f, const pid_t *pids, int n, int sig, const char *who,
		       const long *conns)
{
	for (int i = 0; i < n; i++) {
		if (kill(pids[i], sig)) {
			snprintf(f->res->err, sizeof(f->res->err), "kill %d: %s", (int)pids[i],
				 strerror(errno));
			continue;
		}
		if (sig == SIGSTOP && f->nstopped < FLT_MAX_TARGETS)
			f->stopped[f->nstopped++] = pids[i];
		if (conns)
			flt_did(f, "%s %d (pid %d, %ld connections)", who, i + 1, (int)pids[i],
				conns[i]);
		else
			flt_did(f, "%s %d (pid %d)", who, i + 1, (int)pids[i]);
	}
}

int flt_apply(struct flt_run *f, const pid_t *srv, int nsrv, const pid_t *cli,
	      const long *conns, int ncli, double now)
{
	const struct flt_spec *s = f->spec;
	const struct nn_topo *t = f->topo;
	int rc = 0;

	f->t_applied = now;
	f->res->applied = true;
	switch (s->kind) {
	case FLT_KILL_CLIENT:
		flt_signal(f, cli, s->n < ncli ? (int)s->n : ncli, SIGKILL,
			   "SIGKILL client agent", conns);
		break;
	case FLT_KILL_SERVER:
		flt_signal(f, srv, nsrv, SIGKILL, "SIGKILL server agent", NULL);
		break;
	case FLT_STOP_SERVER:
		flt_signal(f, srv, nsrv, SIGSTOP, "SIGSTOP server agent", NULL);
		f->t_due = now + (double)s->ms / 1e3;
		break;
	case FLT_LINK_DOWN: {
		const struct nn_host *h = s->server ? &t->srv : &t->cli[0];

		snprintf(f->link.ns, sizeof(f->link.ns), "%s", h->ns);
		snprintf(f->link.dev, sizeof(f->link.dev), "%s", h->ifname);
		rc = flt_link(f, false);
		if (!rc)
			flt_did(f, "link %s (%s) down%s", h->ifname, h->ns,
				s->ms ? "" : " until the point ends");
		if (s->ms)
			f->t_due = now + (double)s->ms / 1e3;
		break;
	}
	default:
		rc = f->nq ? flt_netem_set(f, true) : -1;
		if (!f->nq && !f->res->err[0])
			snprintf(f->res->err, sizeof(f->res->err), "netem: not armed (flt_arm)");
		break;
	}
	if (f->res->err[0])
		rc = -1;
	return rc;
}

/* the undo of stop and link-down: SIGCONT, link up */
static int flt_resume(struct flt_run *f, double now)
{
	int rc = 0;

	for (int i = 0; i < f->nstopped; i++)
		if (kill(f->stopped[i], SIGCONT) && errno != ESRCH) {
			snprintf(f->res->err, sizeof(f->res->err), "SIGCONT %d: %s",
				 (int)f->stopped[i], strerror(errno));
			rc = -1;
		}
	if (f->nstopped)
		flt_did(f, "SIGCONT after %.0f ms", (now - f->t_applied) * 1e3);
	f->nstopped = 0;
	if (f->link_down) {
		if (flt_link(f, true))
			rc = -1;
		else
			flt_did(f, "link up after %.0f ms", (now - f->t_applied) * 1e3);
	}
	if (!f->res->undo_ms)
		f->res->undo_ms = (now - f->t_applied) * 1e3;
	return rc;
}

void flt_tick(struct flt_run *f, double now)
{
	if (!f->t_due || now < f->t_due)
		return;
	f->t_due = 0;
	flt_resume(f, now);
}

int flt_undo(struct flt_run *f, double now)
{
	int rc = 0;

	if (!f->res->applied)
		return 0;
	f->t_due = 0;
	if ((f->nstopped || f->link_down) && flt_resume(f, now))
		rc = -1;
	if (f->netem_on && flt_netem_set(f, false))
		rc = -1;
	f->res->undone = !rc;
	return rc;
}

int flt_disarm(struct flt_run *f)
{
	int rc = 0;

	while (f->nq > 0) {
		char *argv[] = { "tc", "qdisc", "del", "dev", f->q[f->nq - 1].dev, "root", NULL };

		if (flt_exec(f->q[f->nq - 1].ns, argv, f->res->err, sizeof(f->res->err)))
			rc = -1;
		f->nq--;
	}
	return rc;
}
