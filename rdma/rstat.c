// SPDX-License-Identifier: MIT
/* rstat: per-port RDMA statistic counters over RDMA netlink. See rstat.h. */
#include "rdma/rstat.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

/* The device list of one GET dump, as ports. */
struct rstat_list {
	struct rstat_port *ports;
	int max;
	int n; /* ports seen, also past max */
};

static int rstat_dev_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[RNL_TB_N];
	struct rstat_list *l = data;
	char name[RNL_NAME_MAX];
	uint32_t index, nports;

	if (rnl_attrs(nlh, NULL, tb) < 0 || rnl_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &index) ||
	    rnl_str(tb[RDMA_NLDEV_ATTR_DEV_NAME], name, sizeof(name)))
		return -1;
	/* In a GET reply PORT_INDEX is the number of ports; a switch has none. */
	if (rnl_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &nports))
		return 0;
	for (uint32_t port = 1; port <= nports; port++) {
		struct rstat_port *p;

		if (l->n++ >= l->max)
			continue;
		p = &l->ports[l->n - 1];
		p->index = index;
		p->port = port;
		snprintf(p->dev, sizeof(p->dev), "%s", name);
		p->err = 0;
		p->n = 0;
		p->dropped = 0;
	}
	return 0;
}

/* One HWCOUNTER_ENTRY nest into p. */
static int rstat_entry(const struct nlattr *nest, struct rstat_port *p)
{
	const struct nlattr *tb[RNL_TB_N];
	const struct nlattr *name, *val;

	if (rnl_attrs(NULL, nest, tb) < 0)
		return -1;
	name = tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME];
	val = tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE];
	if (!name || mnl_attr_validate(name, MNL_TYPE_NUL_STRING) < 0 || !val ||
	    mnl_attr_validate(val, MNL_TYPE_U64) < 0)
		return -1;
	/* A cut name could equal another counter's: not kept, but counted. */
	if (p->n >= RSTAT_MAX || strlen(mnl_attr_get_str(name)) >= RSTAT_NAME) {
		p->dropped++;
		return 0;
	}
	snprintf(p->name[p->n], RSTAT_NAME, "%s", mnl_attr_get_str(name));
	p->val[p->n++] = mnl_attr_get_u64(val);
	return 0;
}

int rstat_parse(const struct nlmsghdr *nlh, struct rstat_port *p)
{
	const struct nlattr *tb[RNL_TB_N];
	const struct nlattr *a, *hw;

	p->n = 0;
	p->dropped = 0;
	if (rnl_attrs(nlh, NULL, tb) < 0 || rnl_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX], &p->index) ||
	    rnl_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX], &p->port))
		goto bad;
	if (tb[RDMA_NLDEV_ATTR_DEV_NAME] &&
	    rnl_str(tb[RDMA_NLDEV_ATTR_DEV_NAME], p->dev, sizeof(p->dev)))
		goto bad;
	hw = tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS];
	if (!hw || mnl_attr_validate(hw, MNL_TYPE_NESTED) < 0)
		goto bad;
	mnl_attr_for_each_nested(a, hw) {
		if (mnl_attr_get_type(a) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
			continue;
		if (rstat_entry(a, p) < 0)
			goto bad;
	}
	return 0;
bad:
	p->n = 0;
	errno = EBADMSG;
	return -1;
}

static int rstat_port_cb(const struct nlmsghdr *nlh, void *data)
{
	return rstat_parse(nlh, data);
}

/* The counters of one listed port; a refusal of the kernel stays with the port. */
static int rstat_port_get(struct rnl *r, struct rstat_port *p)
{
	struct nlmsghdr *nlh;
	char what[96];

	nlh = rnl_req(r, RDMA_NLDEV_CMD_STAT_GET, 0);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, p->index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, p->port);
	snprintf(what, sizeof(what), "STAT_GET %s/%u", p->dev, p->port);
	if (rnl_talk(r, what, 0, rstat_port_cb, p) == 0)
		return 0;
	if (!r->kernel_err)
		return -1;
	p->err = errno;
	p->n = 0;
	return 0;
}

int rstat_sample(struct rnl *r, struct rstat_port *ports, int maxports)
{
	struct rstat_list l = { .ports = ports, .max = maxports > 0 ? maxports : 0 };
	int n;

	rnl_req(r, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
	if (rnl_talk(r, "GET dump", 0, rstat_dev_cb, &l) < 0)
		return -1;
	n = l.n < l.max ? l.n : l.max;
	for (int i = 0; i < n; i++)
		if (rstat_port_get(r, &ports[i]) < 0)
			return -1;
	if (l.n > l.max)
		return rnl_fail(r, ENOBUFS, "GET dump: %d ports, room for %d", l.n, l.max);
	return n;
}

const struct rstat_port *rstat_find(const struct rstat_port *ports, int n, const char *dev,
				    uint32_t port)
{
	for (int i = 0; i < n; i++)
		if (ports[i].port == port && !strcmp(ports[i].dev, dev))
			return &ports[i];
	return NULL;
}

/* The slot of 'name' in p, trying 'hint' first: two samples of a port list alike. */
static int rstat_slot(const struct rstat_port *p, const char *name, int hint)
{
	if (hint >= 0 && hint < p->n && !strcmp(p->name[hint], name))
		return hint;
	for (int i = 0; i < p->n; i++)
		if (!strcmp(p->name[i], name))
			return i;
	return -1;
}

int rstat_get(const struct rstat_port *p, const char *name, uint64_t *val)
{
	int i = rstat_slot(p, name, -1);

	if (i < 0) {
		errno = ENOENT;
		return -1;
	}
	*val = p->val[i];
	return 0;
}

int rstat_delta(const struct rstat_port *now, const struct rstat_port *base, const char *name,
		int64_t *delta)
{
	int i = rstat_slot(now, name, -1);
	int j = i < 0 ? -1 : rstat_slot(base, name, i);

	if (j < 0) {
		errno = ENOENT;
		return -1;
	}
	*delta = (int64_t)(now->val[i] - base->val[j]);
	return 0;
}
