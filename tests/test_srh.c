// SPDX-License-Identifier: MIT
/*
 * test_srh: what the srp transport writes to and reads from the kernel, with
 * no kernel: the add_target string ib_srp reads, the initiator_ext in sysfs,
 * the LUN 0 entry and the model of a SCSI host, its remote port, the ACL name ib_srpt gives an rdma_cm
 * login, and the names common/srpname.h gives and recognises, so that
 * `rdmacap down` never takes another user's target or SCSI host for one of
 * ours; and the options srp refuses, each with its why.
 * TAP 13 on stdout; exit 0 pass, 1 fail.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agents/srp/srp_host.h"
#include "agents/srp/srp_target.h"
#include "common/nvopt.h"
#include "common/opt.h"
#include "common/srpname.h"
#include "tap/tap.h"

static struct tap T;

static void t_login(void)
{
	struct srh_login l = { .guid = 0x505400fffe123456ull, .dest = "10.77.0.1:5555",
			       .ext = srpn_ext(0x1a2b, 7) };
	char buf[256], small[40];
	uint64_t v = 0;

	tap_ok(&T, !srh_opts(&l, buf, sizeof(buf)) &&
	       !strcmp(buf, "id_ext=505400fffe123456,ioc_guid=505400fffe123456,"
		       "dest=10.77.0.1:5555,initiator_ext=7264631a2b000007"), "add_target: %s", buf);
	tap_ok(&T, srh_opts(&l, small, sizeof(small)) == -1, "a short buffer is refused");
	tap_ok(&T, !srh_ext("0x7264631a2b000007", &v) && v == l.ext && srh_ext("7264631a2b000007", &v) &&
	       srh_ext("0x7264631a2b00000", &v) && srh_ext("0x7264631a2b000007x", &v),
	       "initiator_ext as sysfs prints it, and nothing else");
	tap_ok(&T, srh_lun0("3:0:0:0", 3) && !srh_lun0("3:0:0:1", 3) && !srh_lun0("13:0:0:0", 3) &&
	       !srh_lun0("host3", 3) && !srh_lun0("3:0:0:0x", 3), "LUN 0 of host 3, and no other");
}

static void t_names(void)
{
	char buf[64], model[] = "rdc1a2b         ";
	struct ipa a4, a6;

	srpn_model_trim(model);
	tap_ok(&T, srpn_rport_host("port-3:1") == 3 && srpn_rport_host("port-3:1x") == -1 &&
	       srpn_rport_host("host3") == -1 && !strcmp(model, "rdc1a2b") &&
	       srpn_name_ours(model, "1a2b"), "remote port port-3:1 is host 3; LUN model %s is run 1a2b's",
	       model);
	tap_ok(&T, srpn_ext(0x1a2b, 0x1000000) == srpn_ext(0x1a2b, 0), "a client id keeps 24 bits");
	tap_ok(&T, srpn_name_ours("rdc1a2b", "1a2b") && srpn_name_ours("rdc1a2b", NULL) &&
	       !srpn_name_ours("rdc1a2b", "1a2c") && !srpn_name_ours("rdc", NULL) &&
	       !srpn_name_ours("tpgt_1", NULL) && !srpn_name_ours("rdc1A2B", NULL),
	       "TPG and backstore names: ours by the prefix and the run");
	tap_ok(&T, srpn_hba("1a2b") == SRPN_HBA_BASE + 0xa2b && !srpn_hba("") && !srpn_hba("xyz"),
	       "backstore HBA of run 1a2b: iblock_%u", srpn_hba("1a2b"));
	tap_ok(&T, !ipa_parse(&a4, "10.77.0.1") && !srt_acl_name(&a4, buf, sizeof(buf)) &&
	       !strcmp(buf, "10.77.0.1"), "ACL of an IPv4 login: %s", buf);
	tap_ok(&T, !ipa_parse(&a6, "fd7a:222::1") && !srt_acl_name(&a6, buf, sizeof(buf)) &&
	       !strcmp(buf, "fd7a:0222:0000:0000:0000:0000:0000:0001"),
	       "ACL of an IPv6 login, as %%pIS prints it: %s", buf);
}

/* the options srp refuses, each with its why; nvmf's own ones too */
static void t_rules(void)
{
	bool seen[OPT_N] = { 0 };
	char err[256] = "";

	seen[OPT_CM] = true;
	tap_ok(&T, nvopt_rules(OPT_TR_SRP, seen, err, sizeof(err)) == -1 &&
	       strstr(err, "--cm") && strstr(err, "ib_srp") && strstr(err, "--transport srp"),
	       "--cm refused: %s", err);
	seen[OPT_CM] = false;
	seen[OPT_OP] = true;
	tap_ok(&T, nvopt_rules(OPT_TR_SRP, seen, err, sizeof(err)) == -1 &&
	       strstr(err, "SCSI"), "--op refused: %s", err);
	seen[OPT_OP] = false;
	seen[OPT_NVME_IO_QUEUES] = true;
	tap_ok(&T, opt_rules(OPT_TR_SRP, seen, err, sizeof(err)) == -1 &&
	       strstr(err, "--transport nvmf") && !strstr(err, "srp"),
	       "--nvme-io-queues with srp refused: %s", err);
	seen[OPT_NVME_IO_QUEUES] = false;
	seen[OPT_DEVICE] = seen[OPT_CLIENTS] = seen[OPT_SIZE] = true;
	tap_ok(&T, !nvopt_rules(OPT_TR_SRP, seen, err, sizeof(err)) &&
	       !opt_rules(OPT_TR_SRP, seen, err, sizeof(err)), "--device, --clients, --size taken");
}

int main(void)
{
	tap_init(&T, stdout);
	tap_plan(&T, 14);
	t_login();
	t_names();
	t_rules();
	tap_totals(&T);
	return tap_exit_code(&T);
}
