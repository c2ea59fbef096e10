// SPDX-License-Identifier: MIT
/*
 * The SRP target through LIO's configfs: srp_target.h's steps, and their undoing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agents/srp/srp_target.h"
#include "common/srpname.h"

/* the undo list of steps 2 and 6: one entry per sub-step, in the order srt_up makes them */
enum {
	SRT_HBA = 1, SRT_DEV, SRT_TPG, SRT_LUN, SRT_LUN_LINK, SRT_ACL, SRT_ACL_LUN,
	SRT_ACL_LINK, SRT_ON
};

/* a GID in sysfs: "fe80:0000:0000:0000:5054:00ff:fe12:3456"; the GUID is its last 19 */
#define SRT_GID_LEN 39
#define SRT_GUID_LEN 19

int srt_acl_name(const struct ipa *addr, char *buf, size_t len)
{
	const uint8_t *b = addr->a.s6_addr;
	int n;

	if (addr->family == AF_INET)
		n = snprintf(buf, len, "%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
	else
		n = snprintf(buf, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:"
			     "%02x%02x:%02x%02x", b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
			     b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int srt_port_name(const char *dev, unsigned port, char *buf, size_t len)
{
	char path[160], gid[64];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/gids/0", dev, port);
	if (kattr_get(path, gid, sizeof(gid)))
		return -1;
	if (strlen(gid) != SRT_GID_LEN || len <= SRT_GUID_LEN) {
		errno = EPROTO;
		return -1;
	}
	snprintf(buf, len, "%s", gid + SRT_GID_LEN - SRT_GUID_LEN);
	return 0;
}

/* mkdir that finds path made already: 0 and *made false then */
static int srt_mkdir_maybe(struct kattr_fail *f, const char *path, bool *made)
{
	*made = !kattr_mkdir(f, path);
	return *made || f->err == EEXIST ? 0 : -1;
}

/* step 4: ib_srpt's listener, ours when there was none */
static int srt_listener(struct srt *t, struct kattr_fail *f)
{
	char have[16], want[16];

	snprintf(want, sizeof(want), "%u", SRPN_CM_PORT);
	if (kattr_get(SRPN_CM_PORT_ATTR, have, sizeof(have)))
		return kattr_fail(f, "configfs_read", SRPN_CM_PORT_ATTR);
	if (!strcmp(have, want))
		return 0;
	if (strcmp(have, "0")) {
		/* another user's clients log in there: moving it would cut them off */
		errno = EADDRINUSE;
		return kattr_fail(f, "srpt_rdma_cm_port", SRPN_CM_PORT_ATTR);
	}
	if (kattr_set(f, SRPN_SRPT "/discovery_auth", "rdma_cm_port", want))
		return -1;
	t->made_listener = true;
	return 0;
}

int srt_up(struct srt *t, const char *run, const char *dev, unsigned port,
	   const struct ipa *addr, uint32_t slots, uint32_t size, struct kattr_fail *f)
{
	char guid[32], acl[64], v[400], lun[400], acl_lun[480];

	memset(t, 0, sizeof(*t));
	snprintf(t->run, sizeof(t->run), "%s", run);
	snprintf(t->hba, sizeof(t->hba), SRPN_CORE "/iblock_%u", srpn_hba(run));
	snprintf(t->dev, sizeof(t->dev), "%s/" SRPN_PREFIX "%s", t->hba, run);
	if (srt_port_name(dev, port, guid, sizeof(guid)))
		return kattr_fail(f, "srpt_port_guid", dev);
	if (srt_acl_name(addr, acl, sizeof(acl))) {
		errno = ENAMETOOLONG;
		return kattr_fail(f, "srpt_acl", "address");
	}
	snprintf(t->tport, sizeof(t->tport), SRPN_SRPT "/%s", guid);
	snprintf(t->tpg, sizeof(t->tpg), "%s/" SRPN_PREFIX "%s", t->tport, run);
	snprintf(t->acl, sizeof(t->acl), "%s/acls/%s", t->tpg, acl);

	if (nullb_up(&t->disk, run, slots, size, f) || kattr_mkdir(f, t->hba))
		return -1;
	t->made = SRT_HBA;
	if (kattr_mkdir(f, t->dev))
		return -1;
	t->made = SRT_DEV;
	snprintf(v, sizeof(v), "udev_path=/dev/%s", t->disk.name);
	/* the model its LUN shows the initiator: how a run's SCSI hosts are known */
	if (kattr_set(f, t->dev, "control", v) || kattr_set(f, t->dev, "enable", "1") ||
	    kattr_set(f, t->dev, "wwn/product_id", t->disk.name) ||
	    srt_mkdir_maybe(f, SRPN_SRPT, &t->made_fabric) || srt_listener(t, f) ||
	    srt_mkdir_maybe(f, t->tport, &t->made_tport) || kattr_mkdir(f, t->tpg))
		return -1;
	t->made = SRT_TPG;
	snprintf(lun, sizeof(lun), "%s/lun/lun_0", t->tpg);
	if (kattr_mkdir(f, lun))
		return -1;
	t->made = SRT_LUN;
	snprintf(v, sizeof(v), "%s/%s", lun, t->disk.name);
	if (kattr_link(f, t->dev, v))
		return -1;
	t->made = SRT_LUN_LINK;
	if (kattr_mkdir(f, t->acl))
		return -1;
	t->made = SRT_ACL;
	snprintf(acl_lun, sizeof(acl_lun), "%s/lun_0", t->acl);
	if (kattr_mkdir(f, acl_lun))
		return -1;
	t->made = SRT_ACL_LUN;
	snprintf(v, sizeof(v), "%s/lun_0", acl_lun);
	if (kattr_link(f, lun, v))
		return -1;
	t->made = SRT_ACL_LINK;
	if (kattr_set(f, t->tpg, "enable", "1"))
		return -1;
	t->made = SRT_ON;
	return 0;
}

int srt_down(struct srt *t)
{
	char lun[400], link[480], acl_lun[480], acl_link[500], en[400];
	int rc = 0;

	snprintf(lun, sizeof(lun), "%s/lun/lun_0", t->tpg);
	snprintf(link, sizeof(link), "%s/%s", lun, t->disk.name);
	snprintf(acl_lun, sizeof(acl_lun), "%s/lun_0", t->acl);
	snprintf(acl_link, sizeof(acl_link), "%s/lun_0", acl_lun);
	snprintf(en, sizeof(en), "%s/enable", t->tpg);
	/* each case falls through to the undoing of the step before it */
	switch (t->made) {
	case SRT_ON:
		/* ib_srpt closes the TPG's channels that are left */
		rc |= kattr_undo("write 0 to", en, kattr_put(en, "0"));
		/* fall through */
	case SRT_ACL_LINK:
		rc |= kattr_undo("unlink", acl_link, unlink(acl_link));
		/* fall through */
	case SRT_ACL_LUN:
		rc |= kattr_undo("rmdir", acl_lun, rmdir(acl_lun));
		/* fall through */
	case SRT_ACL:
		rc |= kattr_undo("rmdir", t->acl, rmdir(t->acl));
		/* fall through */
	case SRT_LUN_LINK:
		rc |= kattr_undo("unlink", link, unlink(link));
		/* fall through */
	case SRT_LUN:
		rc |= kattr_undo("rmdir", lun, rmdir(lun));
		/* fall through */
	case SRT_TPG:
		rc |= kattr_undo("rmdir", t->tpg, rmdir(t->tpg));
		/* fall through */
	case SRT_DEV:
		if (t->made_tport)
			rc |= kattr_undo("rmdir", t->tport, rmdir(t->tport));
		if (t->made_listener)
			rc |= kattr_undo("write 0 to", SRPN_CM_PORT_ATTR,
					 kattr_put(SRPN_CM_PORT_ATTR, "0"));
		if (t->made_fabric)
			rc |= kattr_undo("rmdir", SRPN_SRPT, rmdir(SRPN_SRPT));
		rc |= kattr_undo("rmdir", t->dev, rmdir(t->dev));
		/* fall through */
	case SRT_HBA:
		rc |= kattr_undo("rmdir", t->hba, rmdir(t->hba));
	}
	t->made = 0;
	t->made_tport = t->made_listener = t->made_fabric = false;
	rc |= nullb_down(&t->disk);
	return rc;
}
