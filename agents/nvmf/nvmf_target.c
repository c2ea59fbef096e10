// SPDX-License-Identifier: MIT
/*
 * The target through configfs: nvmf_target.h's steps, and their undoing.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agents/nvmf/nvmf_target.h"

/* the undo list after the disk: one entry per sub-step, in the order nvt_up makes them */
enum { NVT_SUB_DIR = 1, NVT_NS_DIR, NVT_NS_ON, NVT_PORT_DIR, NVT_LINK };

static void nvt_paths(const struct nvt *t, char *sub, char *ns, char *port, char *link,
		      size_t len)
{
	snprintf(sub, len, NVMFN_NVMET "/subsystems/%s", t->nqn);
	snprintf(ns, len, "%s/namespaces/1", sub);
	snprintf(port, len, NVMFN_NVMET "/ports/%u", t->port);
	snprintf(link, len, "%s/subsystems/%s", port, t->nqn);
}

int nvt_up(struct nvt *t, const char *nqn, const struct ipa *addr, uint32_t slots,
	   uint32_t size, struct kattr_fail *f)
{
	char sub[512], ns[512], port[512], link[512], v[64];

	memset(t, 0, sizeof(*t));
	snprintf(t->nqn, sizeof(t->nqn), "%s", nqn);
	snprintf(t->run, sizeof(t->run), "%s", nvmfn_nqn_run(nqn));
	t->port = nvmfn_port_id(t->run);
	nvt_paths(t, sub, ns, port, link, sizeof(sub));

	if (nullb_up(&t->disk, t->run, slots, size, f) || kattr_mkdir(f, sub))
		return -1;
	t->made = NVT_SUB_DIR;
	if (kattr_set(f, sub, "attr_allow_any_host", "1") || kattr_mkdir(f, ns))
		return -1;
	t->made = NVT_NS_DIR;
	snprintf(v, sizeof(v), "/dev/%s", t->disk.name);
	if (kattr_set(f, ns, "device_path", v) || kattr_set(f, ns, "enable", "1"))
		return -1;
	t->made = NVT_NS_ON;
	if (kattr_mkdir(f, port))
		return -1;
	t->made = NVT_PORT_DIR;
	snprintf(v, sizeof(v), "%u", NVMFN_TRSVCID);
	if (kattr_set(f, port, "addr_trtype", "rdma") ||
	    kattr_set(f, port, "addr_adrfam", addr->family == AF_INET6 ? "ipv6" : "ipv4") ||
	    kattr_set(f, port, "addr_trsvcid", v))
		return -1;
	ipa_str(addr, v, sizeof(v));
	if (kattr_set(f, port, "addr_traddr", v))
		return -1;
	/* nvmet-rdma binds its listener here: a taken address fails this link */
	if (kattr_link(f, sub, link))
		return -1;
	t->made = NVT_LINK;
	return 0;
}

int nvt_down(struct nvt *t)
{
	char sub[512], ns[512], port[512], link[512], en[560];
	int rc = 0;

	nvt_paths(t, sub, ns, port, link, sizeof(sub));
	snprintf(en, sizeof(en), "%s/enable", ns);
	/* each case falls through to the undoing of the step before it */
	switch (t->made) {
	case NVT_LINK:
		rc |= kattr_undo("unlink", link, unlink(link));
		/* fall through */
	case NVT_PORT_DIR:
		rc |= kattr_undo("rmdir", port, rmdir(port));
		/* fall through */
	case NVT_NS_ON:
		rc |= kattr_undo("write 0 to", en, kattr_put(en, "0"));
		/* fall through */
	case NVT_NS_DIR:
		rc |= kattr_undo("rmdir", ns, rmdir(ns));
		/* fall through */
	case NVT_SUB_DIR:
		rc |= kattr_undo("rmdir", sub, rmdir(sub));
	}
	t->made = 0;
	rc |= nullb_down(&t->disk);
	return rc;
}
