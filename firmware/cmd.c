/* cmd.c — the command mailbox: read the HCR, run the command, answer. */
#include "cmd.h"
#include "dev.h"
#include "mm.h"

#define HCR(off) (HCA_FW_HCR_BASE + (off))

static unsigned max_indirection; /* the KLM walk's depth in force */

void cmd_init(void)
{
    mkey_init();
    mm_init();
    /* The depth the device was strapped with (0 or no strap block: the most
     * the unit follows). */
    uint32_t strap = 0;
    unsigned want = reg_probe(HCA_FW_STRAP_BASE + HCA_STRAP_FEATURES, &strap) == 0
                        ? HCA_STRAP_FEATURES_MAX_INDIRECTION_GET(strap)
                        : 0;
    max_indirection = fwp_set_max_indirection(want ? want : HCA_MAX_INDIRECTION);
}

/* Capabilities are what this firmware and device actually serve, nothing more:
 * MEM_MGT_EXTENSIONS, READ_WITH_INV and INDIR_REG when the engine has the
 * event queue (regs evt) that hands those work requests to mm.c (the
 * translation unit walks KLM lists), and FR_INLINE_PAGE with them (mm.c
 * takes a 1-page list from the WQE); PEER_MEMORY when the device is strapped
 * with peer invalidation (the INVALIDATE_MKEY fence a peer client's
 * invalidate callback needs). */
static unsigned query_device(uint64_t out_addr)
{
    hca_query_device_out_t q = {0};
    q.fw_version = HCA_FW_VERSION;
    q.caps = HCA_DEV_CAP_RESERVED_LKEY;
    if (mm_events_served())
        q.caps |= HCA_DEV_CAP_MEM_MGT_EXTENSIONS | HCA_DEV_CAP_READ_WITH_INV | HCA_DEV_CAP_INDIR_REG |
                  HCA_DEV_CAP_FR_INLINE_PAGE;
    if (peer_invalidation_strapped())
        q.caps |= HCA_DEV_CAP_PEER_MEMORY;
    q.reserved_lkey = HCA_RESERVED_LKEY;
    q.max_fast_reg_page_list_len = HCA_MAX_FAST_REG_PAGE_LIST_LEN;
    q.max_indir_reg_list_len = HCA_MAX_INDIR_REG_LIST_LEN;
    q.max_indirection = max_indirection;
    for (unsigned s = HCA_PAGE_SHIFT_MIN; s <= HCA_PAGE_SHIFT_MAX; s++)
        q.page_shifts |= 1u << s;
    q.max_mr = (1u << fwp_mpt_log2()) - 1; /* index 0 is never an MR */
    q.max_mtt = 1u << fwp_mtt_log2();
    q.max_pd = HCA_MAX_PD - 1;
    q.max_reg_pages = HCA_MAX_REG_PAGES;
    qp_caps(&q);
    return fdma_copy(out_addr, &q, sizeof q, 1) ? HCA_CMD_STATUS_DMA_ERR : HCA_CMD_STATUS_OK;
}

void cmd_dispatch(void)
{
    uint32_t ctrl = reg_read(HCR(HCA_HCR_CTRL));
    if (!HCA_HCR_CTRL_GO_GET(ctrl))
        return;
    uint64_t in = reg_read(HCR(HCA_HCR_IN_PARAM_LO)) | (uint64_t)reg_read(HCR(HCA_HCR_IN_PARAM_HI)) << 32;
    uint64_t out = reg_read(HCR(HCA_HCR_OUT_PARAM_LO)) | (uint64_t)reg_read(HCR(HCA_HCR_OUT_PARAM_HI)) << 32;
    uint32_t in_mod = reg_read(HCR(HCA_HCR_IN_MOD));
    uint32_t imm = 0;
    unsigned st;
    switch (HCA_HCR_CTRL_OP_GET(ctrl)) {
    case HCA_CMD_OP_NOP:
        st = HCA_CMD_STATUS_OK;
        break;
    case HCA_CMD_OP_QUERY_DEVICE:
        st = query_device(out);
        break;
    case HCA_CMD_OP_ALLOC_PD:
        st = pd_alloc(&imm);
        break;
    case HCA_CMD_OP_DEALLOC_PD:
        st = pd_dealloc(in_mod);
        break;
    case HCA_CMD_OP_CREATE_MKEY:
        st = mkey_create(in, &imm);
        break;
    case HCA_CMD_OP_DESTROY_MKEY:
        st = mkey_destroy(in_mod);
        break;
    case HCA_CMD_OP_INVALIDATE_MKEY:
        st = mkey_invalidate(in_mod);
        break;
    case HCA_CMD_OP_QUERY_MKEY:
        st = mkey_query(in_mod, out);
        break;
    case HCA_CMD_OP_CREATE_CQ:
        st = cq_create(in, &imm);
        break;
    case HCA_CMD_OP_DESTROY_CQ:
        st = cq_destroy(in_mod);
        break;
    case HCA_CMD_OP_CREATE_QP:
        st = qp_create(in, &imm);
        break;
    case HCA_CMD_OP_CONNECT_QP:
        st = qp_connect(in_mod);
        break;
    case HCA_CMD_OP_DESTROY_QP:
        st = qp_destroy(in_mod);
        break;
    case HCA_CMD_OP_MODIFY_QP:
        st = qp_modify(in_mod);
        break;
    case HCA_CMD_OP_QUERY_CQ:
        st = cq_query(in_mod, out);
        break;
    case HCA_CMD_OP_QUERY_QP:
        st = qp_query(in_mod, out);
        break;
    default:
        st = HCA_CMD_STATUS_BAD_OP;
        break;
    }
    reg_write(HCR(HCA_HCR_STATUS), HCA_HCR_STATUS_STATUS_PUT(st));
    reg_write(HCR(HCA_HCR_OUT_IMM), imm);
    reg_write(HCR(HCA_HCR_CTRL), 0); /* clears go: the answer is complete */
}
