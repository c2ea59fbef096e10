/* SPDX-License-Identifier: MIT */
/*
 * srp_target: the SRP target of one srp point, the kernel's ib_srpt through
 * LIO's configfs (as targetcli writes it), made in this order and removed in
 * the reverse one by srt_down:
 *
 *   1  the null_blk disk of the run (agents/nullb.h)
 *   2  its LIO backstore: core/iblock_<srpn_hba(run)>/rdc<run>, udev_path the
 *      disk, enabled, its T10 product id (the model its LUN shows) rdc<run>
 *   3  the srpt fabric folder, when LIO has none yet
 *   4  ib_srpt's rdma_cm listener on port SRPN_CM_PORT, when it has none
 *      (a listener on another port is another user's: the step fails)
 *   5  the srpt port of the RDMA device's port, named by its GUID, when
 *      missing
 *   6  the run's TPG on it, LUN 0 on the backstore, an ACL for the address
 *      the logins come to with LUN 0 mapped, the TPG enabled: ib_srpt
 *      accepts logins from here on
 *
 * What existed before (the fabric folder, the listener, the srpt port) is
 * used and left. A step that fails leaves the steps before it for srt_down.
 * Names: common/srpname.h. Uses libc, common/ and the engine's kattr.h, nullb.h.
 */
#ifndef RDC_AGENTS_SRP_TARGET_H
#define RDC_AGENTS_SRP_TARGET_H

#include <stdbool.h>
#include <stdint.h>

#include "agents/kattr.h"
#include "agents/nullb.h"
#include "common/ipaddr.h"

struct srt {
	char run[8];
	struct nullb disk;
	char hba[300], dev[320];	/* the backstore's HBA and device folders */
	char tport[300], tpg[320], acl[400];
	bool made_fabric, made_listener, made_tport;
	int made;		/* steps of 2 and 6, in order, sub-steps counted */
};

/*
 * The ACL name of logins to addr, as ib_srpt names their sessions (%pIS:
 * IPv4 dotted, IPv6 as 8 groups of 4 hex digits). 0, or -1 when buf is short.
 */
int srt_acl_name(const struct ipa *addr, char *buf, size_t len);

/*
 * The srpt port name of RDMA port port of device dev: its GUID as
 * "xxxx:xxxx:xxxx:xxxx", the interface ID of GID 0 (sysfs). 0, or -1 with errno.
 */
int srt_port_name(const char *dev, unsigned port, char *buf, size_t len);

/*
 * The target of run on device dev port port, for logins to addr, with slots
 * LBA ranges of size bytes. 0, or -1 with f naming the step.
 */
int srt_up(struct srt *t, const char *run, const char *dev, unsigned port,
	   const struct ipa *addr, uint32_t slots, uint32_t size, struct kattr_fail *f);
/* Undoes every step srt_up made, last first. 0, or -1 when one could not be undone. */
int srt_down(struct srt *t);

#endif
