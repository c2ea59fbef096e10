// SPDX-License-Identifier: MIT
/*
 * A host lost mid-point (--hosts): its launcher's channel broke (ssh exits
 * 255 when the connection closed or ServerAlive found the peer silent; srun
 * or mpirun end before "stop" when their step or job lost the node), or a phase
 * deadline passed with no record from its agent. The host is named once, with
 * the first cause and when (stderr now, TAP and JSON through rsample.h); its
 * clients count as failed with that cause; a lost server host ends the point,
 * whose figures so far are kept.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "common/clock.h"
#include "harness/hosts/remote.h"
#include "harness/point/rsample.h"
#include "harness/point/rt.h"

static const char *const lost_phase[RT_NPHASES] = {
	[RT_START] = "start", [RT_CONNECT] = "connect",
	[RT_TRAFFIC] = "traffic", [RT_STOP] = "stop",
};

/* The host of agent a (lay_agent_at), NULL outside a --hosts point. */
static struct rsmp_host *lost_host(struct rt *r, const struct agt_agent *a)
{
	struct rsmp_hosts *hs = r->pt->hosts;

	if (!hs || hs->n < 2)
		return NULL;
	return &hs->h[lay_agent_at(r, a - r->ag).host];
}

/* The host of agent a lost by 'cause'; its clients fail as call "host", errname 'word'. */
static void lost_mark(struct rt *r, struct agt_agent *a, const char *word, const char *cause)
{
	struct rsmp_host *h = lost_host(r, a);
	long before = r->nconn_fail, ok = a->result ? 0 : a->ok;

	if (!h)
		return;
	if (!h->lost[0]) {
		r->c->remote->lost[h - r->pt->hosts->h] = true;
		snprintf(h->lost, sizeof(h->lost), "%s", cause);
		h->lost_phase = lost_phase[r->phase];
		h->lost_s = clock_s() - (r->t_go ? r->t_go : r->t_start);
		fprintf(stderr, "rdmacap: host %s (%s) lost in the %s phase, %.1f s after %s: %s\n",
			h->dest, h->server ? "server" : "client", h->lost_phase, h->lost_s,
			r->t_go ? "go" : "the start", cause);
	}
	if (a->server) {
		if (!r->pt->why[0])
			snprintf(r->pt->why, sizeof(r->pt->why), "server host %s lost in the %s phase: %s",
				 h->dest, h->lost_phase, h->lost);
		return;
	}
	rec_fail_pending(r, a, "host", word);
	rec_agent_lost(r, a, "host", word);
	h->lost_clients += r->nconn_fail - before + ok;
}

bool lost_ended(struct rt *r, struct agt_agent *a, int status)
{
	const struct rm_ctx *rm = r->c->remote;
	bool gone;
	char st[48], cause[RSMP_LOST_MAX];

	/* an agent a kill fault struck ended as asked: its host is not lost */
	if (!rm || a->killed || (a->server && r->srv_kill_expected))
		return false;
	/*
	 * ssh's own failure is exit 255, the agent's end is its status, also
	 * after "stop" (a server host killed ends its clients' traffic at once:
	 * their results can come before its channel's end); a step or job that
	 * lost its node ends without the agent's fatal record, but once told to
	 * stop (its stdin closed) also by the signal rdmacap sends it.
	 */
	if (rm->launcher != HOSTS_SSH && r->phase >= RT_STOP && a->in_fd < 0)
		return false;
	if (rm->launcher == HOSTS_SSH)
		gone = WIFEXITED(status) && WEXITSTATUS(status) == 255;
	else
		gone = !a->fatal && !(WIFEXITED(status) && !WEXITSTATUS(status));
	if (!gone)
		return false;
	agt_status_str(status, st, sizeof(st));
	snprintf(cause, sizeof(cause), "channel EOF: %s ended (%s)", hosts_launcher(rm->launcher),
		 st);
	lost_mark(r, a, "channel-eof", cause);
	return true;
}

void lost_silent(struct rt *r, struct agt_agent *a, double deadline_s)
{
	char cause[RSMP_LOST_MAX];

	if (!r->c->remote || a->exited)
		return;
	snprintf(cause, sizeof(cause), "deadline: no record within the %s phase's %.0f s",
		 lost_phase[r->phase], deadline_s);
	lost_mark(r, a, "no-record", cause);
}

void lost_stop(struct rt *r, struct agt_agent *a, double wait_s)
{
	/* ssh names a silent host itself within ~6 s: one it still holds is slow, not lost */
	if (!r->c->remote || r->c->remote->launcher == HOSTS_SSH || a->exited || a->bye ||
	    a->result)
		return;
	lost_silent(r, a, wait_s);
}

void lost_cause(struct rt *r)
{
	struct pt_point *pt = r->pt;
	const struct rsmp_hosts *hs = pt->hosts;
	char rest[sizeof(pt->cause)], *p = pt->cause;
	size_t left = sizeof(pt->cause);

	if (!hs)
		return;
	snprintf(rest, sizeof(rest), "%s", pt->cause);
	for (int k = 0; k < hs->n; k++) {
		const struct rsmp_host *h = &hs->h[k];
		int n;

		if (!h->lost[0])
			continue;
		n = snprintf(p, left, "%shost %s (%s) lost in the %s phase, %.1f s in: %s, %ld clients "
			     "failed with it", p == pt->cause ? "" : "; ", h->dest,
			     h->server ? "server" : "client", h->lost_phase, h->lost_s, h->lost,
			     h->lost_clients);
		if (n < 0 || (size_t)n >= left)
			return;
		p += n;
		left -= (size_t)n;
	}
	if (p != pt->cause && rest[0])
		snprintf(p, left, "; %s", rest);
}
