// SPDX-License-Identifier: MIT
/*
 * nn_ns_wait_oper: wait until a namespace's links are operationally up, read
 * from rtnetlink (IFLA_OPERSTATE) in a child that joined the namespace.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "netns/nn.h"

struct nn_oper {
	const char *const *names;
	int n;
	long long end_ms;
};

static int nn_oper_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == IFLA_OPERSTATE && !mnl_attr_validate(a, MNL_TYPE_U8))
		*(int *)data = mnl_attr_get_u8(a);
	return MNL_CB_OK;
}

static int nn_oper_msg(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct ifinfomsg), nn_oper_attr, data);
}

/* IFLA_OPERSTATE of one link in the caller's namespace, or -1 with errno. */
static int nn_oper_get(struct mnl_socket *nl, unsigned int seq, const char *name)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifm;
	int state = -1;
	ssize_t n;

	nlh->nlmsg_type = RTM_GETLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = seq;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	mnl_attr_put_strz(nlh, IFLA_IFNAME, name);
	mnl_attr_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0 || mnl_cb_run(buf, n, seq, mnl_socket_get_portid(nl), nn_oper_msg, &state) < 0)
		return -1;
	if (state < 0)
		errno = EPROTO;
	return state;
}

/*
 * Writes the name of each link whose operstate is not UP (what `ip link` shows)
 * by end_ms. Before the kernel's linkwatch has run, a new link's operstate is
 * UNKNOWN and its qdisc noop, so IFF_RUNNING (UNKNOWN counts as running) is not
 * enough. Once up a link stays up: the links are waited for one after another
 * against the one deadline.
 */
static int nn_oper_write(void *arg, int wfd)
{
	struct nn_oper *o = arg;
	struct mnl_socket *nl;
	int i, st, err = 0;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return errno;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = errno;
		goto out;
	}
	for (i = 0; i < o->n && !err; i++) {
		while ((st = nn_oper_get(nl, i + 1, o->names[i])) != IF_OPER_UP) {
			if (st < 0) {
				err = errno;
				break;
			}
			if (nn_now_ms() >= o->end_ms) {
				if (dprintf(wfd, "%s ", o->names[i]) < 0)
					err = errno;
				break;
			}
			nn_sleep_ms(10);
		}
	}
out:
	mnl_socket_close(nl);
	return err;
}

int nn_ns_wait_oper(const char *ns, const char *const *names, int n, long long end_ms,
		    char **late)
{
	struct nn_oper o = {names, n, end_ms};

	if (nn_in_ns(ns, nn_oper_write, &o, late) < 0) {
		fprintf(stderr, "netns: wait for links (in %s): %s\n", nn_ns_label(ns),
			strerror(errno));
		return -1;
	}
	return 0;
}
