// SPDX-License-Identifier: MIT
/*
 * The target through configfs: nvmf_target.h's steps, and their undoing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/ag.h"
#include "agents/nvmf/nvmf.h"
#include "agents/nvmf/nvmf_target.h"

/* the undo list: one entry per sub-step, in the order nvt_up makes them */
enum { NVT_BLK_DIR = 1, NVT_BLK_POWER, NVT_SUB_DIR, NVT_NS_DIR, NVT_NS_ON, NVT_PORT_DIR, NVT_LINK };

static int nvt_fail(struct nvt *t, const char *call, const char *obj)
{
	t->call = call;
	t->err = errno;
	snprintf(t->obj, sizeof(t->obj), "%s", obj);
	return -1;
}

static int nvt_mkdir(struct nvt *t, const char *path)
{
	return mkdir(path, 0755) ? nvt_fail(t, "configfs_mkdir", path) : 0;
}

/* attribute name of the folder dir := val */
static int nvt_attr(struct nvt *t, const char *dir, const char *name, const char *val)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return nvmf_put(path, val) ? nvt_fail(t, "configfs_write", path) : 0;
}

static void nvt_paths(const struct nvt *t, char *blk, char *sub, char *ns, char *port,
		      char *link, size_t len)
{
	snprintf(blk, len, NVMFN_NULLB "/%s", t->blk);
	snprintf(sub, len, NVMFN_NVMET "/subsystems/%s", t->nqn);
	snprintf(ns, len, "%s/namespaces/1", sub);
	snprintf(port, len, NVMFN_NVMET "/ports/%u", t->port);
	snprintf(link, len, "%s/subsystems/%s", port, t->nqn);
}

int nvt_up(struct nvt *t, const char *nqn, const struct ipa *addr, uint64_t mib)
{
	char blk[512], sub[512], ns[512], port[512], link[512], v[64];

	memset(t, 0, sizeof(*t));
	snprintf(t->nqn, sizeof(t->nqn), "%s", nqn);
	snprintf(t->run, sizeof(t->run), "%s", nvmfn_nqn_run(nqn));
	snprintf(t->blk, sizeof(t->blk), NVMFN_BLK_PREFIX "%s", t->run);
	t->port = nvmfn_port_id(t->run);
	nvt_paths(t, blk, sub, ns, port, link, sizeof(blk));

	if (nvt_mkdir(t, blk))
		return -1;
	t->made = NVT_BLK_DIR;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mib);
	if (nvt_attr(t, blk, "memory_backed", "1") || nvt_attr(t, blk, "blocksize", "4096") ||
	    nvt_attr(t, blk, "size", v) || nvt_attr(t, blk, "power", "1"))
		return -1;
	t->made = NVT_BLK_POWER;
	if (nvt_mkdir(t, sub))
		return -1;
	t->made = NVT_SUB_DIR;
	if (nvt_attr(t, sub, "attr_allow_any_host", "1") || nvt_mkdir(t, ns))
		return -1;
	t->made = NVT_NS_DIR;
	snprintf(v, sizeof(v), "/dev/%s", t->blk);
	if (nvt_attr(t, ns, "device_path", v) || nvt_attr(t, ns, "enable", "1"))
		return -1;
	t->made = NVT_NS_ON;
	if (nvt_mkdir(t, port))
		return -1;
	t->made = NVT_PORT_DIR;
	snprintf(v, sizeof(v), "%u", NVMFN_TRSVCID);
	if (nvt_attr(t, port, "addr_trtype", "rdma") ||
	    nvt_attr(t, port, "addr_adrfam", addr->family == AF_INET6 ? "ipv6" : "ipv4") ||
	    nvt_attr(t, port, "addr_trsvcid", v))
		return -1;
	ipa_str(addr, v, sizeof(v));
	if (nvt_attr(t, port, "addr_traddr", v))
		return -1;
	/* nvmet-rdma binds its listener here: a taken address fails this link */
	if (symlink(sub, link))
		return nvt_fail(t, "configfs_symlink", link);
	t->made = NVT_LINK;
	return 0;
}

static int nvt_undo(const char *what, const char *path, int r)
{
	if (r)
		ag_warn("nvmf target: %s %s: %s", what, path, strerror(errno));
	return r ? -1 : 0;
}

int nvt_down(struct nvt *t)
{
	char blk[512], sub[512], ns[512], port[512], link[512];
	int rc = 0;

	nvt_paths(t, blk, sub, ns, port, link, sizeof(blk));
	/* each case falls through to the undoing of the step before it */
	switch (t->made) {
	case NVT_LINK:
		rc |= nvt_undo("unlink", link, unlink(link));
		/* fall through */
	case NVT_PORT_DIR:
		rc |= nvt_undo("rmdir", port, rmdir(port));
		/* fall through */
	case NVT_NS_ON: {
		char en[560];

		snprintf(en, sizeof(en), "%s/enable", ns);
		rc |= nvt_undo("write 0 to", en, nvmf_put(en, "0"));
	}
		/* fall through */
	case NVT_NS_DIR:
		rc |= nvt_undo("rmdir", ns, rmdir(ns));
		/* fall through */
	case NVT_SUB_DIR:
		rc |= nvt_undo("rmdir", sub, rmdir(sub));
		/* fall through */
	case NVT_BLK_POWER: {
		char pw[560];

		snprintf(pw, sizeof(pw), "%s/power", blk);
		rc |= nvt_undo("write 0 to", pw, nvmf_put(pw, "0"));
	}
		/* fall through */
	case NVT_BLK_DIR:
		rc |= nvt_undo("rmdir", blk, rmdir(blk));
	}
	t->made = 0;
	return rc;
}
