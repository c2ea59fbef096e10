// SPDX-License-Identifier: MIT
/*
 * The fi roles' completion queues and their poller (fab.h): --poll event
 * sleeps on each CQ's FI_WAIT_FD fd and reads a CQ only after its fd woke the
 * loop, until fi_trywait says sleeping is safe; busy reads all of them on
 * every turn.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

#include "agents/ag.h"
#include "agents/fi/fab.h"

int fab_cqs_init(struct fab_cqs *s, struct fab *f, uint32_t cap, fab_cq_fn *fn, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->cap = cap ? cap : 1;
	s->wait = f->o->poll == OPT_POLL_EVENT;
	s->tagged = f->o->transport == OPT_TR_FI_RDM;
	s->fn = fn;
	s->arg = arg;
	s->cq = calloc(s->cap, sizeof(*s->cq));
	s->fd = malloc(s->cap * sizeof(*s->fd));
	s->hot = calloc(s->cap, sizeof(*s->hot));
	s->is_hot = calloc(s->cap, sizeof(*s->is_hot));
	if (!s->cq || !s->fd || !s->hot || !s->is_hot) {
		ag_fatal("calloc", "completion queues", ENOMEM);
		return -1;
	}
	for (uint32_t i = 0; i < s->cap; i++)
		s->fd[i] = -1;
	return 0;
}

void fab_cqs_fini(struct fab_cqs *s)
{
	for (uint32_t i = 0; s->cq && i < s->cap; i++)
		fab_fclose(s->cq[i] ? &s->cq[i]->fid : NULL, "cq");
	free(s->is_hot);
	free(s->hot);
	free(s->fd);
	free(s->cq);
	memset(s, 0, sizeof(*s));
}

int fab_cq_open(struct fab_cqs *s, uint32_t i, size_t size, int ep_fd, uint64_t tag,
		const char **call)
{
	/* the verbs provider's msg CQs have no tagged format (vrb_cq_open: ENOSYS) */
	struct fi_cq_attr a = { .size = size,
				.format = s->tagged ? FI_CQ_FORMAT_TAGGED : FI_CQ_FORMAT_MSG,
				.wait_obj = s->wait ? FI_WAIT_FD : FI_WAIT_NONE };
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };
	int ret;

	*call = "fi_cq_open";
	ret = fi_cq_open(s->f->domain, &a, &s->cq[i], NULL);
	if (ret)
		return ret;
	if (i >= s->n)
		s->n = i + 1;
	if (!s->wait)
		return 0;
	*call = "fi_control";
	ret = fi_control(&s->cq[i]->fid, FI_GETWAIT, &s->fd[i]);
	if (ret)
		return ret;
	*call = "epoll_ctl";
	if (epoll_ctl(ep_fd, EPOLL_CTL_ADD, s->fd[i], &ev))
		return -errno;
	/* completions may be there before the fd is first watched */
	fab_cq_woken(s, i);
	return 0;
}

void fab_cq_close(struct fab_cqs *s, uint32_t i, int ep_fd)
{
	if (!s->cq[i])
		return;
	if (s->fd[i] >= 0 && epoll_ctl(ep_fd, EPOLL_CTL_DEL, s->fd[i], NULL))
		ag_warn("epoll_ctl DEL cq %u: %s", i, strerror(errno));
	s->fd[i] = -1;
	fab_fclose(&s->cq[i]->fid, "cq");
	s->cq[i] = NULL;
}

void fab_cq_woken(struct fab_cqs *s, uint32_t i)
{
	if (i >= s->cap || s->is_hot[i])
		return;
	s->is_hot[i] = 1;
	s->hot[s->nhot++] = i;
}

/* Reads CQ i until it is empty: 0, or -1 on a fatal error. */
static int fab_cq_drain(struct fab_cqs *s, uint32_t i)
{
	struct fi_cq_tagged_entry e[FAB_CQ_BATCH];
	struct fi_cq_msg_entry m[FAB_CQ_BATCH];
	struct fi_cq_err_entry err;
	ssize_t n;

	/* bounded: a CQ holds at most its size, and the loop must serve others */
	for (int turn = 0; turn < 64 && s->cq[i]; turn++) {
		s->reads++;
		n = fi_cq_read(s->cq[i], s->tagged ? (void *)e : (void *)m, FAB_CQ_BATCH);
		if (n == -FI_EAGAIN)
			return 0;
		if (n == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			n = fi_cq_readerr(s->cq[i], &err, 0);
			if (n == -FI_EAGAIN)
				continue;
			if (n < 0)
				goto fatal;
			s->fn(s->arg, err.op_context, NULL, &err);
			continue;
		}
		if (n < 0)
			goto fatal;
		for (ssize_t k = 0; !s->tagged && k < n; k++)
			e[k] = (struct fi_cq_tagged_entry){ .op_context = m[k].op_context,
							    .flags = m[k].flags, .len = m[k].len };
		for (ssize_t k = 0; k < n && s->cq[i]; k++)
			s->fn(s->arg, e[k].op_context, &e[k], NULL);
	}
	return 0;
fatal:
	fab_fatal("fi_cq_read", "cq", fab_errno(n), fab_errno(n));
	return -1;
}

int fab_cqs_poll(struct fab_cqs *s)
{
	uint32_t k = 0, i;
	int busy = 0, ret;

	if (!s->wait) {
		for (i = 0; i < s->n; i++)
			if (s->cq[i] && fab_cq_drain(s, i))
				return -1;
		return 1;
	}
	while (k < s->nhot) {
		i = s->hot[k];
		if (!s->cq[i]) {
			s->is_hot[i] = 0;
			s->hot[k] = s->hot[--s->nhot];
			continue;
		}
		if (fab_cq_drain(s, i))
			return -1;
		if (!s->cq[i])
			continue;
		ret = fi_trywait(s->f->fabric, &(struct fid *){ &s->cq[i]->fid }, 1);
		if (ret == -FI_EAGAIN) {
			busy = 1;
			k++;
			continue;
		}
		if (ret) {
			fab_fatal("fi_trywait", "cq", fab_errno(ret), fab_errno(ret));
			return -1;
		}
		s->is_hot[i] = 0;
		s->hot[k] = s->hot[--s->nhot];
	}
	return busy;
}
