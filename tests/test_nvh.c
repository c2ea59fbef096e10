// SPDX-License-Identifier: MIT
/*
 * test_nvh: what the nvmf transport writes to and reads from the kernel, with
 * no kernel: the option string for /dev/nvme-fabrics (as libnvme writes
 * it), the "instance=N,cntlid=M" reply, the namespace head of a controller's
 * sysfs entry (multipath path or own disk), the host NQN and ID of a
 * client, and the names common/nvmfname.h gives and recognises, so that
 * `rdmacap down` never takes another user's subsystem for one of ours.
 * TAP 13 on stdout; exit 0 pass, 1 fail.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agents/nullb.h"
#include "agents/nvmf/nvmf_host.h"
#include "common/nvmfname.h"
#include "common/nvopt.h"
#include "common/opt.h"
#include "tap/tap.h"

static struct tap T;

static void t_opts(void)
{
	struct nvh_conn c = { .traddr = "10.77.0.1", .nqn = NVMFN_NQN_PREFIX "1a2b",
			      .hostnqn = NVMFN_NQN_PREFIX "1a2b:host:7",
			      .hostid = "00001a2b-0000-4000-8000-000000000007",
			      .io_queues = 4, .queue_size = 128 };
	char buf[512], small[40];

	tap_ok(&T, !nvh_opts(&c, buf, sizeof(buf)) &&
	       !strcmp(buf, "transport=rdma,traddr=10.77.0.1,trsvcid=4420,"
		       "nqn=nqn.2014-08.org.rdmacap:rdc1a2b,"
		       "hostnqn=nqn.2014-08.org.rdmacap:rdc1a2b:host:7,"
		       "hostid=00001a2b-0000-4000-8000-000000000007,nr_io_queues=4,queue_size=128"),
	       "option string as libnvme writes it: %s", buf);
	tap_ok(&T, nvh_opts(&c, small, sizeof(small)) == -1, "a short buffer is refused");
}

static void t_reply(void)
{
	int in = -1, id = -1;

	tap_ok(&T, !nvh_reply("instance=3,cntlid=17\n", &in, &id) && in == 3 && id == 17,
	       "instance=3,cntlid=17 read as 3 and 17");
	in = id = -1;
	tap_ok(&T, !nvh_reply("cntlid=2,foo=x,instance=0", &in, &id) && in == 0 && id == 2,
	       "keys in any order, others skipped");
	tap_ok(&T, nvh_reply("instance=3", &in, &id) == -1, "cntlid missing: refused");
	tap_ok(&T, nvh_reply("instance=,cntlid=1", &in, &id) == -1, "empty number: refused");
	tap_ok(&T, nvh_reply("instance=3x,cntlid=1", &in, &id) == -1, "trailing junk: refused");
	tap_ok(&T, nvh_reply("instance=9999999999,cntlid=1", &in, &id) == -1,
	       "10 digits: refused");
	tap_ok(&T, nvh_reply("", &in, &id) == -1, "empty reply: refused");
}

static void t_head(void)
{
	char dev[32];

	tap_ok(&T, !nvh_head("nvme0c3n1", 3, dev, sizeof(dev)) && !strcmp(dev, "nvme0n1"),
	       "multipath path nvme0c3n1 of controller 3: head %s", dev);
	tap_ok(&T, !nvh_head("nvme3n1", 3, dev, sizeof(dev)) && !strcmp(dev, "nvme3n1"),
	       "own disk nvme3n1 without multipath");
	tap_ok(&T, nvh_head("nvme0c4n1", 3, dev, sizeof(dev)) == -1,
	       "another controller's path: refused");
	tap_ok(&T, nvh_head("nvme0c3n1p1", 3, dev, sizeof(dev)) == -1, "a partition: refused");
	tap_ok(&T, nvh_head("hwmon3", 3, dev, sizeof(dev)) == -1, "other entries: refused");
	tap_ok(&T, nvh_head("nvme0c3n1", 3, dev, 4) == -1, "a short buffer: refused");
}

static void t_names(void)
{
	char nqn[256], id[64];

	tap_ok(&T, !nvh_host(NVMFN_NQN_PREFIX "1a2b", 0x1a2b, 7, nqn, sizeof(nqn), id, sizeof(id)) &&
	       !strcmp(nqn, NVMFN_NQN_PREFIX "1a2b:host:7") &&
	       !strcmp(id, "00001a2b-0000-4000-8000-000000000007"),
	       "host NQN %s, host ID %s", nqn, id);
	tap_ok(&T, nvmfn_nqn_ours(NVMFN_NQN_PREFIX "1a2b"), "our subsystem NQN is ours");
	tap_ok(&T, !nvmfn_nqn_ours("nqn.2014-08.org.nvmexpress:uuid:1234") &&
	       !nvmfn_nqn_ours(NVMFN_NQN_PREFIX) && !nvmfn_nqn_ours(NVMFN_NQN_PREFIX "1a2b:x") &&
	       !nvmfn_nqn_ours(NVMFN_NQN_PREFIX "1A2B"),
	       "another user's NQN, the bare prefix, a suffix, upper case: not ours");
	tap_ok(&T, nvmfn_port_id("1a2b") == NVMFN_PORT_BASE + 0xa2b && nvmfn_port_id("") == 0 &&
	       nvmfn_port_id("xyz") == 0, "port id of run 1a2b: %u", nvmfn_port_id("1a2b"));
	tap_ok(&T, nullb_slot_bytes(1) == 4096 && nullb_slot_bytes(4096) == 4096 &&
	       nullb_slot_bytes(4097) == 8192, "a client's LBA range: --size in whole 4 KiB blocks");
}

/* the options nvmf refuses, each with its why; its own ones only with it */
static void t_rules(void)
{
	bool seen[OPT_N] = { 0 };
	char err[256] = "";

	seen[OPT_CM] = true;
	tap_ok(&T, nvopt_rules(OPT_TR_NVMF, seen, err, sizeof(err)) == -1 &&
	       strstr(err, "--cm") && strstr(err, "rdma_cm"), "--cm refused: %s", err);
	seen[OPT_CM] = false;
	seen[OPT_QP_SHARE] = true;
	tap_ok(&T, nvopt_rules(OPT_TR_NVMF, seen, err, sizeof(err)) == -1 &&
	       strstr(err, "--qp-share"), "--qp-share refused: %s", err);
	seen[OPT_QP_SHARE] = false;
	seen[OPT_DEVICE] = seen[OPT_NVME_IO_QUEUES] = seen[OPT_NVME_QUEUE_SIZE] = true;
	tap_ok(&T, !nvopt_rules(OPT_TR_NVMF, seen, err, sizeof(err)) &&
	       !opt_rules(OPT_TR_NVMF, seen, err, sizeof(err)),
	       "--device, --nvme-io-queues, --nvme-queue-size taken with nvmf");
	seen[OPT_DEVICE] = false;
	tap_ok(&T, opt_rules(OPT_TR_RC, seen, err, sizeof(err)) == -1 &&
	       strstr(err, "--transport nvmf"), "--nvme-io-queues with rc refused: %s", err);
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 24);
	t_opts();
	t_reply();
	t_head();
	t_names();
	t_rules();
	tap_totals(&T);
	return tap_exit_code(&T);
}
