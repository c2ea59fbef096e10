/* SPDX-License-Identifier: MIT */
/*
 * nvmf_host: one controller of the kernel's NVMe over Fabrics initiator, made
 * and deleted as libnvme does, without nvme-cli: the option string written to
 * /dev/nvme-fabrics and its "instance=N,cntlid=M" reply read back, the
 * controller's namespace found in sysfs, "1" written to its delete_controller.
 *
 * The kernel puts every controller of one subsystem under one multipath head
 * (nvme_core.multipath, Debian's default): controller nvmeC's path to
 * namespace head nvmeSnN is the sysfs entry nvmeScCnN, and I/O goes through
 * the head (/dev/nvmeSnN), which spreads it by the subsystem's iopolicy.
 * Without multipath the controller's own disk nvmeCnN is the one.
 *
 * The parsers (nvh_opts, nvh_reply, nvh_head) are pure, for tests/test_nvh.c.
 * Uses libc and agents/kattr.h.
 */
#ifndef RDC_AGENTS_NVMF_HOST_H
#define RDC_AGENTS_NVMF_HOST_H

#include <stddef.h>
#include <stdint.h>

#define NVH_FABRICS "/dev/nvme-fabrics"
#define NVH_CLASS "/sys/class/nvme"

struct nvh_conn {
	const char *traddr;	/* the target's address, as text */
	const char *nqn;	/* the subsystem's */
	const char *hostnqn;
	const char *hostid;	/* a UUID */
	unsigned io_queues, queue_size;
};

/*
 * The option string of c as /dev/nvme-fabrics reads it, into buf. 0, or -1
 * when it does not fit.
 */
int nvh_opts(const struct nvh_conn *c, char *buf, size_t len);

/*
 * The client id's host NQN and host ID under subsystem nqn of run: "<nqn>:host:<id>",
 * and a UUID built from the run and the id. 0, or -1 when buf is short.
 */
int nvh_host(const char *nqn, uint32_t run, uint32_t id, char *hostnqn, size_t nlen,
	     char *hostid, size_t ilen);

/*
 * The kernel's reply "instance=N,cntlid=M" (keys in any order, others skipped).
 * 0, or -1 when either is missing or not a number.
 */
int nvh_reply(const char *line, int *instance, int *cntlid);

/*
 * The block device of a namespace entry of controller instance's sysfs folder:
 * "nvme0c3n1" (a multipath path of controller 3) gives "nvme0n1", "nvme3n1"
 * (no multipath) itself. 0, or -1 for any other name or another controller's.
 */
int nvh_head(const char *entry, int instance, char *dev, size_t len);

/*
 * Writes c's options to /dev/nvme-fabrics, the controller's instance and
 * cntlid from the reply. 0, or -1 with errno (EPROTO: a reply not understood).
 */
int nvh_connect(const struct nvh_conn *c, int *instance, int *cntlid);

/*
 * The block device of controller instance's first namespace, "/dev/..." into
 * dev. 0; 1 when the controller has none yet (the kernel scans namespaces
 * after the connect returns); -1 with errno.
 */
int nvh_find(int instance, char *dev, size_t len);

/*
 * Deletes controller instance, if it is still hostnqn's (an instance number
 * is reused once freed). 0, or -1 with errno.
 */
int nvh_delete(int instance, const char *hostnqn);

#endif
