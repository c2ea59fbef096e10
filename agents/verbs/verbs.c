// SPDX-License-Identifier: MIT
/*
 * The words of work completion statuses (see verbs.h).
 */
#include "agents/verbs/verbs.h"

const char *verbs_wc_word(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_SUCCESS: return "IBV_WC_SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "IBV_WC_LOC_LEN_ERR";
	case IBV_WC_LOC_QP_OP_ERR: return "IBV_WC_LOC_QP_OP_ERR";
	case IBV_WC_LOC_PROT_ERR: return "IBV_WC_LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "IBV_WC_WR_FLUSH_ERR";
	case IBV_WC_BAD_RESP_ERR: return "IBV_WC_BAD_RESP_ERR";
	case IBV_WC_LOC_ACCESS_ERR: return "IBV_WC_LOC_ACCESS_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "IBV_WC_REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "IBV_WC_REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "IBV_WC_REM_OP_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "IBV_WC_RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "IBV_WC_RNR_RETRY_EXC_ERR";
	case IBV_WC_REM_ABORT_ERR: return "IBV_WC_REM_ABORT_ERR";
	case IBV_WC_FATAL_ERR: return "IBV_WC_FATAL_ERR";
	case IBV_WC_RESP_TIMEOUT_ERR: return "IBV_WC_RESP_TIMEOUT_ERR";
	case IBV_WC_GENERAL_ERR: return "IBV_WC_GENERAL_ERR";
	default: return "IBV_WC_OTHER";
	}
}
